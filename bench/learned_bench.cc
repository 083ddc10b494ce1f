// One training step of each learned placer at its default configuration: GO's PPO
// step (rl/ppo.h: one forward pass, sampling, building and simulating the batch of
// plans, the PPO update; the units LearnedSearch gives it, 4 per device), and the
// earlier placers ColocRL (rl/colocrl.h) and HDP (rl/hdp.h) (sampling from the
// seq2seq policy, building and simulating the batch of plans, REINFORCE update).
//  - BM_LearnedStep/<method>: wall time of one Trainer::Step() on the model
//    (default gnmt:layers=8, about 44k ops) and cluster (default 8xV100); the
//    counter plans_per_s is the plans simulated per second of steps.
// GRAPHOPT_BENCH_MODEL, GRAPHOPT_BENCH_CLUSTER replace the model and the cluster;
// GRAPHOPT_THREADS (default 2) sets the simulator and LibTorch threads;
// GRAPHOPT_GO_PPO_OPTIONS / GRAPHOPT_COLOCRL_OPTIONS / GRAPHOPT_HDP_OPTIONS
// ("key=value,...") override the configs. Setup times and the trainers' sizes are printed to stderr.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "models/registry.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/learned_search.h"
#include "rl/methods.h"
#include "rl/ppo.h"
#include "sim/batch.h"
#include "sim/cluster.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string Env(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

[[noreturn]] void Fail(const Status& s) {
  std::fprintf(stderr, "learned_bench: %s\n", s.message().c_str());
  std::exit(1);
}

struct Setup {
  Graph graph;
  Cluster cluster;
  std::unique_ptr<Simulator> sim;
  std::unique_ptr<BatchSimulator> batch;
  PolicyInput input;
  PolicyInput unit_input;  // GO's: partition units
  std::map<std::string, std::unique_ptr<Trainer>> trainers;
};

Setup& GetSetup() {
  static std::unique_ptr<Setup> setup;
  if (setup) return *setup;
  setup = std::make_unique<Setup>();
  Setup& s = *setup;
  const int threads = std::atoi(Env("GRAPHOPT_THREADS", "2").c_str());
  ConfigureTorchThreads(threads);
  const std::string model = Env("GRAPHOPT_BENCH_MODEL", "gnmt:layers=8");
  const std::string cluster = Env("GRAPHOPT_BENCH_CLUSTER", "8xV100");
  const double t0 = Seconds();
  auto graph = BuildBuiltinModel(model);
  if (!graph.ok()) Fail(graph.status());
  s.graph = std::move(*graph);
  auto c = ClusterPreset(cluster);
  if (!c.ok()) Fail(c.status());
  s.cluster = std::move(*c);
  auto sim = Simulator::Create(s.graph, s.cluster);
  if (!sim.ok()) Fail(sim.status());
  s.sim = std::make_unique<Simulator>(std::move(*sim));
  s.batch = std::make_unique<BatchSimulator>(*s.sim, threads);
  auto input = BuildPolicyInput(s.graph, s.cluster, s.sim->cost_model());
  if (!input.ok()) Fail(input.status());
  s.input = std::move(*input);
  auto reference = s.sim->Simulate(DefaultPlan(s.graph, 0));
  if (!reference.ok()) Fail(reference.status());
  const double t1 = Seconds();
  std::fprintf(stderr, "learned_bench: %s on %s: %d ops, %d units, %d devices; threads %d; setup %.1f s\n",
               model.c_str(), cluster.c_str(), s.input.num_ops, s.input.num_units, s.input.num_devices, threads,
               t1 - t0);
  {
    PolicyInputOptions options;
    options.max_units = 4 * static_cast<int>(std::max<size_t>(1, s.cluster.Accelerators().size()));
    auto unit_input = BuildPolicyInput(s.graph, s.cluster, s.sim->cost_model(), options);
    if (!unit_input.ok()) Fail(unit_input.status());
    s.unit_input = std::move(*unit_input);
  }
  for (const LearnedMethod& learned : LearnedMethods()) {
    const std::string method = learned.name;
    std::string variable = "GRAPHOPT_";
    for (char ch : method) variable += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    const std::string options = Env((variable + (learned.go_policy ? "_PPO_OPTIONS" : "_OPTIONS")).c_str(), "");
    const double t2 = Seconds();
    StatusOr<std::unique_ptr<Trainer>> trainer = InvalidArgument("no trainer");
    if (learned.go_policy) {
      auto config = PpoConfig::FromString(options);
      if (!config.ok()) Fail(config.status());
      trainer = std::unique_ptr<Trainer>(std::make_unique<PpoTrainer>(*s.sim, s.batch.get(), s.unit_input,
                                                                      GoPolicy(GoPolicyConfig()), *config, 0));
    } else {
      auto config = DefaultSearchConfig(method);
      if (config.ok()) config = ParseLearnedSearchOptions(options, *config);
      if (!config.ok()) Fail(config.status());
      trainer = CreateMethodTrainer(*config, *s.sim, s.batch.get(), s.input);
    }
    if (!trainer.ok()) Fail(trainer.status());
    (*trainer)->set_reference_us(reference->step_time_us);
    const double t3 = Seconds();
    const TrainerStepStats first = (*trainer)->Step();  // warm-up
    std::fprintf(stderr, "  %s: created in %.2f s, first step %.2f s (best %.4f s)\n", method.c_str(), t3 - t2,
                 first.seconds, (*trainer)->best_score().step_time_us / 1e6);
    s.trainers[method] = std::move(*trainer);
  }
  return s;
}

void BM_LearnedStep(benchmark::State& state, const std::string& method) {
  Trainer& trainer = *GetSetup().trainers.at(method);
  const int64_t plans_before = trainer.plans_simulated();
  double seconds = 0;
  for (auto _ : state) {
    const TrainerStepStats s = trainer.Step();
    seconds += s.seconds;
    benchmark::DoNotOptimize(s.loss);
  }
  state.counters["plans_per_s"] = static_cast<double>(trainer.plans_simulated() - plans_before) / std::max(1e-9, seconds);
}

// 6 steps after the warm-up step: a whole number of trunk_every periods for 1, 2, 3
// and 6, so the mean weighs trunk steps and heads-only steps as a run does.
BENCHMARK_CAPTURE(BM_LearnedStep, go, std::string("go"))->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(6);

BENCHMARK_CAPTURE(BM_LearnedStep, colocrl, std::string("colocrl"))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);
BENCHMARK_CAPTURE(BM_LearnedStep, hdp, std::string("hdp"))->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace graphopt

BENCHMARK_MAIN();
