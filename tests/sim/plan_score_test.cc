#include "sim/plan_score.h"

#include <gtest/gtest.h>

namespace graphopt {
namespace {

TEST(PlanScoreTest, FittingPlanBeatsOutOfMemoryPlan) {
  PlanScore fits{500, false, 0};
  PlanScore oom{100, true, 10};
  EXPECT_TRUE(fits.BetterThan(oom));
  EXPECT_FALSE(oom.BetterThan(fits));
}

TEST(PlanScoreTest, SmallerOverflowWinsAmongOutOfMemoryPlans) {
  EXPECT_TRUE((PlanScore{900, true, 10}).BetterThan(PlanScore{100, true, 20}));
}

TEST(PlanScoreTest, UnscoredPlanLosesToAnyScoredPlan) {
  EXPECT_TRUE((PlanScore{1e9, true, 1 << 30}).BetterThan(PlanScore{}));
  EXPECT_FALSE(PlanScore{}.BetterThan(PlanScore{1e9, true, 1 << 30}));
}

TEST(PlanScoreTest, StepTimesMustImproveByTheMargin) {
  EXPECT_TRUE((PlanScore{98, false, 0}).BetterThan(PlanScore{100, false, 0}, 0.01));
  EXPECT_FALSE((PlanScore{99.5, false, 0}).BetterThan(PlanScore{100, false, 0}, 0.01));
  EXPECT_EQ((PlanScore{312300, false, 0}).ToString(), "0.3123 s");
}

}  // namespace
}  // namespace graphopt
