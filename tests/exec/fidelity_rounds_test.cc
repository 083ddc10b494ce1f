// The measurement protocol of bench --fidelity (exec/fidelity_rounds.h), with steps
// that report given times instead of executing plans.
#include "exec/fidelity_rounds.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

namespace graphopt {
namespace {

// A plan whose k-th step (from 0) takes times[k] us and appends its name to *order.
RoundsPlan FakePlan(const std::string& name, std::vector<double> times, std::string* order) {
  RoundsPlan p;
  p.name = name;
  p.step = [name, times, order, k = size_t{0}]() mutable -> StatusOr<SimResult> {
    *order += name;
    SimResult r;
    r.step_time_us = times[k++ % times.size()];
    return r;
  };
  return p;
}

TEST(RunRoundsTest, RotatesTheOrderAndMeasuresTheSecondStepOfEachVisit) {
  std::string order;
  std::vector<RoundsPlan> plans;
  plans.push_back(FakePlan("a", {1, 2, 3, 4, 5, 6}, &order));
  plans.push_back(FakePlan("b", {10, 20, 30, 40, 50, 60}, &order));
  RoundsOptions options;
  options.warmup = 1;
  options.steps = 2;
  std::vector<std::vector<double>> reference;
  ASSERT_TRUE(RunRounds(options, &plans, &reference).ok());
  // Warm-up round: one step each; measured rounds: two each, the order rotating.
  EXPECT_EQ(order, "ab" "bbaa" "aabb");
  EXPECT_EQ(plans[0].steps_us, (std::vector<double>{3, 5}));
  EXPECT_EQ(plans[1].steps_us, (std::vector<double>{30, 50}));
}

TEST(RunRoundsTest, AFailingPlanIsDroppedAndTheOthersGoOn) {
  std::string order;
  std::vector<RoundsPlan> plans;
  plans.push_back(FakePlan("a", {1}, &order));
  RoundsPlan broken;
  broken.name = "b";
  int calls = 0;
  broken.step = [&calls]() -> StatusOr<SimResult> {
    if (++calls == 1) return SimResult();
    return InternalError("stalled");
  };
  plans.push_back(std::move(broken));
  RoundsOptions options;
  options.warmup = 1;
  options.steps = 3;
  std::vector<std::vector<double>> reference;
  ASSERT_TRUE(RunRounds(options, &plans, &reference).ok());
  EXPECT_EQ(plans[1].error, "stalled");
  EXPECT_FALSE(plans[1].step);
  EXPECT_TRUE(plans[1].steps_us.empty());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(plans[0].steps_us.size(), 3u);
}

TEST(RunRoundsTest, ARequiredPlanFailingEndsTheRoundsWithItsName) {
  std::vector<RoundsPlan> plans(1);
  plans[0].name = "in-step profile";
  plans[0].required = true;
  plans[0].step = []() -> StatusOr<SimResult> { return InternalError("no memory"); };
  std::vector<std::vector<double>> reference;
  const Status status = RunRounds(RoundsOptions(), &plans, &reference);
  EXPECT_EQ(status.message(), "in-step profile: no memory");
}

TEST(RunRoundsTest, StopEndsTheRoundsAsInterrupted) {
  std::string order;
  std::vector<RoundsPlan> plans;
  plans.push_back(FakePlan("a", {1}, &order));
  std::atomic<bool> stop{true};
  RoundsOptions options;
  options.stop = &stop;
  std::vector<std::vector<double>> reference;
  EXPECT_EQ(RunRounds(options, &plans, &reference).message(), "interrupted");
  EXPECT_EQ(order, "");
}

TEST(RunRoundsTest, PlansWithoutAStepAreNotRunAndEveryRoundIsReported) {
  std::vector<RoundsPlan> plans(1);
  plans[0].name = "not made";
  RoundsOptions options;
  options.warmup = 2;
  options.steps = 3;
  std::vector<int> reported;
  options.on_round = [&reported](int done, int rounds) {
    EXPECT_EQ(rounds, 5);
    reported.push_back(done);
  };
  std::vector<std::vector<double>> reference;
  ASSERT_TRUE(RunRounds(options, &plans, &reference).ok());
  EXPECT_EQ(reported, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(plans[0].steps_us.empty());
  EXPECT_TRUE(plans[0].error.empty());
}

TEST(RunRoundsTest, OneReferenceGemmPerDeviceAndMeasuredRound) {
  std::vector<RoundsPlan> plans;
  RoundsOptions options;
  options.warmup = 1;
  options.steps = 2;
  options.reference_cores = {{0}};
  std::vector<std::vector<double>> reference;
  ASSERT_TRUE(RunRounds(options, &plans, &reference).ok());
  ASSERT_EQ(reference.size(), 1u);
  EXPECT_EQ(reference[0].size(), 2u);
  EXPECT_GT(reference[0][0], 0);
}

TEST(MeasuredFiguresTest, MedianSpreadAndHalfGap) {
  // Rounds 0, 2 (even): 10, 14; rounds 1, 3 (odd): 12, 20. Median 13.
  const std::vector<double> steps = {10, 12, 14, 20};
  EXPECT_EQ(MeasuredUs(steps), 13.0);
  EXPECT_DOUBLE_EQ(Spread(steps), 10.0 / 13.0);
  EXPECT_DOUBLE_EQ(HalfGap(steps), std::fabs(16.0 - 12.0) / 13.0);
}

TEST(MeasuredFiguresTest, EmptyAndSingleSeriesHaveNoSpreadOrGap) {
  EXPECT_EQ(MeasuredUs({}), 0.0);
  EXPECT_EQ(Spread({}), 0.0);
  EXPECT_EQ(HalfGap({}), 0.0);
  EXPECT_EQ(HalfGap({5.0}), 0.0);
  EXPECT_EQ(Spread({5.0}), 0.0);
}

TEST(RunRoundsTest, TheHookRunsAfterEveryMeasuredRoundAndItsErrorEndsThem) {
  std::string order;
  std::vector<RoundsPlan> plans;
  plans.push_back(FakePlan("a", {1}, &order));
  RoundsOptions options;
  options.warmup = 1;
  options.steps = 3;
  std::string seen;
  options.after_measured_round = [&] {
    seen += order + "|";
    return Status::Ok();
  };
  std::vector<std::vector<double>> reference;
  ASSERT_TRUE(RunRounds(options, &plans, &reference).ok());
  EXPECT_EQ(seen, "aaa|aaaaa|aaaaaaa|");  // not after the warm-up round
  int calls = 0;
  options.after_measured_round = [&calls] { return ++calls == 2 ? InternalError("probe failed") : Status::Ok(); };
  EXPECT_EQ(RunRounds(options, &plans, &reference).message(), "probe failed");
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace graphopt
