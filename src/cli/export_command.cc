// `graphopt export MODEL --plan P --to device-map`: a plan that keeps the model's
// modules whole, as the {module: device} map a PyTorch program applies
// (sim/device_map.h; docs/python.md shows how).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "core/files.h"
#include "graph/modules.h"
#include "models/load.h"
#include "sim/device_map.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

std::vector<FlagSpec> ExportFlags() {
  return {
      {"plan", true, "the plan .json file (of optimize or baseline with --granularity module, same --depth)", "P"},
      {"to", true, "device-map: {module: device} as Accelerate's dispatch_model takes it, with the order of execution",
       "device-map"},
      {"cluster", true, std::string("the cluster the plan is for (default ") + kDefaultCluster + ")", "C"},
      {"depth", true, "the depth of the modules (0, the default: as optimize --granularity module chooses it)", "K"},
      {"out", true, "write the map to this file (default: standard output)", "F"},
      DimFlag(),
  };
}

Status Export(const Args& args) {
  if (args.Get("to") != "device-map") return InvalidArgument("--to: expected device-map, got '" + args.Get("to") + "'");
  if (!args.Has("plan")) return InvalidArgument("--plan is required");
  GO_ASSIGN_OR_RETURN(const int64_t depth, args.GetIntInRange("depth", 0, 0, kMaxModuleDepth));
  GO_ASSIGN_OR_RETURN(const LoadOptions load, ModelLoadOptions(args));
  GO_ASSIGN_OR_RETURN(const Graph graph, LoadModel(args.positional()[0], load));
  GO_ASSIGN_OR_RETURN(const Cluster cluster, LoadClusterFlag(args.Get("cluster", kDefaultCluster)));
  const std::string plan_path = args.Get("plan");
  GO_ASSIGN_OR_RETURN(const Plan plan, ReadPlanJson(plan_path, graph));
  GO_RETURN_IF_ERROR(ValidatePlan(graph, cluster, plan).WithContext(plan_path));
  GO_ASSIGN_OR_RETURN(const auto modules, ClusterModules(graph, cluster, static_cast<int>(depth)));
  auto map = PlanDeviceMap(graph, plan, modules);
  if (!map.ok()) return map.status().WithContext(plan_path);
  GO_ASSIGN_OR_RETURN(const Simulator sim, Simulator::Create(graph, cluster));
  SimOptions options;
  options.record_timeline = true;
  GO_ASSIGN_OR_RETURN(const SimResult result, sim.Simulate(plan, options));
  SetExecutionOrder(graph, modules, result.timeline, &*map);
  const std::string text = DeviceMapJson(*map, graph, cluster);
  if (!args.Has("out")) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return Status::Ok();
  }
  GO_RETURN_IF_ERROR(WriteFileAtomic(args.Get("out"), text));
  std::fprintf(stderr, "wrote %s: %zu modules at depth %d\n", args.Get("out").c_str(), map->modules.size(), map->depth);
  return Status::Ok();
}

}  // namespace

Command ExportCommand() {
  Command c;
  c.name = "export";
  c.positional = "MODEL";
  c.min_positional = c.max_positional = 1;
  c.summary = "a plan that keeps modules whole as {module: device}";
  c.flags = ExportFlags;
  c.outputs = {"out"};
  c.notes = "Writes a plan that keeps every module of the model on one device as {module: device}.";
  c.run = Export;
  return c;
}

}  // namespace graphopt
