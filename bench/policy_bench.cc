// GO policy network benchmarks on the 8-layer GNMT (about 44k ops) and the 8-layer
// Transformer-XL (about 60k ops) training graphs, placing on 8xV100 (PCIe):
//  - BM_PolicyForward/<model>: one forward pass (trunk + placement logits) with
//    gradients recorded, as in training.
//  - BM_PolicyStep/<model>: one policy step: forward, the log-probabilities and
//    entropies of a batch of kBatch sampled action sets (scheduling and fusion
//    re-decoded for each sample's placement), a PPO-like loss
//    -mean(advantage * log_prob) - 0.01 * mean(entropy), and backward.
//    Target: < 1 s on gnmt:layers=8 with 2 threads.
//  - BM_PolicySample/<model>: forward without gradients + sampling kBatch action sets.
// GRAPHOPT_PROFILE=<file> writes a Chrome trace of one policy step per model
// (LibTorch's profiler) to <file>.<model>.json.
// GRAPHOPT_BENCH_MODELS="spec;spec" replaces the two models.
// Threads: GRAPHOPT_THREADS (default 2). Wall time per iteration (UseRealTime). The
// default GoPolicyConfig is benchmarked; GRAPHOPT_POLICY_CONFIG ("hidden=64,...")
// overrides it. Setup times (graph build, features, tensors) and the peak resident
// memory are printed to stderr.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "core/rng.h"
#include "models/registry.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "sim/cluster.h"
#include "torch/csrc/autograd/profiler_legacy.h"

