// `graphopt export MODEL --plan P --to device-map`: a plan that keeps the model's
// modules whole, as the {module: device} map a PyTorch program applies
// (sim/device_map.h; docs/python.md shows how).
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "core/files.h"
#include "graph/modules.h"
#include "models/load.h"
#include "sim/device_map.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

int Fail(const std::string& message) { return CommandError("export", message); }

std::vector<FlagSpec> ExportFlags() {
  return {
      {"plan", true, "the plan .json file (of optimize or baseline with --granularity module, same --depth)"},
      {"to", true, "device-map: {module: device} as Accelerate's dispatch_model takes it, with the order of execution"},
      {"cluster", true, std::string("the cluster the plan is for (default ") + kDefaultCluster + ")"},
      {"depth", true, "the depth of the modules (0, the default: as optimize --granularity module chooses it)"},
      {"out", true, "write the map to this file (default: standard output)"},
      DimFlag(),
      {"help", false, "show this help"},
  };
}

std::string Usage() {
  return "usage: graphopt export MODEL --plan P --to device-map [--cluster C] [--depth K] [--out map.json]\n"
         "  writes a plan that keeps every module of the model on one device as {module: device}\n" +
         FlagsHelp(ExportFlags());
}

}  // namespace

int RunExportCommand(int argc, char** argv) {
  auto args = Args::Parse("export", argc, argv, 2, ExportFlags());
  if (!args.ok()) return Fail(args.status().message());
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
  if (args->positional().size() != 1) return Fail("expected one MODEL\n" + Usage());
  if (args->Get("to") != "device-map") return Fail("--to: expected device-map, got '" + args->Get("to") + "'");
  if (!args->Has("plan")) return Fail("--plan is required");
  if (Status outputs = args->CheckOutputs({"out"}); !outputs.ok()) return Fail(outputs.message());
  auto depth = args->GetIntInRange("depth", 0, 0, kMaxModuleDepth);
  if (!depth.ok()) return Fail(depth.status().message());
  auto load = ModelLoadOptions(*args);
  if (!load.ok()) return Fail(load.status().message());
  auto graph = LoadModel(args->positional()[0], *load);
  if (!graph.ok()) return Fail(graph.status().message());
  auto cluster = LoadClusterFlag(args->Get("cluster", kDefaultCluster));
  if (!cluster.ok()) return Fail(cluster.status().message());
  const std::string plan_path = args->Get("plan");
  auto plan = ReadPlanJson(plan_path, *graph);
  if (!plan.ok()) return Fail(plan.status().message());
  if (Status valid = ValidatePlan(*graph, *cluster, *plan); !valid.ok()) return Fail(valid.WithContext(plan_path).message());
  auto modules = ClusterModules(*graph, *cluster, *depth);
  if (!modules.ok()) return Fail(modules.status().message());
  auto map = PlanDeviceMap(*graph, *plan, *modules);
  if (!map.ok()) return Fail(map.status().WithContext(plan_path).message());
  auto sim = Simulator::Create(*graph, *cluster);
  if (!sim.ok()) return Fail(sim.status().message());
  SimOptions options;
  options.record_timeline = true;
  auto result = sim->Simulate(*plan, options);
  if (!result.ok()) return Fail(result.status().message());
  SetExecutionOrder(*graph, *modules, result->timeline, &*map);
  const std::string text = DeviceMapJson(*map, *graph, *cluster);
  if (!args->Has("out")) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (Status written = WriteFileAtomic(args->Get("out"), text); !written.ok()) return Fail(written.message());
  std::fprintf(stderr, "wrote %s: %zu modules at depth %d\n", args->Get("out").c_str(), map->modules.size(), map->depth);
  return 0;
}

}  // namespace graphopt
