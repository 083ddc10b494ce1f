// `graphopt simulate MODEL [--cluster C] [--plan plan.json] [--trace out.json]`:
// simulates one plan of a model on a cluster and prints the step time, the lower
// bound, per-device utilisation and memory, the bytes on every link and the OOM
// verdict.
#include <cstdio>
#include <string>
#include <vector>

#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "core/strings.h"
#include "models/load.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"
#include "sim/trace.h"

namespace graphopt {
namespace {

constexpr const char* kSimulateCluster = "1xV100";

std::vector<FlagSpec> SimulateFlags() {
  std::string presets;
  for (const std::string& p : ClusterPresetNames()) presets += (presets.empty() ? "" : ", ") + p;
  return {
      {"cluster", true,
       std::string("cluster preset, cluster .json file or local[:N] (default ") + kSimulateCluster + "; presets: " + presets + ")",
       "C"},
      {"plan", true, "plan .json file (default: every op on the first accelerator, ready order, no fusion)", "P"},
      {"profile", true, "measured op times (graphopt profile) instead of the roofline", "F"},
      {"trace", true,
       "write the timeline to this file in Chrome's Trace Event format (open in Perfetto or chrome://tracing)", "T"},
      DimFlag(),
  };
}

std::string DescribePlan(const Graph& graph, const Cluster& cluster, const Plan& plan, const std::string& source) {
  if (source.empty())
    return "default: every op on " + cluster.device(cluster.FirstAccelerator()).name + ", ready order, no fusion";
  std::vector<int> ops_per_device(static_cast<size_t>(cluster.num_devices()), 0);
  for (DeviceId d : plan.device) ++ops_per_device[static_cast<size_t>(d)];
  int used = plan.device.empty() ? 1 : 0;
  for (int n : ops_per_device) used += n > 0;
  int fused = 0;
  for (uint8_t f : plan.fuse_with_producer) fused += f ? 1 : 0;
  bool prioritized = false;
  for (double p : plan.priority) prioritized |= p != 0;
  return StrFormat("%s: %d device%s used, %s, %d op%s fused into their producers", source.c_str(), used,
                   used == 1 ? "" : "s", prioritized ? "priorities set" : "ready order", fused, fused == 1 ? "" : "s");
}

// The plan of --plan, validated, or the default plan.
StatusOr<Plan> PlanToSimulate(const Args& args, const Graph& graph, const Cluster& cluster) {
  const std::string plan_path = args.Get("plan");
  if (plan_path.empty()) return DefaultPlan(graph, cluster.FirstAccelerator());
  GO_ASSIGN_OR_RETURN(Plan plan, ReadPlanJson(plan_path, graph));
  GO_RETURN_IF_ERROR(ValidatePlan(graph, cluster, plan).WithContext(plan_path));
  return plan;
}

void PrintDevicesAndLinks(const Cluster& cluster, const SimResult& r) {
  std::printf("%-10s %-24s %7s %12s   %s\n", "device", "model", "util", "busy", "peak memory / capacity");
  for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
    const Device& device = cluster.device(d);
    const int64_t peak = r.device_peak_memory[static_cast<size_t>(d)];
    std::printf("%-10s %-24s %6.1f%% %12s   %s / %s (%.1f%%)%s\n", device.name.c_str(), device.model.c_str(),
                100 * r.Utilization(d), HumanTime(r.device_busy_us[static_cast<size_t>(d)]).c_str(),
                HumanBytes(static_cast<double>(peak)).c_str(),
                HumanBytes(static_cast<double>(device.memory_bytes)).c_str(),
                100.0 * static_cast<double>(peak) / static_cast<double>(device.memory_bytes),
                peak > device.memory_bytes ? "  OOM" : "");
  }
  bool any_link = false;
  for (DeviceId a = 0; a < cluster.num_devices(); ++a) {
    for (DeviceId b = 0; b < cluster.num_devices(); ++b) {
      const int64_t bytes = r.link_bytes[static_cast<size_t>(a * cluster.num_devices() + b)];
      if (bytes == 0) continue;
      if (!any_link) std::printf("\n%-24s %s\n", "link", "bytes moved");
      any_link = true;
      std::printf("%-24s %s\n", (cluster.device(a).name + " -> " + cluster.device(b).name).c_str(),
                  HumanBytes(static_cast<double>(bytes)).c_str());
    }
  }
  if (!any_link) std::printf("\nno transfers between devices\n");
}

Status Simulate(const Args& args) {
  const std::string model = args.positional()[0];
  GO_ASSIGN_OR_RETURN(const LoadOptions load, ModelLoadOptions(args));
  GO_ASSIGN_OR_RETURN(Graph graph, LoadModel(model, load));
  GO_ASSIGN_OR_RETURN(const Cluster cluster,
                      LoadClusterAndProfile(args.Get("cluster", kSimulateCluster), args.Get("profile"), &graph));
  GO_ASSIGN_OR_RETURN(const Plan plan, PlanToSimulate(args, graph, cluster));
  auto sim = Simulator::Create(graph, cluster);
  if (!sim.ok()) return sim.status().WithContext(model);
  SimOptions options;
  options.record_timeline = args.Has("trace");
  GO_ASSIGN_OR_RETURN(const SimResult r, sim->Simulate(plan, options));

  std::printf("graph        %s: %d ops, %lld edges, %s of parameters\n", model.c_str(), graph.num_ops(),
              static_cast<long long>(graph.num_edges()),
              HumanBytes(static_cast<double>(graph.TotalParamBytes())).c_str());
  std::printf("cluster      %s\n", cluster.Summary().c_str());
  std::printf("plan         %s\n", DescribePlan(graph, cluster, plan, args.Get("plan")).c_str());
  std::printf("step time    %s\n", HumanTime(r.step_time_us).c_str());
  const LowerBound& lb = sim->lower_bound();
  std::printf("lower bound  %s (critical path %s, work %s, interval %s); step time = %.2f x bound\n",
              HumanTime(r.lower_bound_us).c_str(), HumanTime(lb.critical_path_us).c_str(),
              HumanTime(lb.work_us).c_str(), HumanTime(lb.interval_us).c_str(),
              r.lower_bound_us > 0 ? r.step_time_us / r.lower_bound_us : 1.0);
  if (lb.no_plan_fits) {
    std::printf("             no plan fits in memory (parameters and optimizer state alone)\n");
  } else {
    std::printf("             plans that fit in memory: %s (memory cut %s)\n", HumanTime(lb.fitting_value_us()).c_str(),
                HumanTime(lb.memory_cut_us).c_str());
  }
  std::printf("memory       %s\n", r.OomVerdict(cluster).c_str());
  std::printf("kernels      %lld, transfers %lld\n\n", static_cast<long long>(r.num_kernels),
              static_cast<long long>(r.num_transfers));
  PrintDevicesAndLinks(cluster, r);

  if (options.record_timeline) {
    const std::string path = args.Get("trace");
    GO_RETURN_IF_ERROR(WriteChromeTrace(graph, cluster, r, path));
    std::printf("\ntrace        %s (open in Perfetto or chrome://tracing)\n", path.c_str());
  }
  return Status::Ok();
}

}  // namespace

Command SimulateCommand() {
  Command c;
  c.name = "simulate";
  c.positional = "MODEL";
  c.min_positional = c.max_positional = 1;
  c.summary = "simulate one training step of a plan: step time, bound, utilisation, memory, links";
  c.flags = SimulateFlags;
  c.outputs = {"trace"};
  c.notes = "MODEL is a built-in spec (gnmt:layers=4), an .onnx, .json or PipeDream .txt file.";
  c.run = Simulate;
  return c;
}

}  // namespace graphopt
