// Each op's time inside an executed one-device step, with the other devices idle and
// with every other device running the same step at once (exec/busy_profile.h): how
// much a busy machine slows each kind of op, against what the two probes' contention
// (exec/concurrency.h, sampled before and after) and the roofline's memory share
// predict for it.
//
//   OMP_NUM_THREADS=1 build/bench/busy_step_bench [--model SPEC] [--steps 12]
//
// Prints the op-time sums and, per op kind, the share of the idle time, the busy/idle
// ratio, the probes' prediction and the slowdown the simulator would take
// (KindSlowdowns: "-" for a kind left to the probes).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli/args.h"
#include "core/strings.h"
#include "exec/busy_profile.h"
#include "exec/concurrency.h"
#include "exec/local_cluster.h"
#include "exec/profiler.h"
#include "graph/op_kind.h"
#include "models/load.h"
#include "sim/cost_model.h"

namespace {

using namespace graphopt;

std::vector<FlagSpec> Flags() {
  return {{"model", true, "the model (default the fidelity set's WaveNet)"},
          {"steps", true, "measured rounds of one idle and one busy step, after one warm-up round (default 12)"},
          {"help", false, "this help"}};
}

int Run(const Args& args) {
  const std::string model =
      args.Get("model", "wavenet:stacks=1,layers=6,batch=4,length=1024,channels=32,skip=64,quantization=64");
  const auto steps_flag = args.GetIntInRange("steps", 12, 1, 1000);
  if (!steps_flag.ok()) return CommandError("busy_step_bench", steps_flag.status().message());
  auto graph = LoadModel(model);
  if (!graph.ok()) return CommandError("busy_step_bench", graph.status().message());
  auto cluster = LocalCluster("local");
  if (!cluster.ok()) return CommandError("busy_step_bench", cluster.status().message());
  auto sets = LocalCoreSets("local");
  if (!sets.ok()) return CommandError("busy_step_bench", sets.status().message());
  if (sets->size() < 2) return CommandError("busy_step_bench", "needs two devices or more");
  auto before = MeasureContention(*sets, 3);
  if (!before.ok()) return CommandError("busy_step_bench", before.status().message());
  ProfileOptions options;
  options.warmup = 1;
  options.progress = [](int done, int all) { std::fprintf(stderr, "\rround %d/%d", done, all); };
  auto profiles = ProfileInStepBusy(*graph, *cluster, *sets, static_cast<int>(*steps_flag), options);
  std::fprintf(stderr, "\n");
  if (!profiles.ok()) return CommandError("busy_step_bench", profiles.status().message());
  auto after = MeasureContention(*sets, 3);
  if (!after.ok()) return CommandError("busy_step_bench", after.status().message());
  const Profile* p_idle = &profiles->idle;
  const Profile* p_busy = &profiles->busy;
  const Contention probes = MedianContention({*before, *after});
  const double compute = probes.compute, memory = probes.memory;
  std::printf("model %s: %d ops\n", model.c_str(), graph->num_ops());
  std::printf("probes (before and after): compute %.2f, memory %.2f\n", compute, memory);
  // Per op kind: idle time, busy time, and the roofline prediction of the busy time.
  struct Sum {
    double idle = 0, busy = 0, predicted = 0;
    int ops = 0;
  };
  std::map<std::string, Sum> kinds;
  Sum all;
  const CostModel roofline;
  const Device& device = cluster->device(0);
  for (OpId o = 0; o < graph->num_ops(); ++o) {
    const double ti = p_idle->op_time_us[static_cast<size_t>(o)];
    const double tb = p_busy->op_time_us[static_cast<size_t>(o)];
    if (ti < 0 || tb < 0) continue;
    const Op& op = graph->op(o);
    const double mem = static_cast<double>(op.cost.bytes_read + op.cost.bytes_written) / device.memory_bandwidth * 1e6;
    const double comp = roofline.ComputeTimeUs(op, device);
    const double m = mem > 0 ? mem / (mem + comp) : 0;
    const double predicted = ti * (1 + m * (memory - 1) + (1 - m) * (compute - 1));
    for (Sum* s : {&kinds[std::string(OpKindName(op.kind))], &all}) {
      s->idle += ti;
      s->busy += tb;
      s->predicted += predicted;
      ++s->ops;
    }
  }
  std::printf("op times: idle %.2f ms, busy %.2f ms (x%.3f), predicted x%.3f\n", all.idle / 1e3, all.busy / 1e3,
              all.busy / all.idle, all.predicted / all.idle);
  std::vector<std::pair<std::string, Sum>> sorted(kinds.begin(), kinds.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) { return x.second.idle > y.second.idle; });
  std::printf("%-22s %5s %8s %9s %9s %9s\n", "kind", "ops", "share", "busy/idle", "predicted", "measured");
  for (const auto& [name, s] : sorted) {
    const auto kind = profiles->kinds.find(*OpKindFromName(name));
    std::printf("%-22s %5d %7.1f%% %9.3f %9.3f %9s\n", name.c_str(), s.ops, 100 * s.idle / all.idle, s.busy / s.idle,
                s.predicted / s.idle, kind == profiles->kinds.end() ? "-" : StrFormat("%.3f", kind->second).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  auto args = graphopt::Args::Parse("", argc, argv, 1, Flags(), "busy_step_bench");
  if (!args.ok()) return graphopt::CommandError("busy_step_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: busy_step_bench [flags]\n%s", graphopt::FlagsHelp(Flags()).c_str());
    return 0;
  }
  return Run(*args);
}
