#include "rl/local_search.h"

#include <gtest/gtest.h>

#include "rl_test_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PerfectCostModel;
using testing::TwoChains;
using testing::TwoChainsOptimumUs;

struct ToyProblem {
  Graph graph = TwoChains(4);
  Cluster cluster = PaperCluster(2);
  Simulator sim = std::move(Simulator::Create(graph, cluster, PerfectCostModel()).value());
};

PlanScore Score(const Simulator& sim, const Plan& plan) { return PlanScore::Of(*sim.Simulate(plan)); }

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

TEST(LocalSearchTest, FindsOneChainPerDeviceFromOneDevice) {
  ToyProblem s;
  BatchSimulator batch(s.sim, 1);
  LocalSearch search(s.sim, &batch);
  Plan plan = DefaultPlan(s.graph);
  PlanScore score = Score(s.sim, plan);
  EXPECT_NEAR(score.step_time_us, 2 * TwoChainsOptimumUs(4), 1.0);
  Rng rng(1);
  const LocalSearchStats stats = search.Polish(&plan, &score, rng, 0);
  EXPECT_TRUE(stats.converged);
  EXPECT_NEAR(score.step_time_us, TwoChainsOptimumUs(4), 3.0);
  EXPECT_DOUBLE_EQ(Score(s.sim, plan).step_time_us, score.step_time_us);
}

TEST(LocalSearchTest, NeverReturnsAWorsePlan) {
  ToyProblem s;
  BatchSimulator batch(s.sim, 1);
  for (uint64_t seed = 0; seed < 8; ++seed) {
    LocalSearch search(s.sim, &batch);
    Rng rng(seed);
    Plan plan = DefaultPlan(s.graph);
    for (DeviceId& d : plan.device) d = static_cast<DeviceId>(rng.Uniform(2));
    const PlanScore start = Score(s.sim, plan);
    PlanScore score = start;
    search.Polish(&plan, &score, rng, 1 + static_cast<int64_t>(seed) * 3);
    EXPECT_LE(score.step_time_us, start.step_time_us) << "seed " << seed;
    EXPECT_DOUBLE_EQ(Score(s.sim, plan).step_time_us, score.step_time_us) << "seed " << seed;
  }
}

TEST(LocalSearchTest, RespectsTheEvaluationBudget) {
  ToyProblem s;
  BatchSimulator batch(s.sim, 1);
  LocalSearch search(s.sim, &batch);
  Plan plan = DefaultPlan(s.graph);
  PlanScore score = Score(s.sim, plan);
  Rng rng(3);
  const LocalSearchStats stats = search.Polish(&plan, &score, rng, 5);
  EXPECT_LE(stats.evaluations, 5);
}

TEST(LocalSearchTest, IsDeterministic) {
  ToyProblem s;
  BatchSimulator batch(s.sim, 2);
  std::vector<DeviceId> devices[2];
  for (int run = 0; run < 2; ++run) {
    LocalSearch search(s.sim, &batch);
    Plan plan = DefaultPlan(s.graph);
    PlanScore score = Score(s.sim, plan);
    Rng rng(7);
    search.Polish(&plan, &score, rng, 0);
    devices[run] = plan.device;
  }
  EXPECT_EQ(devices[0], devices[1]);
}

}  // namespace
}  // namespace graphopt
