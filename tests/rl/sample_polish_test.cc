// SamplePolish: which sample a descent starts from, exploring and imitating, and its
// checkpoint part.
#include "rl/sample_polish.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "rl_test_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using testing::ChainsToy;

PlanScore Score(const Simulator& sim, const Plan& plan) { return PlanScore::Of(*sim.Simulate(plan)); }

// Every op on device 0: twice the optimum of the two chains.
Plan OneDevice(const Graph& graph) { return DefaultPlan(graph, 0); }

// (A slice of one evaluation only re-scores the plan: no move is tried.)
TEST(SamplePolishTest, ExploringTheDescentGoesOnUntilTheSampleChanges) {
  const ChainsToy toy;
  BatchSimulator batch(toy.sim, 1);
  SamplePolish descent(toy.sim, &batch, LocalSearchConfig{}, nullptr);
  EXPECT_FALSE(descent.started());
  const Plan sample = OneDevice(toy.graph);
  const PlanScore sampled = Score(toy.sim, sample);
  Rng rng(1);
  auto first = descent.Step(sample, sampled, true, rng, 4, nullptr);
  ASSERT_TRUE(first.has_value());
  EXPECT_GT(first->evaluations, 1);
  EXPECT_LE(first->evaluations, 4);
  EXPECT_TRUE(descent.started());
  // The same sample again: the descent goes on from its own plan, to convergence.
  ASSERT_TRUE(descent.Step(sample, sampled, true, rng, 0, nullptr).has_value());
  EXPECT_TRUE(descent.score().BetterThan(sampled));
  EXPECT_FALSE(descent.Step(sample, sampled, true, rng, 0, nullptr).has_value());  // converged
  // Forgotten, the next step starts again from the sample it is given.
  descent.Forget();
  EXPECT_FALSE(descent.started());
  ASSERT_TRUE(descent.Step(sample, sampled, true, rng, 1, nullptr).has_value());
  EXPECT_EQ(descent.plan().device, sample.device);
}

TEST(SamplePolishTest, ImitatingOnlyABetterSampleRestartsTheDescent) {
  const ChainsToy toy;
  BatchSimulator batch(toy.sim, 1);
  SamplePolish descent(toy.sim, &batch, LocalSearchConfig{}, nullptr);
  Rng rng(2);
  const Plan bad = OneDevice(toy.graph);
  const PlanScore bad_score = Score(toy.sim, bad);
  ASSERT_TRUE(descent.Step(bad, bad_score, false, rng, 1, nullptr).has_value());
  Plan good = OneDevice(toy.graph);
  for (OpId o = 0; o < toy.graph.num_ops(); ++o) {
    if (toy.graph.op(o).name.rfind("c1", 0) == 0) good.device[static_cast<size_t>(o)] = 1;
  }
  const PlanScore good_score = Score(toy.sim, good);
  ASSERT_TRUE(good_score.BetterThan(bad_score));
  ASSERT_TRUE(descent.Step(good, good_score, false, rng, 1, nullptr).has_value());
  EXPECT_EQ(descent.plan().device, good.device);
  ASSERT_TRUE(descent.Step(bad, bad_score, false, rng, 1, nullptr).has_value());
  EXPECT_EQ(descent.plan().device, good.device);  // a worse sample does not take over
}

TEST(SamplePolishTest, ACheckpointedDescentGoesOnAsTheOriginal) {
  const ChainsToy toy;
  BatchSimulator batch(toy.sim, 1);
  SamplePolish descent(toy.sim, &batch, LocalSearchConfig{}, nullptr);
  const Plan sample = OneDevice(toy.graph);
  const PlanScore sampled = Score(toy.sim, sample);
  Rng rng(3);
  ASSERT_TRUE(descent.Step(sample, sampled, true, rng, 3, nullptr).has_value());
  const testing::ScratchDir scratch("sample_polish");
  auto saved = descent.Save(CheckpointStore(scratch.path()));
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  SamplePolish resumed(toy.sim, &batch, LocalSearchConfig{}, nullptr);
  const Status loaded = resumed.Load(*saved, CheckpointStore(scratch.path()), "state.json: descent");
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(resumed.plan().device, descent.plan().device);
  Rng a(4), b(4);
  auto original_next = descent.Step(sample, sampled, true, a, 3, nullptr);
  auto resumed_next = resumed.Step(sample, sampled, true, b, 3, nullptr);
  ASSERT_EQ(original_next.has_value(), resumed_next.has_value());
  EXPECT_EQ(resumed.plan().device, descent.plan().device);
  EXPECT_EQ(resumed.score().step_time_us, descent.score().step_time_us);
  // Without its plan the part is refused, naming the file.
  std::remove((scratch.path() + "/descent_plan.json").c_str());
  SamplePolish lost(toy.sim, &batch, LocalSearchConfig{}, nullptr);
  const Status missing = lost.Load(*saved, CheckpointStore(scratch.path()), "state.json: descent");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("descent_plan.json"), std::string::npos) << missing.message();
  EXPECT_FALSE(lost.started());
}

}  // namespace
}  // namespace graphopt
