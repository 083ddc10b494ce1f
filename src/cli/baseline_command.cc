// `graphopt baseline` (one baseline's plan for a model on a cluster) and
// `graphopt run` (the default job: every baseline side by side on one model and
// cluster, with the lower bound).
#include <chrono>
#include <memory>
#include <optional>
#include <cstdio>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "cli/granularity.h"
#include "core/options.h"
#include "core/strings.h"
#include "models/load.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

constexpr const char* kRunDefaultModel = "gnmt:layers=4";

std::string Seconds(double us) { return StrFormat("%.4f s", us / 1e6); }

std::string MethodList() { return Join(BaselineNames(), ", "); }

struct Scored {
  std::string method;
  bool ok = false;
  std::string error;
  SimResult result;
  double plan_seconds = 0;
  Plan plan;
};

Scored Score(const std::string& method, const Graph& graph, const Cluster& cluster, const Simulator& sim,
             const BaselineOptions& options) {
  Scored s;
  s.method = method;
  const auto start = std::chrono::steady_clock::now();
  auto plan = RunBaseline(method, graph, cluster, sim.cost_model(), options);
  s.plan_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!plan.ok()) {
    s.error = plan.status().message();
    return s;
  }
  auto result = sim.Simulate(*plan);
  if (!result.ok()) {
    s.error = result.status().message();
    return s;
  }
  s.ok = true;
  s.result = std::move(*result);
  s.plan = std::move(*plan);
  return s;
}

// The settings both commands share, bound to their flags.
struct BaselineRun {
  std::string cluster = kDefaultCluster;
  bool fusion = false;
  uint64_t seed = 0;
};
const OptionTable<BaselineRun> kBaselineFlags{
    {"cluster", &BaselineRun::cluster, "cluster preset or cluster .json file"},
    {"fusion", &BaselineRun::fusion, "also apply greedy fusion to the placement"},
    {"seed", &BaselineRun::seed, "seed of the randomized partitioners", InRange(0, 0x1p62)},
};

std::vector<FlagSpec> CommonFlags(std::vector<FlagSpec> own = {}) {
  for (const FlagSpec& f : GranularityFlags()) own.push_back(f);
  own.push_back(DimFlag());
  return FlagsAround({}, kBaselineFlags, own);
}

// What both commands start from: the model, the cluster, a simulator of the model on
// the cluster and the baseline options from the flags. Held on the heap because the
// simulator refers to the graph.
struct Setup {
  Graph graph;
  Cluster cluster;
  std::optional<Simulator> sim;
  BaselineOptions options;
  std::string granularity;  // the header line of --granularity module ("" without)
};

StatusOr<std::unique_ptr<Setup>> Prepare(const Args& args, const std::string& model) {
  auto setup = std::make_unique<Setup>();
  BaselineRun run;
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kBaselineFlags, &run));
  GO_ASSIGN_OR_RETURN(const LoadOptions load, ModelLoadOptions(args));
  GO_ASSIGN_OR_RETURN(setup->graph, LoadModel(model, load));
  GO_ASSIGN_OR_RETURN(setup->cluster, LoadClusterFlag(run.cluster));
  GO_ASSIGN_OR_RETURN(setup->granularity, ApplyGranularityFlags(args, setup->cluster, &setup->graph));
  GO_ASSIGN_OR_RETURN(Simulator sim, Simulator::Create(setup->graph, setup->cluster));
  setup->sim.emplace(std::move(sim));
  setup->options.fusion = run.fusion;
  setup->options.seed = run.seed;
  return setup;
}

std::vector<FlagSpec> BaselineFlags() {
  return CommonFlags({
      {"method", true,
       "baseline: " + MethodList() +
           ", module-balanced, random, m-topo, m-etf, m-sct, their modes (m-etf-fwd, ...: graphopt methods) or "
           "baechi, contiguous-split, contiguous-split-max, milp; plan:FILE, the plan in a plan file (--out's; FILE without "
           "'+'); NAME+fusion+cp adds stages (plan:FILE+fusion+cp scores a plan on the baselines' defaults)",
       "M"},
      {"out", true, "write the plan to this .json file (for graphopt simulate --plan)", "P"},
  });
}

