// Tests of the plans trainers build from sampled actions (rl/rollout.h): the
// precomputed PlanBuilder gives exactly ActionsToPlan's plans, in order, at any
// thread count, and its critical-path priorities are SetCriticalPathPriorities'.
#include "rl/rollout.h"

#include <gtest/gtest.h>

#include <vector>

#include "baselines/baseline.h"
#include "core/rng.h"
#include "models/registry.h"
#include "policy/features.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"

namespace graphopt {
namespace {

struct Case {
  Graph graph;
  Cluster cluster;
  PolicyInput input;
};

Case MakeCase() {
  Case c;
  auto graph = BuildBuiltinModel("gnmt:layers=2");
  EXPECT_TRUE(graph.ok()) << graph.status().message();
  c.graph = std::move(*graph);
  auto cluster = ClusterPreset("4xV100");
  EXPECT_TRUE(cluster.ok());
  c.cluster = std::move(*cluster);
  PolicyInputOptions options;
  options.max_units = 12;
  auto input = BuildPolicyInput(c.graph, c.cluster, CostModel(), options);
  EXPECT_TRUE(input.ok()) << input.status().message();
  c.input = std::move(*input);
  return c;
}

// Random placements, levels and fusion flags.
std::vector<Actions> RandomActions(const PolicyInput& input, int count, uint64_t seed) {
  Rng rng(seed);
  std::vector<Actions> batch;
  for (int s = 0; s < count; ++s) {
    Actions a = DefaultActions(input);
    for (int32_t& d : a.unit_device) d = static_cast<int32_t>(rng.UniformInt(0, input.num_devices - 1));
    for (int32_t& l : a.priority_level) l = static_cast<int32_t>(rng.UniformInt(0, 3));
    for (uint8_t& f : a.fuse) f = rng.Bernoulli(0.5) ? 1 : 0;
    batch.push_back(std::move(a));
  }
  return batch;
}

bool SamePlan(const Plan& a, const Plan& b) {
  return a.device == b.device && a.priority == b.priority && a.fuse_with_producer == b.fuse_with_producer;
}

TEST(RolloutTest, PlanBuilderGivesActionsToPlansPlansAtAnyThreadCount) {
  const Case c = MakeCase();
  const CostModel cost;
  const std::vector<Actions> batch = RandomActions(c.input, 7, 3);
  for (bool critical_path : {true, false}) {
    const PlanBuilder builder(c.graph, c.cluster, cost, c.input, critical_path);
    std::vector<Plan> expected;
    for (const Actions& a : batch) {
      expected.push_back(ActionsToPlan(c.graph, c.cluster, cost, c.input, a, critical_path));
      EXPECT_TRUE(ValidatePlan(c.graph, c.cluster, expected.back()).ok());
      EXPECT_TRUE(SamePlan(builder.Build(a), expected.back()));
    }
    for (int threads : {1, 2, 3, 16}) {
      const std::vector<Plan> plans = builder.BuildAll(batch, threads);
      ASSERT_EQ(plans.size(), batch.size());
      for (size_t i = 0; i < plans.size(); ++i) EXPECT_TRUE(SamePlan(plans[i], expected[i])) << "plan " << i;
    }
  }
  EXPECT_TRUE(PlanBuilder(c.graph, c.cluster, cost, c.input, true).BuildAll({}, 2).empty());
}

TEST(RolloutTest, LevelsComeFirstAndTheCriticalPathBreaksTies) {
  const Case c = MakeCase();
  const CostModel cost;
  Actions a = RandomActions(c.input, 1, 5)[0];
  const Plan plan = PlanBuilder(c.graph, c.cluster, cost, c.input, true).Build(a);
  Plan reference = ToPlan(c.graph, c.cluster, c.input, a);
  SetCriticalPathPriorities(c.graph, c.cluster, cost, &reference);
  for (OpId o = 0; o < c.graph.num_ops(); ++o) {
    const size_t i = static_cast<size_t>(o);
    EXPECT_EQ(plan.priority[i], reference.priority[i] + a.priority_level[i] * kPriorityLevelScale) << "op " << o;
  }
}

}  // namespace
}  // namespace graphopt
