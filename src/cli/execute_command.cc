// `graphopt execute MODEL [--plan P] [--cluster local[:N]] [--steps N] [--trace T]`:
// runs the training step of a model under a plan for real on this machine's cores
// (exec/executor.h): warm-up steps, then N measured steps; prints the median step time
// and its spread, per-device busy time and peak memory, and the bytes copied per link.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/args.h"
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
          {"plan", true, "plan .json file (default: every op on cpu:0, ready order, no fusion)"},
      },
      kExecuteFlags,
      {
          {"trace", true, "write the last step's timeline in Chrome's Trace Event format (as simulate --trace)"},
          DimFlag(),
          {"help", false, "show this help"},
      });
}

std::string Usage() {
  return "usage: graphopt execute MODEL [--plan P] [--cluster local[:N]] [--steps N] [--trace T]\n"
         "  runs one training step of MODEL under the plan for real, each device a group of this\n"
         "  machine's cores, each op an ATen kernel\n" +
         FlagsHelp(ExecuteFlags());
}

int Fail(const std::string& message) { return CommandError("execute", message); }

}  // namespace

int RunExecuteCommand(int argc, char** argv) {
#ifndef GRAPHOPT_HAVE_EXEC
  (void)argc;
  (void)argv;
  return Fail("this build has no executor (LibTorch was not found)");
#else
  const std::vector<FlagSpec> specs = ExecuteFlags();
  auto args = Args::Parse("execute", argc, argv, 2, specs);
  if (!args.ok()) return Fail(args.status().message());
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
  Status outputs = args->CheckOutputs({"trace"});
  if (!outputs.ok()) return Fail(outputs.message());
  if (args->positional().size() != 1) {
    return Fail(StrFormat("expected one MODEL, got %zu arguments\n", args->positional().size()) + Usage());
  }
  ExecuteRun run;
  if (Status flags = ApplyBoundFlags(*args, kExecuteFlags, &run); !flags.ok()) return Fail(flags.message());
  const std::string& cluster_name = run.cluster;
  auto core_sets = LocalCoresWithThreads(cluster_name, argv);
  if (!core_sets.ok()) return Fail(core_sets.status().message());

  const std::string model = args->positional()[0];
  auto load = ModelLoadOptions(*args);
  if (!load.ok()) return Fail(load.status().message());
  auto graph = LoadModel(model, *load);
  if (!graph.ok()) return Fail(graph.status().message());
  auto cluster = LoadClusterFlag(cluster_name);
  if (!cluster.ok()) return Fail(cluster.status().message());
  Plan plan = DefaultPlan(*graph, 0);
  const std::string plan_path = args->Get("plan");
  if (!plan_path.empty()) {
    auto read = ReadPlanJson(plan_path, *graph);
    if (!read.ok()) return Fail(read.status().message());
    plan = std::move(*read);
  }
  ExecOptions options;
  options.seed = run.seed;
  options.record_timeline = args->Has("trace");
  std::printf("graph        %s: %d ops, %lld edges, %s of parameters\n", model.c_str(), graph->num_ops(),
              static_cast<long long>(graph->num_edges()),
              HumanBytes(static_cast<double>(graph->TotalParamBytes())).c_str());
  std::printf("cluster      %s\n", cluster->Summary().c_str());
  std::fflush(stdout);
  auto executor = Executor::Create(*graph, *cluster, *core_sets, plan, options);
  if (!executor.ok()) return Fail((plan_path.empty() ? model : plan_path) + ": " + executor.status().message());

  ScopedInterrupt interrupt;
  std::vector<SimResult> measured;
  for (int64_t s = 0; s < run.warmup + run.steps; ++s) {
    if (interrupt.flag()->load()) return Fail("interrupted");
    auto step = (*executor)->RunStep();
    if (!step.ok()) return Fail(step.status().message());
    if (s >= run.warmup) measured.push_back(std::move(*step));
    std::fprintf(stderr, "\rstep %lld/%lld", static_cast<long long>(s + 1), static_cast<long long>(run.warmup + run.steps));
  }
  std::fprintf(stderr, "\n");
  std::vector<size_t> by_time(measured.size());
  for (size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::sort(by_time.begin(), by_time.end(),
            [&](size_t a, size_t b) { return measured[a].step_time_us < measured[b].step_time_us; });
  const SimResult& median = measured[by_time[by_time.size() / 2]];
  const double lo = measured[by_time.front()].step_time_us, hi = measured[by_time.back()].step_time_us;
  std::printf("steps        %zu measured after %lld warm-up\n", measured.size(), static_cast<long long>(run.warmup));
  std::printf("step time    %s median (min %s, max %s, spread %.1f%%)\n", HumanTime(median.step_time_us).c_str(),
              HumanTime(lo).c_str(), HumanTime(hi).c_str(), 100.0 * (hi - lo) / median.step_time_us);
  std::printf("tasks        %lld, copies %lld\n\n", static_cast<long long>(median.num_kernels),
              static_cast<long long>(median.num_transfers));
  std::printf("%-10s %-20s %7s %12s   %s\n", "device", "cores", "util", "busy", "peak memory / budget");
  for (DeviceId d = 0; d < cluster->num_devices(); ++d) {
    const Device& device = cluster->device(d);
    std::printf("%-10s %-20s %6.1f%% %12s   %s / %s\n", device.name.c_str(), device.model.c_str(),
                100 * median.Utilization(d), HumanTime(median.device_busy_us[static_cast<size_t>(d)]).c_str(),
                HumanBytes(static_cast<double>(median.device_peak_memory[static_cast<size_t>(d)])).c_str(),
                HumanBytes(static_cast<double>(device.memory_bytes)).c_str());
  }
  bool any_link = false;
  const int nd = cluster->num_devices();
  for (DeviceId a = 0; a < nd; ++a) {
    for (DeviceId b = 0; b < nd; ++b) {
      const int64_t bytes = median.link_bytes[static_cast<size_t>(a * nd + b)];
      if (bytes == 0) continue;
      if (!any_link) std::printf("\n%-24s %s\n", "link", "bytes copied");
      any_link = true;
      std::printf("%-24s %s\n", (cluster->device(a).name + " -> " + cluster->device(b).name).c_str(),
                  HumanBytes(static_cast<double>(bytes)).c_str());
    }
  }
  if (!any_link) std::printf("\nno copies between devices\n");
  if (options.record_timeline) {
    const std::string path = args->Get("trace");
    Status written = WriteChromeTrace(*graph, *cluster, measured.back(), path);
    if (!written.ok()) return Fail(written.message());
    std::printf("\ntrace        %s (the last step; open in Perfetto)\n", path.c_str());
  }
  return 0;
#endif
}

}  // namespace graphopt
