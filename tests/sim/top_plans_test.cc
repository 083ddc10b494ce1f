// TopPlans (sim/top_plans.h): the K best distinct fitting plans, best first.
#include "sim/top_plans.h"

#include <gtest/gtest.h>

namespace graphopt {
namespace {

// A plan of three ops, all on `device`.
Plan On(DeviceId device, double priority = 0) { return Plan{{device, device, device}, {priority, 0, 0}, {0, 0, 0}}; }
PlanScore Fits(double us) { return PlanScore{us, false, 0}; }

std::vector<double> Times(const TopPlans& top) {
  std::vector<double> t;
  for (const RankedPlan& p : top.plans()) t.push_back(p.score.step_time_us);
  return t;
}

TEST(TopPlans, KeepsTheKBestBestFirst) {
  TopPlans top(3);
  EXPECT_TRUE(top.Offer(On(0), Fits(50), "a"));
  EXPECT_TRUE(top.Offer(On(1), Fits(30), "b"));
  EXPECT_TRUE(top.Offer(On(2), Fits(40), "c"));
  EXPECT_TRUE(top.Offer(On(3), Fits(20), "d"));   // 50 leaves
  EXPECT_FALSE(top.Offer(On(4), Fits(45), "e"));  // worse than every plan kept
  EXPECT_EQ(Times(top), (std::vector<double>{20, 30, 40}));
  EXPECT_EQ(top.plans().front().source, "d");
  EXPECT_EQ(top.plans().front().plan.device, (std::vector<DeviceId>{3, 3, 3}));
}

TEST(TopPlans, OnePlanPerPlacementTheBestOfIt) {
  TopPlans top(4);
  EXPECT_TRUE(top.Offer(On(0), Fits(50), "baseline:expert"));
  EXPECT_FALSE(top.Offer(On(0), Fits(50), "policy"));     // the same plan again
  EXPECT_FALSE(top.Offer(On(0, 7), Fits(55), "polish"));  // the same placement, slower
  EXPECT_TRUE(top.Offer(On(1), Fits(40), "heft"));
  EXPECT_TRUE(top.Offer(On(0, 7), Fits(35), "polish"));   // the same placement, faster: replaces it
  ASSERT_EQ(top.plans().size(), 2u);
  EXPECT_EQ(top.plans()[0].source, "polish");
  EXPECT_EQ(top.plans()[0].plan.priority[0], 7);
  EXPECT_EQ(top.plans()[1].source, "heft");
}

TEST(TopPlans, OutOfMemoryPlansAndAZeroCapacityKeepNothing) {
  TopPlans top(2);
  EXPECT_FALSE(top.Offer(On(0), PlanScore{10, true, 100}, "oom"));
  EXPECT_TRUE(top.plans().empty());
  TopPlans none;
  EXPECT_FALSE(none.Offer(On(0), Fits(10), "a"));
  EXPECT_EQ(none.capacity(), 0);
  EXPECT_EQ(TopPlans(1000).capacity(), kMaxTopPlans);
}

TEST(TopPlans, AnEqualTimeKeepsTheEarlierAhead) {
  TopPlans top(2);
  top.Offer(On(0), Fits(30), "first");
  top.Offer(On(1), Fits(30), "second");
  EXPECT_FALSE(top.Offer(On(2), Fits(30), "third"));  // not better than the last kept
  ASSERT_EQ(top.plans().size(), 2u);
  EXPECT_EQ(top.plans()[0].source, "first");
  EXPECT_EQ(top.plans()[1].source, "second");
}

}  // namespace
}  // namespace graphopt
