// Every baseline planned and scored once (rl/baseline_scores.h).
#include "rl/baseline_scores.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using RnnToy = testing::SmallRnnToy;

TEST(BaselineScoresTest, EveryBaselineThenItsFusedVariantInOrderAsRunBaselinePlansThem) {
  const RnnToy toy;
  BaselineScoring scoring;
  scoring.fused = true;
  scoring.seed = 3;
  std::vector<std::string> seen;
  const std::vector<BaselineScore> scores = ScoreBaselines(toy.sim, scoring, [&](const BaselineScore& b, Plan* plan) {
    seen.push_back(b.method);
    ASSERT_NE(plan, nullptr) << b.method;
    BaselineOptions options;
    options.fusion = !b.plain;
    options.seed = 3;
    const std::string method = b.plain ? b.method : b.method.substr(0, b.method.find('+'));
    const Plan expected = RunBaseline(method, toy.graph, toy.cluster, toy.sim.cost_model(), options).value();
    EXPECT_EQ(plan->device, expected.device) << b.method;
    EXPECT_EQ(plan->fuse_with_producer, expected.fuse_with_producer) << b.method;
    EXPECT_EQ(b.score.step_time_us, toy.sim.Simulate(expected)->step_time_us) << b.method;
  });
  // tf-default decides its own fusion: no fused variant (the same plan).
  std::vector<std::string> expected;
  for (const std::string& name : BaselineNames()) {
    expected.push_back(name);
    if (name != "tf-default") expected.push_back(name + "+fusion");
  }
  EXPECT_EQ(seen, expected);
  ASSERT_EQ(scores.size(), expected.size());
  for (size_t i = 0; i < scores.size(); ++i) {
    EXPECT_EQ(scores[i].method, expected[i]);
    EXPECT_EQ(scores[i].plain, expected[i].find('+') == std::string::npos);
    EXPECT_TRUE(scores[i].error.empty()) << scores[i].error;
  }
}

TEST(BaselineScoresTest, TheScorerGivenScoresAndTheBestPlainOneThatFitsWins) {
  const RnnToy toy;
  BaselineScoring scoring;
  scoring.methods = {"single", "expert", "heft"};
  scoring.fused = true;
  int calls = 0;
  // A scorer that makes expert the fastest and heft not fit.
  scoring.score = [&](const Plan& plan) -> StatusOr<SimResult> {
    ++calls;
    GO_ASSIGN_OR_RETURN(SimResult r, toy.sim.Simulate(plan));
    r.step_time_us = 1000 + calls;
    if (calls == 3) r.step_time_us = 10;                                  // expert
    if (calls >= 5) r.oom = true;  // heft, heft+fusion
    return r;
  };
  const std::vector<BaselineScore> scores = ScoreBaselines(toy.sim, scoring);
  EXPECT_EQ(calls, 6);
  ASSERT_EQ(scores.size(), 6u);
  const BaselineScore* best = BestPlainBaseline(scores);
  ASSERT_NE(best, nullptr);
  EXPECT_EQ(best->method, "expert");
  EXPECT_EQ(best->score.step_time_us, 10);
  EXPECT_FALSE(scores[4].score.fits());

  // An unknown baseline is an error in its row, the others are still scored.
  scoring.methods = {"oracle", "single"};
  scoring.fused = false;
  scoring.score = nullptr;
  const std::vector<BaselineScore> with_error = ScoreBaselines(toy.sim, scoring);
  ASSERT_EQ(with_error.size(), 2u);
  EXPECT_NE(with_error[0].error.find("unknown baseline \"oracle\""), std::string::npos) << with_error[0].error;
  EXPECT_TRUE(with_error[0].plain);
  EXPECT_EQ(BestPlainBaseline(with_error)->method, "single");
  EXPECT_EQ(BestPlainBaseline({}), nullptr);
}

}  // namespace
}  // namespace graphopt