namespace graphopt {
namespace {

constexpr const char* kCluster = "8xV100";
constexpr int kBatch = 8;

double Seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double PeakRssMb() {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

GoPolicyConfig BenchConfig() {
  const char* text = std::getenv("GRAPHOPT_POLICY_CONFIG");
  if (text == nullptr || *text == '\0') return GoPolicyConfig();
  auto config = GoPolicyConfig::FromString(text);
  if (!config.ok()) {
    std::fprintf(stderr, "policy_bench: %s\n", config.status().message().c_str());
    std::exit(1);
  }
  return *config;
}

struct Setup {
  Graph graph;
  Cluster cluster;
  PolicyInput input;
  PolicyTensors tensors;
  GoPolicy policy{nullptr};
  std::vector<Actions> batch;
  torch::Tensor advantages;
};

Setup& GetSetup(const std::string& model) {
  static std::map<std::string, std::unique_ptr<Setup>> setups;
  auto it = setups.find(model);
  if (it != setups.end()) return *it->second;
  auto s = std::make_unique<Setup>();
  const char* threads = std::getenv("GRAPHOPT_THREADS");
  ConfigureTorchThreads(threads != nullptr ? std::atoi(threads) : 2);
  double t0 = Seconds();
  auto graph = BuildBuiltinModel(model);
  if (!graph.ok()) {
    std::fprintf(stderr, "policy_bench: %s\n", graph.status().message().c_str());
    std::exit(1);
  }
  s->graph = std::move(*graph);
  s->cluster = *ClusterPreset(kCluster);
  const double t1 = Seconds();
  auto input = BuildPolicyInput(s->graph, s->cluster);
  if (!input.ok()) {
    std::fprintf(stderr, "policy_bench: %s\n", input.status().message().c_str());
    std::exit(1);
  }
  s->input = std::move(*input);
  const double t2 = Seconds();
  s->tensors = ToTensors(s->input);
  const double t3 = Seconds();
  s->policy = GoPolicy(BenchConfig());
  {
    torch::NoGradGuard no_grad;
    Rng rng(7);
    s->batch = s->policy->Sample(s->tensors, s->policy->forward(s->tensors), rng, kBatch);
  }
  s->advantages = torch::randn({kBatch});
  const double t4 = Seconds();
  {  // one warm-up step: the first step maps fresh memory (about 1.3 GB), later ones reuse it
    PolicyOutput out = s->policy->forward(s->tensors);
    Evaluation e = s->policy->Evaluate(s->tensors, out, s->batch);
    (-(s->advantages * e.log_prob).mean() - 0.01 * e.entropy.mean()).backward();
    s->policy->zero_grad();
  }
  const double t5 = Seconds();
  if (const char* profile = std::getenv("GRAPHOPT_PROFILE")) {
    std::string name = model;
    for (char& c : name) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    torch::autograd::profiler::RecordProfile guard(std::string(profile) + "." + name + ".json");
    PolicyOutput out = s->policy->forward(s->tensors);
    Evaluation e = s->policy->Evaluate(s->tensors, out, s->batch);
    (-(s->advantages * e.log_prob).mean() - 0.01 * e.entropy.mean()).backward();
    s->policy->zero_grad();
  }
  std::fprintf(
      stderr,
      "policy_bench: %s on %s: %d ops, %d edges, %d units, %d devices; threads %d; config %s\n"
      "  setup: graph %.0f ms, features %.0f ms, tensors %.0f ms, first (cold) step %.0f ms; %lld parameters\n",
      model.c_str(), kCluster, s->input.num_ops, s->input.num_edges, s->input.num_units, s->input.num_devices,
      at::get_num_threads(), s->policy->config().ToString().c_str(), (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3,
      (t5 - t4) * 1e3, static_cast<long long>([&] {
        int64_t n = 0;
        for (const auto& p : s->policy->parameters()) n += p.numel();
        return n;
      }()));
  Setup& ref = *s;
  setups[model] = std::move(s);
  return ref;
}

void BM_PolicyForward(benchmark::State& state, const std::string& model) {
  Setup& s = GetSetup(model);
  for (auto _ : state) {
    PolicyOutput out = s.policy->forward(s.tensors);
    benchmark::DoNotOptimize(out.placement_logits.data_ptr<float>());
  }
  state.SetLabel(model);
  state.counters["peak_rss_mb"] = PeakRssMb();
}

void BM_PolicyStep(benchmark::State& state, const std::string& model) {
  Setup& s = GetSetup(model);
  double forward_s = 0, evaluate_s = 0, backward_s = 0;
  for (auto _ : state) {
    const double t0 = Seconds();
    PolicyOutput out = s.policy->forward(s.tensors);
    const double t1 = Seconds();
    Evaluation e = s.policy->Evaluate(s.tensors, out, s.batch);
    torch::Tensor loss = -(s.advantages * e.log_prob).mean() - 0.01 * e.entropy.mean();
    const double t2 = Seconds();
    loss.backward();
    const double t3 = Seconds();
    forward_s += t1 - t0;
    evaluate_s += t2 - t1;
    backward_s += t3 - t2;
    s.policy->zero_grad();
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["forward_ms"] = forward_s / iters * 1e3;
  state.counters["evaluate_ms"] = evaluate_s / iters * 1e3;
  state.counters["backward_ms"] = backward_s / iters * 1e3;
  state.counters["peak_rss_mb"] = PeakRssMb();
  state.SetLabel(model + ", batch " + std::to_string(kBatch));
}

void BM_PolicySample(benchmark::State& state, const std::string& model) {
  Setup& s = GetSetup(model);
  Rng rng(11);
  for (auto _ : state) {
    torch::NoGradGuard no_grad;
    std::vector<Actions> actions = s.policy->Sample(s.tensors, s.policy->forward(s.tensors), rng, kBatch);
    benchmark::DoNotOptimize(actions.data());
  }
  state.SetLabel(model + ", batch " + std::to_string(kBatch));
  state.counters["peak_rss_mb"] = PeakRssMb();
}

std::vector<std::string> Models() {
  const char* models = std::getenv("GRAPHOPT_BENCH_MODELS");
  if (models == nullptr || *models == '\0') return {"gnmt:layers=8", "transformer_xl:layers=8"};
  std::vector<std::string> list;
  std::string cur;
  for (const char* c = models;; ++c) {
    if (*c == ';' || *c == '\0') {
      if (!cur.empty()) list.push_back(cur);
      cur.clear();
      if (*c == '\0') break;
    } else {
      cur += *c;
    }
  }
  return list;
}

const bool kRegistered = [] {
  for (const std::string& model : Models()) {
    benchmark::RegisterBenchmark(("BM_PolicyForward/" + model).c_str(), BM_PolicyForward, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(2.0);
    benchmark::RegisterBenchmark(("BM_PolicyStep/" + model).c_str(), BM_PolicyStep, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(3.0);
    benchmark::RegisterBenchmark(("BM_PolicySample/" + model).c_str(), BM_PolicySample, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(2.0);
  }
  return true;
}();

}  // namespace
}  // namespace graphopt

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::fprintf(stderr, "policy_bench: peak resident memory %.0f MB\n", graphopt::PeakRssMb());
  return 0;
}
