// Local-search moves scored per second (rl/local_search.h) on rows of the placement
// suite: from the expert's placement with greedy fusion and critical-path priorities
// (after --warmup untimed evaluations), Polish runs a fixed number of evaluations,
// once with hopeless candidates simulated to their end and once with their
// simulations stopped early (LocalSearchConfig::stop_hopeless), ROUNDS times in turn;
// one line per row with the median plans per second of each and whether both kept
// the same plan (they must).
//
//   local_search_bench [--rows gnmt-4,gnmt-8] [--evaluations 400] [--warmup 0] [--rounds 3] [--threads 2]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "cli/args.h"
#include "core/median.h"
#include "core/strings.h"
#include "eval/suite.h"
#include "models/load.h"
#include "rl/local_search.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

std::vector<FlagSpec> Flags() {
  return {{"rows", true, "suite rows, comma-separated (default gnmt-4,gnmt-8)"},
          {"evaluations", true, "plans each Polish simulates (default 400)"},
          {"warmup", true, "plans the search simulates first, untimed, to start from a later stage (default 0)"},
          {"rounds", true, "runs of each setting, in turn (default 3)"},
          {"threads", true, "threads (default: every core)"},
          {"help", false, "this help"}};
}

int Main(int argc, char** argv) {
  auto args = Args::Parse("", argc, argv, 1, Flags(), "local_search_bench");
  if (!args.ok()) return CommandError("local_search_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: local_search_bench [flags]\n%s", FlagsHelp(Flags()).c_str());
    return 0;
  }
  auto evaluations = args->GetIntInRange("evaluations", 400, 1, 1000000);
  auto warmup = args->GetIntInRange("warmup", 0, 0, 10000000);
  auto rounds = args->GetIntInRange("rounds", 3, 1, 100);
  auto threads = ThreadsFlag(*args, 0);
  for (const Status& s : {evaluations.status(), warmup.status(), rounds.status(), threads.status()}) {
    if (!s.ok()) return CommandError("local_search_bench", s.message());
  }
  auto rows = SelectRows(PlacementSuiteRows(), args->Get("rows", "gnmt-4,gnmt-8"));
  if (!rows.ok()) return CommandError("local_search_bench", rows.status().message());
  std::printf("| row | plans | kept | full simulations, plans/s | hopeless stopped, plans/s | ratio | same plan |\n"
              "|---|---:|---:|---:|---:|---:|---|\n");
  std::fflush(stdout);
  for (const SuiteRow& row : *rows) {
    auto graph = LoadModel(row.model);
    auto cluster = LoadCluster(row.cluster);
    if (!graph.ok()) return CommandError("local_search_bench", row.name + ": " + graph.status().message());
    if (!cluster.ok()) return CommandError("local_search_bench", row.name + ": " + cluster.status().message());
    auto sim = Simulator::Create(*graph, *cluster);
    if (!sim.ok()) return CommandError("local_search_bench", row.name + ": " + sim.status().message());
    auto start = ExpertPlan(*graph, *cluster, sim->cost_model());
    if (!start.ok()) return CommandError("local_search_bench", row.name + ": " + start.status().message());
    ApplyGreedyFusion(*graph, &*start);
    SetCriticalPathPriorities(*graph, *cluster, sim->cost_model(), &*start);
    BatchSimulator batch(*sim, *threads);
    std::vector<double> rate[2];
    Plan kept[2];
    int64_t evaluated = 0, accepted = 0;
    for (int round = 0; round < *rounds; ++round) {
      for (int stop = 0; stop < 2; ++stop) {
        LocalSearchConfig config;
        config.stop_hopeless = stop == 1;
        LocalSearch search(*sim, &batch, config);
        Plan plan = *start;
        PlanScore score;
        Rng rng(0);
        if (*warmup > 0) search.Polish(&plan, &score, rng, *warmup);
        const auto t0 = std::chrono::steady_clock::now();
        const LocalSearchStats stats = search.Polish(&plan, &score, rng, *evaluations);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        rate[stop].push_back(static_cast<double>(stats.evaluations) / s);
        kept[stop] = std::move(plan);
        evaluated = stats.evaluations;
        accepted = stats.accepted;
      }
    }
    const bool same = kept[0].device == kept[1].device && kept[0].priority == kept[1].priority &&
                      kept[0].fuse_with_producer == kept[1].fuse_with_producer;
    const double full = Median(rate[0]), stopped = Median(rate[1]);
    std::printf("| %s | %lld | %lld | %.1f | %.1f | %.2fx | %s |\n", row.name.c_str(), static_cast<long long>(evaluated),
                static_cast<long long>(accepted), full, stopped, stopped / full, same ? "yes" : "NO");
    std::fflush(stdout);
    if (!same) return CommandError("local_search_bench", row.name + ": the two settings kept different plans");
  }
  return 0;
}

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) { return graphopt::Main(argc, argv); }
