// `graphopt execute MODEL [--plan P] [--cluster local[:N]] [--steps N] [--trace T]`:
// runs the training step of a model under a plan for real on this machine's cores
// (exec/executor.h): warm-up steps, then N measured steps; prints the median step time
// and its spread, per-device busy time and peak memory, and the bytes copied per link.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "core/strings.h"
#include "models/load.h"
#include "sim/plan.h"
#ifdef GRAPHOPT_HAVE_EXEC
#include "cli/interrupt.h"
#include "exec/executor.h"
#include "sim/trace.h"
#endif

namespace graphopt {
namespace {

// What `execute` measures: its flags bound to the fields (cli/flag_table.h).
struct ExecuteRun {
  std::string cluster = "local";
  int64_t steps = 10;
  int64_t warmup = 2;
  uint64_t seed = 0;
};
const OptionTable<ExecuteRun> kExecuteFlags{
    {"cluster", &ExecuteRun::cluster, "local (one device per core) or local:N (N devices of cores/N cores each)"},
    {"steps", &ExecuteRun::steps, "measured steps", InRange(1, 10000)},
    {"warmup", &ExecuteRun::warmup, "steps run before measuring", InRange(0, 10000)},
    {"seed", &ExecuteRun::seed, "seed of the input data and initial parameters", InRange(0, 0x1p62)},
};

std::vector<FlagSpec> ExecuteFlags() {
  return FlagsAround(
      {
          {"plan", true, "plan .json file (default: every op on cpu:0, ready order, no fusion)", "P"},
      },
      kExecuteFlags,
      {
          {"trace", true, "write the last step's timeline in Chrome's Trace Event format (as simulate --trace)", "T"},
          DimFlag(),
      });
}

#ifdef GRAPHOPT_HAVE_EXEC
// The median step of the measured ones, with the fastest and slowest step times.
struct MeasuredSteps {
  std::vector<SimResult> steps;
  const SimResult* median = nullptr;
  double lo = 0, hi = 0;
};

StatusOr<MeasuredSteps> MeasureSteps(Executor* executor, const ExecuteRun& run) {
  ScopedInterrupt interrupt;
  MeasuredSteps m;
  for (int64_t s = 0; s < run.warmup + run.steps; ++s) {
    if (interrupt.flag()->load()) return Cancelled("interrupted");
    GO_ASSIGN_OR_RETURN(SimResult step, executor->RunStep());
    if (s >= run.warmup) m.steps.push_back(std::move(step));
    std::fprintf(stderr, "\rstep %lld/%lld", static_cast<long long>(s + 1), static_cast<long long>(run.warmup + run.steps));
  }
  std::fprintf(stderr, "\n");
  std::vector<size_t> by_time(m.steps.size());
  for (size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::sort(by_time.begin(), by_time.end(),
            [&](size_t a, size_t b) { return m.steps[a].step_time_us < m.steps[b].step_time_us; });
  m.median = &m.steps[by_time[by_time.size() / 2]];
  m.lo = m.steps[by_time.front()].step_time_us;
  m.hi = m.steps[by_time.back()].step_time_us;
  return m;
}

void PrintMeasured(const Cluster& cluster, const MeasuredSteps& m, int64_t warmup) {
  const SimResult& median = *m.median;
  std::printf("steps        %zu measured after %lld warm-up\n", m.steps.size(), static_cast<long long>(warmup));
  std::printf("step time    %s median (min %s, max %s, spread %.1f%%)\n", HumanTime(median.step_time_us).c_str(),
              HumanTime(m.lo).c_str(), HumanTime(m.hi).c_str(), 100.0 * (m.hi - m.lo) / median.step_time_us);
  std::printf("tasks        %lld, copies %lld\n\n", static_cast<long long>(median.num_kernels),
              static_cast<long long>(median.num_transfers));
  std::printf("%-10s %-20s %7s %12s   %s\n", "device", "cores", "util", "busy", "peak memory / budget");
  for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
    const Device& device = cluster.device(d);
    std::printf("%-10s %-20s %6.1f%% %12s   %s / %s\n", device.name.c_str(), device.model.c_str(),
                100 * median.Utilization(d), HumanTime(median.device_busy_us[static_cast<size_t>(d)]).c_str(),
                HumanBytes(static_cast<double>(median.device_peak_memory[static_cast<size_t>(d)])).c_str(),
                HumanBytes(static_cast<double>(device.memory_bytes)).c_str());
  }
  bool any_link = false;
  const int nd = cluster.num_devices();
  for (DeviceId a = 0; a < nd; ++a) {
    for (DeviceId b = 0; b < nd; ++b) {
      const int64_t bytes = median.link_bytes[static_cast<size_t>(a * nd + b)];
      if (bytes == 0) continue;
      if (!any_link) std::printf("\n%-24s %s\n", "link", "bytes copied");
      any_link = true;
      std::printf("%-24s %s\n", (cluster.device(a).name + " -> " + cluster.device(b).name).c_str(),
                  HumanBytes(static_cast<double>(bytes)).c_str());
    }
  }
  if (!any_link) std::printf("\nno copies between devices\n");
}
#endif

Status Execute(const Args& args) {
#ifndef GRAPHOPT_HAVE_EXEC
  (void)args;
  return FailedPrecondition("this build has no executor (LibTorch was not found)");
#else
  ExecuteRun run;
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kExecuteFlags, &run));
  GO_ASSIGN_OR_RETURN(const auto core_sets, LocalCoresWithThreads(run.cluster, args.argv()));
  const std::string model = args.positional()[0];
  GO_ASSIGN_OR_RETURN(const LoadOptions load, ModelLoadOptions(args));
  GO_ASSIGN_OR_RETURN(const Graph graph, LoadModel(model, load));
  GO_ASSIGN_OR_RETURN(const Cluster cluster, LoadClusterFlag(run.cluster));
  Plan plan = DefaultPlan(graph, 0);
  const std::string plan_path = args.Get("plan");
  if (!plan_path.empty()) {
    GO_ASSIGN_OR_RETURN(plan, ReadPlanJson(plan_path, graph));
  }
  ExecOptions options;
  options.seed = run.seed;
  options.record_timeline = args.Has("trace");
  std::printf("graph        %s: %d ops, %lld edges, %s of parameters\n", model.c_str(), graph.num_ops(),
              static_cast<long long>(graph.num_edges()),
              HumanBytes(static_cast<double>(graph.TotalParamBytes())).c_str());
  std::printf("cluster      %s\n", cluster.Summary().c_str());
  std::fflush(stdout);
  auto executor = Executor::Create(graph, cluster, core_sets, plan, options);
  if (!executor.ok()) return executor.status().WithContext(plan_path.empty() ? model : plan_path);
  GO_ASSIGN_OR_RETURN(const MeasuredSteps measured, MeasureSteps(executor->get(), run));
  PrintMeasured(cluster, measured, run.warmup);
  if (options.record_timeline) {
    const std::string path = args.Get("trace");
    GO_RETURN_IF_ERROR(WriteChromeTrace(graph, cluster, measured.steps.back(), path));
    std::printf("\ntrace        %s (the last step; open in Perfetto)\n", path.c_str());
  }
  return Status::Ok();
#endif
}

}  // namespace

Command ExecuteCommand() {
  Command c;
  c.name = "execute";
  c.positional = "MODEL";
  c.min_positional = c.max_positional = 1;
  c.summary = "run the step for real on this machine's cores (each device a group of cores) and measure it";
  c.flags = ExecuteFlags;
  c.outputs = {"trace"};
  c.notes = "Runs training steps of MODEL under the plan for real, each device a group of this machine's cores,\n"
            "each op an ATen kernel: warm-up steps, then the measured ones; prints the median step.";
  c.run = Execute;
  return c;
}

}  // namespace graphopt
