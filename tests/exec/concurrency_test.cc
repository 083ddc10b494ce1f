#include "exec/concurrency.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <cmath>
#include <vector>

#include "exec/local_cluster.h"

namespace graphopt {
namespace {

TEST(MeasureConcurrency, NeedsTwoDevicesAndOptionsInRange) {
  EXPECT_EQ(MeasureConcurrency({{0}}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(MeasureConcurrency({}).status().code(), StatusCode::kInvalidArgument);
  ConcurrencyOptions o;
  o.samples = 0;
  EXPECT_EQ(MeasureConcurrency({{0}, {0}}, o).status().code(), StatusCode::kInvalidArgument);
  o = ConcurrencyOptions{};
  o.pause_ms = -1;
  EXPECT_EQ(MeasureConcurrency({{0}, {0}}, o).status().code(), StatusCode::kInvalidArgument);
  o = ConcurrencyOptions{};
  o.repetitions = 0;
  EXPECT_EQ(MeasureConcurrency({{0}, {0}}, o).status().code(), StatusCode::kInvalidArgument);
}

TEST(MeasureConcurrency, RefusesACoreThatDoesNotExist) {
  ConcurrencyOptions o;
  o.samples = 1;
  o.repetitions = 1;
  const auto result = MeasureConcurrency({{0}, {CPU_SETSIZE + 1}}, o);
  EXPECT_FALSE(result.ok());
}

// Every ratio a positive, finite figure, one sample each, in time order. (What the
// figures are depends on the machine and the moment: bench/concurrency_bench.cc.)
// Two devices of this machine's cores; two on one core when it has only one (the probes
// still run).
std::vector<std::vector<int>> TwoDevices() {
  const auto local = LocalCoreSets(0);
  EXPECT_TRUE(local.ok());
  if (local.ok() && local->size() >= 2) return {local->at(0), local->at(1)};
  return {{0}, {0}};
}

TEST(MeasureConcurrency, SamplesEveryProbeOnTwoDevices) {
  const std::vector<std::vector<int>> sets = TwoDevices();
  ConcurrencyOptions o;
  o.samples = 3;
  o.pause_ms = 1;
  o.repetitions = 3;
  const auto samples = MeasureConcurrency(sets, o);
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  ASSERT_EQ(samples->size(), 3u);
  double last = -1;
  for (const ConcurrencySample& s : *samples) {
    for (double r : {s.gemm, s.stream, s.read}) {
      EXPECT_TRUE(std::isfinite(r) && r > 0) << r;
    }
    EXPECT_GT(s.seconds, last);
    last = s.seconds;
  }
  EXPECT_LT(samples->front().seconds, 1.0);  // the first sample starts the clock
}

TEST(MeasureConcurrency, TheReadProbeCanBeLeftOutAndTheContentionIsInRange) {
  const std::vector<std::vector<int>> sets = TwoDevices();
  ConcurrencyOptions o;
  o.samples = 1;
  o.repetitions = 3;
  o.read = false;
  const auto samples = MeasureConcurrency(sets, o);
  ASSERT_TRUE(samples.ok()) << samples.status().ToString();
  EXPECT_EQ(samples->front().read, 0);
  EXPECT_GT(samples->front().stream, 0);
  const auto contention = MeasureContention(sets, 1);
  ASSERT_TRUE(contention.ok()) << contention.status().ToString();
  for (double slowdown : {contention->compute, contention->memory}) {
    EXPECT_GE(slowdown, 1);
    EXPECT_LE(slowdown, kMaxSlowdown);
  }
}

}  // namespace
}  // namespace graphopt