Status OneBaseline(const Args& args) {
  if (!args.Has("method")) return InvalidArgument("--method is required (" + MethodList() + ")");
  GO_ASSIGN_OR_RETURN(const std::unique_ptr<Setup> setup, Prepare(args, args.positional()[0]));
  const Graph& graph = setup->graph;
  const Cluster& cluster = setup->cluster;
  const BaselineOptions& options = setup->options;
  const Scored s = Score(args.Get("method"), graph, cluster, *setup->sim, options);
  if (!s.ok) return InvalidArgument(s.error);
  std::printf("model        %s (%d ops)\n", graph.name().c_str(), graph.num_ops());
  std::printf("cluster      %s\n", cluster.Summary().c_str());
  if (!setup->granularity.empty()) std::printf("%s\n", setup->granularity.c_str());
  std::printf("method       %s%s (planned in %.2f s)\n", s.method.c_str(), options.fusion ? " + greedy fusion" : "", s.plan_seconds);
  std::printf("step time    %s\n", Seconds(s.result.step_time_us).c_str());
  std::printf("lower bound  %s (step time is %.2fx the bound)\n", Seconds(s.result.lower_bound_us).c_str(),
              s.result.step_time_us / s.result.lower_bound_us);
  std::printf("memory       %s\n", s.result.OomVerdict(cluster).c_str());
  for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
    std::printf("  %-8s utilisation %5.1f%%  peak memory %s\n", cluster.device(d).name.c_str(), 100 * s.result.Utilization(d),
                HumanBytes(static_cast<double>(s.result.device_peak_memory[static_cast<size_t>(d)])).c_str());
  }
  if (args.Has("out")) {
    GO_RETURN_IF_ERROR(WritePlanJson(graph, s.plan, args.Get("out")));
    std::printf("plan written to %s\n", args.Get("out").c_str());
  }
  return Status::Ok();
}

Status EveryBaseline(const Args& args) {
  const std::string model = args.positional().empty() ? kRunDefaultModel : args.positional()[0];
  GO_ASSIGN_OR_RETURN(const std::unique_ptr<Setup> setup, Prepare(args, model));
  const Graph& graph = setup->graph;
  const Cluster& cluster = setup->cluster;
  const Simulator& sim = *setup->sim;
  std::printf("model    %s: %d ops, %lld edges\n", model.c_str(), graph.num_ops(), static_cast<long long>(graph.num_edges()));
  std::printf("cluster  %s\n", cluster.Summary().c_str());
  if (!setup->granularity.empty()) std::printf("%s\n", setup->granularity.c_str());
  std::printf("lower bound on the step time of any plan: %s\n\n", Seconds(sim.lower_bound().value_us()).c_str());
  std::printf("%-12s %12s %10s %10s %10s  %s\n", "method", "step time", "vs bound", "vs expert", "plan time", "memory");
  std::vector<Scored> all;
  for (const std::string& method : BaselineNames()) {
    all.push_back(Score(method, graph, cluster, sim, setup->options));
    std::fflush(stdout);
  }
  double expert = 0;
  for (const Scored& s : all) {
    if (s.method == kExpertBaseline && s.ok && !s.result.oom) expert = s.result.step_time_us;
  }
  for (const Scored& s : all) {
    if (!s.ok) {
      std::printf("%-12s %12s %10s %10s %10s  %s\n", s.method.c_str(), "error", "", "", "", s.error.c_str());
      continue;
    }
    const std::string vs_expert = expert > 0 && !s.result.oom ? StrFormat("%.2fx", expert / s.result.step_time_us) : "-";
    std::printf("%-12s %12s %9.2fx %10s %9.2fs  %s\n", s.method.c_str(), Seconds(s.result.step_time_us).c_str(),
                s.result.step_time_us / s.result.lower_bound_us, vs_expert.c_str(), s.plan_seconds,
                s.result.OomVerdict(cluster).c_str());
  }
  std::printf("\n'vs bound' is step time / lower bound (1.00x would be optimal); 'vs expert' is the speedup over the\n"
              "human expert placement (higher is better). These are the heuristic baselines only; the learned\n"
              "placers (GO, ColocRL, HDP) run in 'graphopt optimize' and 'graphopt bench'.\n");
  return Status::Ok();
}

}  // namespace

Command BaselineCommand() {
  Command c;
  c.name = "baseline";
  c.positional = "MODEL";
  c.min_positional = c.max_positional = 1;
  c.summary = "one baseline's plan and its step time";
  c.flags = BaselineFlags;
  c.outputs = {"out"};
  c.run = OneBaseline;
  return c;
}

Command RunBaselinesCommand() {
  Command c;
  c.name = "run";
  c.positional = "[MODEL]";
  c.max_positional = 1;
  c.summary = std::string("every baseline side by side (default: ") + kRunDefaultModel + " on " + kDefaultCluster + ")";
  c.flags = [] { return CommonFlags(); };
  c.notes = std::string("Runs every baseline on MODEL (default ") + kRunDefaultModel + ") and prints them side by side.";
  c.run = EveryBaseline;
  return c;
}

}  // namespace graphopt
