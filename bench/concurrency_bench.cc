// How much this machine's cores slow each other down, sampled over time
// (exec/concurrency.h): one line per sample, then the distribution of each probe.
//
//   build/bench/concurrency_bench [--samples 100] [--pause-ms 200] [--json]
//
// Run it with OMP_NUM_THREADS=1 (one thread per core, as the executor's workers
// have). Each sample is a ratio: 1 is no interference, 2 half speed.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/args.h"
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

std::vector<graphopt::FlagSpec> Flags() {
  return {{"samples", true, "samples taken (default 100)"},
          {"pause-ms", true, "milliseconds between samples (default 200)"},
          {"json", false, "one JSON line per sample, no summary"},
          {"help", false, "this help"}};
}

int main(int argc, char** argv) {
  using namespace graphopt;
  auto args = Args::Parse("", argc, argv, 1, Flags(), "concurrency_bench");
  if (!args.ok()) return CommandError("concurrency_bench", args.status().message());
  if (args->Has("help")) {
    std::printf("usage: concurrency_bench [flags]\n%s", FlagsHelp(Flags()).c_str());
    return 0;
  }
  if (!args->positional().empty()) return CommandError("concurrency_bench", "takes no positional arguments");
  ConcurrencyOptions options;
  const auto samples_flag = args->GetIntInRange("samples", 100, 1, 100000);
  const auto pause_flag = args->GetDouble("pause-ms", 200);
  for (const Status& s : {samples_flag.status(), pause_flag.status()}) {
    if (!s.ok()) return CommandError("concurrency_bench", s.message());
  }
  options.samples = static_cast<int>(*samples_flag);
  options.pause_ms = *pause_flag;
  const bool json = args->Has("json");
  const auto sets = LocalCoreSets(0);
  if (!sets.ok()) return CommandError("concurrency_bench", sets.status().message());
  const auto samples = MeasureConcurrency(*sets, options);
  if (!samples.ok()) return CommandError("concurrency_bench", samples.status().message());
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
