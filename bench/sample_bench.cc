// Why sampled plans are good or bad: for one graph and cluster and several choices of
// decision unit (policy/units.h), the untrained GO policy's greedy plan against
// plans sampled from it, optionally after some seconds of policy-alone PPO training.
// One line per (units, phase): step time of the greedy plan, median and best of the
// samples, the same samples with every op on one priority level (the critical path
// alone schedules), the mean number of cross-device edges per sample against the
// greedy plan's, the mean number of units whose device differs from the greedy one,
// and the best plan seen in training.
//
//   sample_bench [--model gnmt:layers=4] [--cluster 4xV100] [--samples 16]
//                [--units 0,16,64,256] [--train-seconds 0] [--seed 0] [--threads 2]
//                [--policy K=V,...] [--ppo K=V,...]   (GoPolicyConfig, PpoConfig overrides)
// --units: max_units of the policy input, 0 = one unit per colocation group.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "cli/args.h"
#include "core/median.h"
#include "core/options.h"
#include "core/strings.h"
#include "models/load.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/local_search.h"
#include "rl/ppo.h"
#include "rl/rollout.h"
#include "sim/batch.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

int64_t CrossDeviceEdges(const Graph& graph, const Plan& plan) {
  const Adjacency adj = graph.BuildAdjacency();
  int64_t cross = 0;
  for (int op = 0; op < graph.num_ops(); ++op) {
    for (int32_t k = adj.succ_begin[static_cast<size_t>(op)]; k < adj.succ_begin[static_cast<size_t>(op) + 1]; ++k) {
      cross += plan.device[static_cast<size_t>(op)] != plan.device[static_cast<size_t>(adj.succs[static_cast<size_t>(k)])];
    }
  }
  return cross;
}

std::string Ms(const PlanScore& s) {
  if (!s.scored()) return "-";
  return StrFormat(s.oom ? "%.1f (OOM)" : "%.1f", s.step_time_us / 1e3);
}

std::vector<FlagSpec> Flags() {
  return {{"model", true, "model (default gnmt:layers=4)"},
          {"cluster", true, "cluster (default 4xV100)"},
          {"samples", true, "plans sampled per line (default 16)"},
          {"units", true, "max_units values, comma-separated; 0 = one unit per colocation group (default 0,16,64,256)"},
          {"policy", true, "GoPolicyConfig overrides K=V,..."},
          {"ppo", true, "PpoConfig overrides K=V,..."},
          {"train-seconds", true, "seconds of policy-alone PPO before the trained line (default 0: none)"},
          {"seed", true, "seed (default 0)"},
          {"threads", true, "threads (default 2)"},
          {"help", false, "this help"}};
}

