// How the engine's work grows with the graph: one measurement of one model per run,
// in a process of its own so that its peak memory is that measurement's, printed as
// one JSON line (bench/scaling.sh runs the sizes and bench/scaling_chart.py fits them).
//
//   scaling_bench --model transformer_xl:layers=11 --measure simulate|fusion|local-search|zero-shot|ppo-step
//                 [--cluster 8xV100] [--repeats 5] [--threads 0] [--policy policies/default.pt]
//
//   simulate      one simulation of the expert's placement with greedy fusion and
//                 critical-path priorities: the median of --repeats
//   fusion        TensorFlow's default fusion of that placement (baselines/fusion.h,
//                 built once), as every plan of a search that leaves fusion at its
//                 default gets it: the median of --repeats
//   local-search  one move of the local search from that plan (rl/local_search.h):
//                 seconds per plan scored over 8 x --repeats evaluations
//   zero-shot     the zero-shot pass of the pre-trained policy --policy (rl/zero_shot.h),
//                 reading the policy file included
//   ppo-step      a PPO step of GO-one (the go-one preset, a new policy): the median
//                 time between --repeats + 1 steps' ends after the first step
//
// Each line also gives the model's ops and edges, the set-up's time (graph, simulator)
// and the process's resident memory before the measurement and at its peak.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "baselines/baseline.h"
#include "baselines/fusion.h"
#include "cli/args.h"
#include "core/median.h"
#include "core/strings.h"
#include "core/timing.h"
#include "models/load.h"
#include "rl/learned_search.h"
#include "rl/local_search.h"
#include "rl/zero_shot.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

using Clock = std::chrono::steady_clock;


// The process's resident memory now (VmRSS) and at its peak (ru_maxrss), in MB.
double ResidentMb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}
double PeakResidentMb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

std::vector<FlagSpec> Flags() {
  return {{"model", true, "the model (a built-in name with parameters, or a file)"},
          {"cluster", true, "cluster (default 8xV100)"},
          {"measure", true, "simulate, fusion, local-search, zero-shot or ppo-step"},
          {"repeats", true, "repetitions of the measurement (default 5)"},
          {"threads", true, "threads (default: every core)"},
          {"policy", true, "the pre-trained policy of zero-shot (default policies/default.pt)"},
          {"help", false, "this help"}};
}

// The measurement's seconds and how many units of work they are the median or mean of.
struct Measured {
  double seconds = 0;
  int64_t count = 0;
};

StatusOr<Measured> Measure(const std::string& what, const Simulator& sim, const Plan& start, int repeats,
                           int threads, const std::string& policy) {
  Measured m;
  if (what == "simulate") {
    SimScratch scratch;
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
      const Clock::time_point t = Clock::now();
      GO_RETURN_IF_ERROR(sim.Simulate(start, SimOptions(), &scratch).status());
      times.push_back(SecondsSince(t));
    }
    m.seconds = Median(times);
    m.count = repeats;
  } else if (what == "fusion") {
    const GreedyFusion fusion = GreedyFusion::Default(sim.graph());
    std::vector<double> times;
    for (int i = 0; i < repeats; ++i) {
      Plan plan = start;
      const Clock::time_point t = Clock::now();
      fusion.Apply(&plan);
      times.push_back(SecondsSince(t));
    }
    m.seconds = Median(times);
    m.count = repeats;
  } else if (what == "local-search") {
    BatchSimulator batch(sim, threads);
    LocalSearch search(sim, &batch, LocalSearchConfig());
    Plan plan = start;
    PlanScore score;
    Rng rng(0);
    const Clock::time_point t = Clock::now();
    const LocalSearchStats stats = search.Polish(&plan, &score, rng, 8 * repeats);
    if (stats.evaluations == 0) return FailedPrecondition("the local search scored no plan");
    m.seconds = SecondsSince(t) / static_cast<double>(stats.evaluations);
    m.count = stats.evaluations;
  } else if (what == "zero-shot") {
    ZeroShotOptions options;
    options.threads = threads;
    GO_ASSIGN_OR_RETURN(const ZeroShotResult z, ZeroShotPlan(sim, policy, options));
    m.seconds = z.seconds;
    m.count = z.num_plans;
  } else if (what == "ppo-step") {
    LearnedSearchConfig base;
    base.pretrained.file = "";
    base.budget.threads = threads;
    base.budget.time_limit_s = 0;
    base.budget.max_steps = repeats + 1;
    GO_ASSIGN_OR_RETURN(const LearnedSearchConfig config, ParseLearnedSearchOptions("preset=go-one", base));
    GO_ASSIGN_OR_RETURN(std::unique_ptr<LearnedSearch> search, LearnedSearch::Create(sim, config));
    std::vector<double> ends;
    GO_RETURN_IF_ERROR(
        search->Run(nullptr, [&](const LearnedSearchProgress& p) { ends.push_back(p.seconds); }).status());
    std::vector<double> steps;
    for (size_t i = 1; i < ends.size(); ++i) steps.push_back(ends[i] - ends[i - 1]);
    if (steps.empty()) return FailedPrecondition("the search made fewer than two steps");
    m.seconds = Median(steps);
    m.count = static_cast<int64_t>(steps.size());
  } else {
    return InvalidArgument("--measure must be simulate, fusion, local-search, zero-shot or ppo-step, not \"" + what +
                           "\"");
  }
  return m;
}

