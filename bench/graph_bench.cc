// Graph IR benchmarks on the largest built-ins (8-layer GNMT and Transformer-XL
// training graphs): build, verify, topological order, JSON write and read.
// Targets: build/verify/order each < 1 s, JSON write and read each < 2 s, peak
// resident memory < 500 MB. Run with --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true to get medians.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include "graph/json_io.h"
#include "graph/verifier.h"
#include "models/registry.h"

namespace graphopt {
namespace {

const char* kSpecs[] = {"gnmt:layers=8", "transformer_xl:layers=8"};

double PeakRssMb() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

const Graph& Cached(int which) {
  static Graph graphs[2];
  static bool built[2] = {false, false};
  if (!built[which]) {
    graphs[which] = BuildBuiltinModel(kSpecs[which]).value();
    built[which] = true;
  }
  return graphs[which];
}

void SetCounters(benchmark::State& state, const Graph& g) {
  state.counters["ops"] = g.num_ops();
  state.counters["edges"] = static_cast<double>(g.num_edges());
  state.counters["peak_rss_mb"] = PeakRssMb();
  state.SetLabel(kSpecs[state.range(0)]);
}

void BM_Build(benchmark::State& state) {
  int ops = 0;
  for (auto _ : state) {
    Graph g = BuildBuiltinModel(kSpecs[state.range(0)]).value();
    ops = g.num_ops();
    benchmark::DoNotOptimize(ops);
  }
  SetCounters(state, Cached(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_Build)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Verify(benchmark::State& state) {
  const Graph& g = Cached(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    Status s = VerifyGraph(g);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  SetCounters(state, g);
}
BENCHMARK(BM_Verify)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_TopologicalOrder(benchmark::State& state) {
  const Graph& g = Cached(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto order = TopologicalOrder(g);
    benchmark::DoNotOptimize(order);
  }
  SetCounters(state, g);
}
BENCHMARK(BM_TopologicalOrder)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_JsonWrite(benchmark::State& state) {
  const Graph& g = Cached(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = GraphToJson(g);
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["json_mb"] = static_cast<double>(bytes) / 1e6;
  SetCounters(state, g);
}
BENCHMARK(BM_JsonWrite)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_JsonRead(benchmark::State& state) {
  const Graph& g = Cached(static_cast<int>(state.range(0)));
  const std::string text = GraphToJson(g);
  for (auto _ : state) {
    auto back = GraphFromJson(text, "bench.json");
    if (!back.ok()) state.SkipWithError(back.status().message().c_str());
  }
  SetCounters(state, g);
}
BENCHMARK(BM_JsonRead)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace graphopt

BENCHMARK_MAIN();
