// Can the policy's decision units (policy/units.h) express the expert's plan? For
// each suite row (on its own cluster, or on --cluster) and each kind of unit (the
// plain METIS parts and the layer units), the units of the policy input at
// --units-per-device, how many of them the expert's plan splits over devices, and
// the expert's step time against that of its projection on the units (every unit on
// the device that runs most of its ops' time in the expert's plan; fusion off in
// both, as the expert has it): the best copy of the expert the policy can sample.
//
//   units_bench [--rows rnnlm-4,gnmt-4] [--cluster 1xV100+2xP100] [--units-per-device 4]
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "cli/args.h"
#include "core/strings.h"
#include "eval/suite.h"
#include "models/load.h"
#include "policy/features.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

std::vector<FlagSpec> Flags() {
  return {{"rows", true, "suite rows, comma-separated (default: all 13)"},
          {"cluster", true, "cluster of every row (default: each row's own)"},
          {"units-per-device", true, "decision units per accelerator (default 4, as the policy's)"},
          {"help", false, "this help"}};
}

std::string Ms(const StatusOr<SimResult>& r) {
  if (!r.ok()) return "invalid";
  return StrFormat(r->oom ? "%.1f (OOM)" : "%.1f", r->step_time_us / 1e3);
}

int Main(int argc, char** argv) {
  auto args = Args::Parse("", argc, argv, 1, Flags(), "units_bench");
  if (!args.ok()) return CommandError("units_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: units_bench [flags]\n%s", FlagsHelp(Flags()).c_str());
    return 0;
  }
  auto per_device = args->GetIntInRange("units-per-device", 4, 1, 1 << 16);
  if (!per_device.ok()) return CommandError("units_bench", per_device.status().message());
  auto rows = SelectRows(PlacementSuiteRows(), args->Get("rows"));
  if (!rows.ok()) return CommandError("units_bench", rows.status().message());
  std::printf("| row | cluster | kind | units | split by the expert | expert ms | expert on the units ms |\n"
              "|---|---|---|---:|---:|---:|---:|\n");
  for (const SuiteRow& row : *rows) {
    const std::string cluster_name = args->Get("cluster", row.cluster);
    auto graph = LoadModel(row.model);
    auto cluster = LoadCluster(cluster_name);
    if (!graph.ok()) return CommandError("units_bench", row.name + ": " + graph.status().message());
    if (!cluster.ok()) return CommandError("units_bench", row.name + ": " + cluster.status().message());
    auto sim = Simulator::Create(*graph, *cluster);
    if (!sim.ok()) return CommandError("units_bench", row.name + ": " + sim.status().message());
    auto expert = ExpertPlan(*graph, *cluster, sim->cost_model());
    if (!expert.ok()) return CommandError("units_bench", row.name + ": " + expert.status().message());
    for (const bool layered : {false, true}) {
      auto input = BuildPolicyInput(*graph, *cluster, sim->cost_model(),
                                    UnitsPerDeviceOptions(*cluster, static_cast<int>(*per_device), layered));
      if (!input.ok()) return CommandError("units_bench", row.name + ": " + input.status().message());
      // Time of each unit's ops per device of the expert's plan (an instant op counts a little).
      std::vector<std::map<DeviceId, double>> time(static_cast<size_t>(input->num_units));
      for (OpId o = 0; o < graph->num_ops(); ++o) {
        const DeviceId d = expert->device[static_cast<size_t>(o)];
        time[static_cast<size_t>(input->unit_of_op(o))][d] += sim->OpTimeUs(o, d) + 1e-3;
      }
      int split = 0;
      std::vector<DeviceId> unit_device(time.size(), kNoId);
      for (size_t u = 0; u < time.size(); ++u) {
        split += time[u].size() > 1;
        double most = -1;
        for (const auto& [d, t] : time[u]) {
          if (t > most) {
            most = t;
            unit_device[u] = d;
          }
        }
      }
      Plan projection = *expert;
      for (OpId o = 0; o < graph->num_ops(); ++o) {
        projection.device[static_cast<size_t>(o)] = unit_device[static_cast<size_t>(input->unit_of_op(o))];
      }
      std::printf("| %s | %s | %s | %d | %d | %s | %s |\n", row.name.c_str(), cluster_name.c_str(),
                  layered ? "layer" : "plain", input->num_units, split, Ms(sim->Simulate(*expert)).c_str(),
                  Ms(sim->Simulate(projection)).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) { return graphopt::Main(argc, argv); }