int Main(int argc, char** argv) {
  auto args = Args::Parse("", argc, argv, 1, Flags(), "scaling_bench");
  if (!args.ok()) return CommandError("scaling_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: scaling_bench --model M --measure WHAT [flags]\n%s", FlagsHelp(Flags()).c_str());
    return 0;
  }
  if (!args->Has("model") || !args->Has("measure")) {
    return CommandError("scaling_bench", "--model and --measure are required");
  }
  auto repeats = args->GetIntInRange("repeats", 5, 1, 1000);
  auto threads = ThreadsFlag(*args, 0);
  for (const Status& s : {repeats.status(), threads.status()}) {
    if (!s.ok()) return CommandError("scaling_bench", s.message());
  }
  const std::string model = args->Get("model"), what = args->Get("measure");
  const Clock::time_point setup = Clock::now();
  auto graph = LoadModel(model);
  if (!graph.ok()) return CommandError("scaling_bench", model + ": " + graph.status().message());
  auto cluster = LoadCluster(args->Get("cluster", "8xV100"));
  if (!cluster.ok()) return CommandError("scaling_bench", cluster.status().message());
  auto sim = Simulator::Create(*graph, *cluster);
  if (!sim.ok()) return CommandError("scaling_bench", model + ": " + sim.status().message());
  const double setup_seconds = SecondsSince(setup);
  auto start = ExpertPlan(*graph, *cluster, sim->cost_model());
  if (!start.ok()) return CommandError("scaling_bench", model + ": " + start.status().message());
  ApplyGreedyFusion(*graph, &*start);
  SetCriticalPathPriorities(*graph, *cluster, sim->cost_model(), &*start);
  const double before_mb = ResidentMb();
  auto measured = Measure(what, *sim, *start, static_cast<int>(*repeats), *threads,
                          args->Get("policy", "policies/default.pt"));
  if (!measured.ok()) return CommandError("scaling_bench", model + ": " + measured.status().message());
  int64_t edges = 0;
  for (OpId o = 0; o < graph->num_ops(); ++o) edges += static_cast<int64_t>(graph->op(o).inputs.size());
  const nlohmann::json line = {{"model", model},
                               {"cluster", args->Get("cluster", "8xV100")},
                               {"measure", what},
                               {"ops", graph->num_ops()},
                               {"edges", edges},
                               {"seconds", measured->seconds},
                               {"count", measured->count},
                               {"setup_seconds", setup_seconds},
                               {"rss_before_mb", before_mb},
                               {"peak_rss_mb", PeakResidentMb()}};
  std::printf("%s\n", line.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) { return graphopt::Main(argc, argv); }
