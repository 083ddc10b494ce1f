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
TEST(MeasureConcurrency, SamplesEveryProbeOnTwoDevices) {
  // Two devices on one core when the machine has only one: the probes still run.
  std::vector<std::vector<int>> sets = {{0}, {0}};
  const auto local = LocalCoreSets(0);
  ASSERT_TRUE(local.ok());
  if (local->size() >= 2) sets = {local->at(0), local->at(1)};
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

}  // namespace
}  // namespace graphopt