int Main(int argc, char** argv) {
  auto args = Args::Parse("", argc, argv, 1, Flags(), "sample_bench");
  if (!args.ok()) return CommandError("sample_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: sample_bench [flags]\n%s", FlagsHelp(Flags()).c_str());
    return 0;
  }
  const std::string model = args->Get("model", "gnmt:layers=4"), cluster_name = args->Get("cluster", "4xV100"),
                    units_arg = args->Get("units", "0,16,64,256"), policy_arg = args->Get("policy"), ppo_arg = args->Get("ppo");
  auto samples_flag = args->GetIntInRange("samples", 16, 1, 1 << 20);
  auto train_seconds_flag = args->GetDouble("train-seconds", 0);
  auto seed_flag = args->GetIntInRange("seed", 0, 0, std::numeric_limits<int64_t>::max());
  auto threads_flag = ThreadsFlag(*args, 2);
  for (const Status& s : {samples_flag.status(), train_seconds_flag.status(), seed_flag.status(), threads_flag.status()}) {
    if (!s.ok()) return CommandError("sample_bench", s.message());
  }
  const int samples = static_cast<int>(*samples_flag), threads = *threads_flag;
  const double train_seconds = *train_seconds_flag;
  const uint64_t seed = static_cast<uint64_t>(*seed_flag);
  auto graph = LoadModel(model);
  auto cluster = LoadCluster(cluster_name);
  if (!graph.ok()) return CommandError("sample_bench", graph.status().message());
  if (!cluster.ok()) return CommandError("sample_bench", cluster.status().message());
  auto sim = Simulator::Create(*graph, *cluster);
  if (!sim.ok()) return CommandError("sample_bench", sim.status().message());
  ConfigureTorchThreads(threads);
  BatchSimulator batch(*sim, threads);
  std::printf("%s on %s, %d samples, seed %llu\n\n", model.c_str(), cluster_name.c_str(), samples,
              static_cast<unsigned long long>(seed));
  std::printf(
      "| units | trained s | steps | greedy ms | sample median ms | sample best ms | samples, one level: median / best ms "
      "| cross-device edges: greedy / sample mean | units off greedy | best in training ms |\n|---:|---:|---:|---:|---:|---:|---|---|---:|---:|\n");
  for (const std::string& u : Split(units_arg, ',')) {
    PolicyInputOptions options;
    auto max_units = ParseIntInRange(Trim(u), "--units", 0, 1 << 30);
    if (!max_units.ok()) return CommandError("sample_bench", max_units.status().message());
    options.max_units = static_cast<int>(*max_units);
    auto input = BuildPolicyInput(*graph, *cluster, sim->cost_model(), options);
    if (!input.ok()) return CommandError("sample_bench", input.status().message());
    auto pc = GoPolicyConfig::FromString(policy_arg);
    auto ppo = PpoConfig::FromString(ppo_arg);
    if (!pc.ok()) return CommandError("sample_bench", pc.status().message());
    if (!ppo.ok()) return CommandError("sample_bench", ppo.status().message());
    pc->seed = seed + 1;
    PpoTrainer trainer(*sim, &batch, *input, GoPolicy(*pc), *ppo, seed);
    // Reference: the single-device plan (as a plan every policy can reach).
    Plan single = DefaultPlan(*graph, cluster->FirstAccelerator());
    auto single_result = sim->Simulate(single);
    trainer.set_reference_us(single_result.ok() ? single_result->step_time_us : 1e6);
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    while (elapsed() < train_seconds) trainer.Step();
    const double trained = elapsed();

    const PolicyTensors tensors = ToTensors(*input);
    GoPolicy& policy = trainer.policy();
    torch::NoGradGuard no_grad;
    const PolicyOutput out = policy->forward(tensors);
    const Actions greedy = policy->Greedy(tensors, out);
    Rng rng(seed + 17);
    std::vector<Actions> sampled = policy->Sample(tensors, out, rng, samples, 1.0);
    std::vector<Plan> plans;
    auto add = [&](Actions a, bool one_level) {
      if (one_level) std::fill(a.priority_level.begin(), a.priority_level.end(), 0);
      plans.push_back(ActionsToPlan(*graph, *cluster, sim->cost_model(), *input, a, true));
    };
    add(greedy, false);
    for (const Actions& a : sampled) add(a, false);
    for (const Actions& a : sampled) add(a, true);
    const auto results = batch.Run(plans);
    auto score = [&](size_t i) { return results[i].ok() ? PlanScore::Of(*results[i]) : PlanScore(); };
    std::vector<double> times, times_one;
    PlanScore best, best_one;
    double cross = 0, off = 0;
    for (int s = 0; s < samples; ++s) {
      const PlanScore a = score(1 + static_cast<size_t>(s)), b = score(1 + static_cast<size_t>(samples + s));
      times.push_back(a.step_time_us / 1e3);
      times_one.push_back(b.step_time_us / 1e3);
      if (a.BetterThan(best)) best = a;
      if (b.BetterThan(best_one)) best_one = b;
      cross += static_cast<double>(CrossDeviceEdges(*graph, plans[1 + static_cast<size_t>(s)])) / samples;
      int differ = 0;
      for (size_t k = 0; k < greedy.unit_device.size(); ++k) differ += sampled[static_cast<size_t>(s)].unit_device[k] != greedy.unit_device[k];
      off += static_cast<double>(differ) / samples;
    }
    std::printf("| %d (%s) | %.0f | %lld | %s | %.1f | %s | %.1f / %s | %lld / %.0f | %.1f | %s |\n", input->num_units,
                u.c_str(), trained, static_cast<long long>(trainer.step()), Ms(score(0)).c_str(), UpperMedian(times),
                Ms(best).c_str(), UpperMedian(times_one), Ms(best_one).c_str(),
                static_cast<long long>(CrossDeviceEdges(*graph, plans[0])), cross, off,
                Ms(trainer.best_score()).c_str());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) { return graphopt::Main(argc, argv); }
