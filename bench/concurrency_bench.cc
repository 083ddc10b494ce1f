// How much this machine's cores slow each other down, sampled over time
// (exec/concurrency.h): one line per sample, then the distribution of each probe.
//
//   build/bench/concurrency_bench [SAMPLES=100] [PAUSE_MS=200] [--json]
//
// Run it with OMP_NUM_THREADS=1 (one thread per core, as the executor's workers
// have). Each sample is a ratio: 1 is no interference, 2 half speed.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "exec/concurrency.h"
#include "exec/local_cluster.h"

namespace {

// Median, mean and the share of samples at or over 1.2 (a fifth slower or worse).
void Summary(const char* name, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double mean = 0;
  int slow = 0;
  for (double x : v) {
    mean += x;
    slow += x >= 1.2 ? 1 : 0;
  }
  mean /= static_cast<double>(v.size());
  std::printf("%-7s median %.3f  mean %.3f  min %.3f  max %.3f  >=1.2x in %d of %zu samples\n", name, v[v.size() / 2],
              mean, v.front(), v.back(), slow, v.size());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace graphopt;
  ConcurrencyOptions options;
  options.samples = 100;
  bool json = false;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (positional == 0) {
      options.samples = std::atoi(argv[i]);
      ++positional;
    } else if (positional == 1) {
      options.pause_ms = std::atof(argv[i]);
      ++positional;
    } else {
      std::fprintf(stderr, "usage: concurrency_bench [SAMPLES] [PAUSE_MS] [--json]\n");
      return 2;
    }
  }
  const auto sets = LocalCoreSets(0);
  if (!sets.ok()) {
    std::fprintf(stderr, "concurrency_bench: %s\n", sets.status().ToString().c_str());
    return 1;
  }
  const auto samples = MeasureConcurrency(*sets, options);
  if (!samples.ok()) {
    std::fprintf(stderr, "concurrency_bench: %s\n", samples.status().ToString().c_str());
    return 1;
  }
  std::vector<double> gemm, stream, read;
  for (const ConcurrencySample& s : *samples) {
    if (json) {
      std::printf("{\"seconds\": %.3f, \"gemm\": %.4f, \"stream\": %.4f, \"read\": %.4f}\n", s.seconds, s.gemm,
                  s.stream, s.read);
    } else {
      std::printf("%8.2f s  gemm %.3f  stream %.3f  read %.3f\n", s.seconds, s.gemm, s.stream, s.read);
    }
    gemm.push_back(s.gemm);
    stream.push_back(s.stream);
    read.push_back(s.read);
  }
  if (json) return 0;
  std::printf("%zu devices, %zu samples:\n", sets->size(), samples->size());
  Summary("gemm", gemm);
  Summary("stream", stream);
  Summary("read", read);
  return 0;
}
