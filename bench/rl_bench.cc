// The GO search (rl/learned_search.h) on rows of the placement suite under several
// configurations, for the ablations (docs/experiments/history-bench.md): one line per
// (row, config) with the step time found, its speedup over the expert and over the
// best baseline, the time to the final plan, the best plan PPO sampled on its own and
// the improvements each ingredient made.
//
//   rl_bench [--rows gnmt-2,wavenet-2] [--time-limit 60] [--seed 0] [--threads 2]
//            [--configs "full:;ppo-only:baselines=0,warm_start=0,polish=0;..."]
// A config is NAME:OPTIONS with OPTIONS as graphopt optimize --policy takes them.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "cli/args.h"
#include "core/strings.h"
#include "eval/suite.h"
#include "models/load.h"
#include "rl/learned_search.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

std::vector<FlagSpec> Flags() {
  return {{"rows", true, "suite rows, comma-separated (default: all 13)"},
          {"configs", true, "NAME:OPTIONS;... with OPTIONS as graphopt optimize --policy takes them"},
          {"time-limit", true, "seconds per row and configuration (default 60)"},
          {"seed", true, "seed (default 0)"},
          {"threads", true, "threads (default: every core)"},
          {"verbose", false, "a line per PPO step on stderr"},
          {"help", false, "this help"}};
}

int Main(int argc, char** argv) {
  auto args = Args::Parse("", argc, argv, 1, Flags(), "rl_bench");
  if (!args.ok()) return CommandError("rl_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: rl_bench [flags]\n%s", FlagsHelp(Flags()).c_str());
    return 0;
  }
  const std::string rows_arg = args->Get("rows");
  const std::string configs_arg =
      args->Get("configs", "full:;no-polish:polish=0;polish-only:train=0;ppo-only:baselines=0,warm_start=0,polish=0");
  const bool verbose = args->Has("verbose");
  auto time_limit = args->GetDouble("time-limit", 60);
  auto seed = args->GetIntInRange("seed", 0, 0, std::numeric_limits<int64_t>::max());
  auto threads = ThreadsFlag(*args, 0);
  for (const Status& s : {time_limit.status(), seed.status(), threads.status()}) {
    if (!s.ok()) return CommandError("rl_bench", s.message());
  }
  if (!(*time_limit > 0)) return CommandError("rl_bench", "--time-limit must be above 0");
  auto rows = SelectRows(PlacementSuiteRows(), rows_arg);
  if (!rows.ok()) return CommandError("rl_bench", rows.status().message());
  std::vector<std::pair<std::string, std::string>> configs;
  for (const std::string& c : Split(configs_arg, ';')) {
    if (Trim(c).empty()) continue;
    const size_t colon = c.find(':');
    configs.emplace_back(Trim(c.substr(0, colon)), colon == std::string::npos ? "" : c.substr(colon + 1));
  }
  std::printf("| row | config | step ms | vs expert | vs best baseline | best baseline | time to best s | best PPO sample ms | "
              "improvements ppo/polish/polished samples | steps | plans |\n|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n");
  std::fflush(stdout);
  for (const SuiteRow& row : *rows) {
    auto graph = LoadModel(row.model);
    auto cluster = LoadCluster(row.cluster);
    if (!graph.ok()) return CommandError("rl_bench", row.name + ": " + graph.status().message());
    if (!cluster.ok()) return CommandError("rl_bench", row.name + ": " + cluster.status().message());
    auto sim = Simulator::Create(*graph, *cluster);
    if (!sim.ok()) return CommandError("rl_bench", row.name + ": " + sim.status().message());
    for (const auto& [name, options] : configs) {
      LearnedSearchConfig config;
      config.budget.time_limit_s = *time_limit;
      config.seed = static_cast<uint64_t>(*seed);
      config.budget.threads = *threads;
      auto parsed = ParseLearnedSearchOptions(options, config);
      if (!parsed.ok()) return CommandError("rl_bench", parsed.status().message());
      auto search = LearnedSearch::Create(*sim, *parsed);
      if (!search.ok()) return CommandError("rl_bench", search.status().message());
      auto on_step = [&](const LearnedSearchProgress& p) {
        if (verbose) {
          std::fprintf(stderr, "  %s %s step %lld %.1f s best %s batch best %.1f ms plans %lld\n", row.name.c_str(), name.c_str(),
                       static_cast<long long>(p.step), p.seconds, p.best.ToString().c_str(), p.last_batch_best_us / 1e3,
                       static_cast<long long>(p.plans));
        }
      };
      auto r = (*search)->Run(nullptr, on_step);
      if (!r.ok()) {
        std::fprintf(stderr, "%s: %s\n", row.name.c_str(), r.status().message().c_str());
        continue;
      }
      double expert = 0;
      for (const BaselineScore& b : r->baselines) {
        if (b.method == kExpertBaseline && b.score.fits()) expert = b.score.step_time_us;
      }
      const std::string vs_expert = expert > 0 && r->score.fits() ? StrFormat("%.3fx", expert / r->score.step_time_us) : "-";
      const std::string vs_best = r->best_baseline_score.fits() && r->score.fits()
                                      ? StrFormat("%.3fx", r->best_baseline_score.step_time_us / r->score.step_time_us)
                                      : "-";
      const std::string ppo = std::isfinite(r->policy_best_us) ? StrFormat("%.1f", r->policy_best_us / 1e3) : "-";
      std::printf("| %s | %s | %s | %s | %s | %s | %.1f | %s | %d/%d/%d | %lld | %lld |\n", row.name.c_str(), name.c_str(),
                  r->score.fits() ? StrFormat("%.1f", r->score.step_time_us / 1e3).c_str() : "OOM", vs_expert.c_str(),
                  vs_best.c_str(), r->best_baseline.c_str(), r->seconds_to_best, ppo.c_str(), r->improvements_policy,
                  r->improvements_polish, r->improvements_sample_polish, static_cast<long long>(r->steps), static_cast<long long>(r->plans_simulated));
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) { return graphopt::Main(argc, argv); }
