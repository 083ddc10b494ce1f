// Tests of the GO policy's per-unit scheduling and fusion decisions
// (GoPolicyConfig::unit_tasks, policy/go_decode.cc) on a tiny MLP graph cut into a
// few units, where every expectation is computed from the logits by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/rng.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "policy_test_util.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::GpuCluster;
using testing::MlpTrainingGraph;

GoPolicyConfig UnitConfig() {
  GoPolicyConfig c;
  c.hidden = 16;
  c.heads = 2;
  c.segment = 8;
  c.memory = 4;
  c.relative_buckets = 8;
  c.priority_levels = 4;
  c.level_prior = 0;  // a uniform start: every level is drawn
  c.seed = 5;
  EXPECT_TRUE(c.unit_tasks);  // the default
  return c;
}

struct Fixture {
  Graph graph;
  Cluster cluster;
  PolicyInput input;
  PolicyTensors tensors;
};

Fixture MakeFixture(int devices, int max_units = 6) {
  Fixture f;
  f.graph = MlpTrainingGraph(2);
  f.cluster = GpuCluster(devices);
  PolicyInputOptions options;
  options.max_units = max_units;
  auto input = BuildPolicyInput(f.graph, f.cluster, CostModel(), options);
  EXPECT_TRUE(input.ok()) << input.status().message();
  f.input = std::move(*input);
  f.tensors = ToTensors(f.input);
  return f;
}

int UnitOf(const Fixture& f, int node) { return f.input.node_unit[static_cast<size_t>(node)]; }

// The unit's fusion decision as the sample broadcast it: the flag of one of its
// fusible ops whose producer shares its device (-1 if there is none).
int UnitFuse(const Fixture& f, const Actions& a, int unit) {
  for (int i = 0; i < f.input.num_ops; ++i) {
    if (UnitOf(f, i) != unit || !f.input.fusable[static_cast<size_t>(i)]) continue;
    const int producer = f.input.fusion_producer[static_cast<size_t>(i)];
    if (producer < 0 || a.unit_device[static_cast<size_t>(UnitOf(f, producer))] != a.unit_device[static_cast<size_t>(unit)])
      continue;
    return a.fuse[static_cast<size_t>(f.input.order[static_cast<size_t>(i)])];
  }
  return -1;
}

TEST(GoDecodeTest, UnitsHaveSeveralOps) {
  const Fixture f = MakeFixture(3);
  ASSERT_GE(f.input.num_units, 3);
  EXPECT_LT(f.input.num_units * 3, f.input.num_ops);
}

TEST(GoDecodeTest, OneSchedulingAndOneFusionDecisionPerUnit) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(3);
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(9);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 12);
  std::set<int> levels_seen;
  for (const Actions& a : batch) {
    ASSERT_EQ(a.priority_level.size(), static_cast<size_t>(f.input.num_ops));
    for (int i = 0; i < f.input.num_ops; ++i) {
      const size_t op = static_cast<size_t>(f.input.order[static_cast<size_t>(i)]);
      const int unit = UnitOf(f, i);
      const size_t first = static_cast<size_t>(
          f.input.order[static_cast<size_t>(f.input.unit_nodes[static_cast<size_t>(f.input.unit_offsets[unit])])]);
      EXPECT_EQ(a.priority_level[op], a.priority_level[first]) << "op " << op << " of unit " << unit;
      levels_seen.insert(a.priority_level[op]);
      if (!f.input.fusable[static_cast<size_t>(i)]) {
        EXPECT_EQ(a.fuse[op], 0);
        continue;
      }
      const int producer = f.input.fusion_producer[static_cast<size_t>(i)];
      const bool same_device =
          producer >= 0 && a.unit_device[static_cast<size_t>(UnitOf(f, producer))] == a.unit_device[static_cast<size_t>(unit)];
      if (!same_device) {
        EXPECT_EQ(a.fuse[op], 0);
      } else {
        EXPECT_EQ(a.fuse[op], UnitFuse(f, a, unit));  // every eligible op of the unit follows its unit
      }
    }
    EXPECT_TRUE(ValidatePlan(f.graph, f.cluster, ToPlan(f.graph, f.cluster, f.input, a)).ok());
  }
  EXPECT_GT(levels_seen.size(), 1u);
}

TEST(GoDecodeTest, LogProbIsTheSumOverUnitDecisions) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(3);
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(13);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 4);
  const Evaluation e = policy->Evaluate(f.tensors, out, batch);
  for (size_t s = 0; s < batch.size(); ++s) {
    const Actions& a = batch[s];
    std::vector<int64_t> units(a.unit_device.begin(), a.unit_device.end());
    const TaskLogits t = policy->DecodeTasks(f.tensors, out, torch::tensor(units, torch::kLong).view({1, -1}));
    ASSERT_TRUE(t.per_unit);
    ASSERT_EQ(t.priority_logits.sizes(), (std::vector<int64_t>{1, f.input.num_units, 4}));
    const torch::Tensor sched = torch::log_softmax(t.priority_logits[0], 1).detach();
    double scheduling = 0, fusion = 0;
    int fusion_decisions = 0;
    for (int k = 0; k < f.input.num_units; ++k) {
      const int first = f.input.unit_nodes[static_cast<size_t>(f.input.unit_offsets[static_cast<size_t>(k)])];
      scheduling += sched[k][a.priority_level[static_cast<size_t>(f.input.order[static_cast<size_t>(first)])]].item<double>();
      const int flag = UnitFuse(f, a, k);
      EXPECT_EQ(t.fusion_mask[0][k].item<bool>(), flag >= 0) << "unit " << k;
      if (flag < 0) continue;
      const double l = t.fusion_logits[0][k].item<double>();
      fusion += flag ? -std::log1p(std::exp(-l)) : -std::log1p(std::exp(l));
      ++fusion_decisions;
    }
    const int64_t i = static_cast<int64_t>(s);
    EXPECT_NEAR(e.scheduling_log_prob[i].item<double>(), scheduling, 1e-4);
    EXPECT_NEAR(e.fusion_log_prob[i].item<double>(), fusion, 1e-4);
    EXPECT_EQ(e.scheduling_decisions[i].item<double>(), f.input.num_units);
    EXPECT_EQ(e.fusion_decisions[i].item<double>(), fusion_decisions);
  }
  // Differentiable: the heads get a gradient.
  e.log_prob.sum().backward();
  for (const auto& p : policy->named_parameters()) {
    if (p.key().rfind("priority_", 0) == 0 || p.key().rfind("fusion_", 0) == 0) {
      ASSERT_TRUE(p.value().grad().defined()) << p.key();
      EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0) << p.key();
    }
  }
}

TEST(GoDecodeTest, GreedyTakesEachUnitsMostLikelyDecisions) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(2);
  const PolicyOutput out = policy->forward(f.tensors);
  const Actions a = policy->Greedy(f.tensors, out);
  std::vector<int64_t> units(a.unit_device.begin(), a.unit_device.end());
  const TaskLogits t = policy->DecodeTasks(f.tensors, out, torch::tensor(units, torch::kLong).view({1, -1}));
  const torch::Tensor best_level = t.priority_logits[0].argmax(1);
  for (int i = 0; i < f.input.num_ops; ++i) {
    const int k = UnitOf(f, i);
    EXPECT_EQ(a.priority_level[static_cast<size_t>(f.input.order[static_cast<size_t>(i)])], best_level[k].item<int64_t>());
  }
  for (int k = 0; k < f.input.num_units; ++k) {
    const int flag = UnitFuse(f, a, k);
    if (flag < 0) continue;
    EXPECT_EQ(flag == 1, t.fusion_logits[0][k].item<float>() > 0) << "unit " << k;
  }
}

TEST(GoDecodeTest, UnitFusionCountsOnlyWithAProducerOnTheSameDevice) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(2);
  const PolicyOutput out = policy->forward(f.tensors);
  const int64_t u = f.input.num_units;
  const torch::Tensor all0 = torch::zeros({1, u}, torch::kLong);
  torch::Tensor alternate = all0.clone();
  for (int64_t k = 1; k < u; k += 2) alternate[0][k] = 1;
  // All on one device: a unit decides fusion iff it has a fusible op.
  EXPECT_TRUE(torch::equal(policy->DecodeTasks(f.tensors, out, all0).fusion_mask[0], f.tensors.unit_fusable));
  // Alternating devices: by hand, from the ops' producers.
  const torch::Tensor mask = policy->DecodeTasks(f.tensors, out, alternate).fusion_mask[0];
  for (int k = 0; k < u; ++k) {
    bool expected = false;
    for (int i = 0; i < f.input.num_ops; ++i) {
      const int producer = f.input.fusion_producer[static_cast<size_t>(i)];
      if (UnitOf(f, i) == k && f.input.fusable[static_cast<size_t>(i)] && producer >= 0 &&
          UnitOf(f, producer) % 2 == k % 2)
        expected = true;
    }
    EXPECT_EQ(mask[k].item<bool>(), expected) << "unit " << k;
  }
}

TEST(GoDecodeTest, ImitatedPlansAreReadPerUnit) {
  // A plan from elsewhere (PlanToActions) fusing one op of a unit counts as the unit's
  // decision to fuse; its level is its first op's.
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(2);
  const PolicyOutput out = policy->forward(f.tensors);
  Plan plan;
  plan.device.assign(static_cast<size_t>(f.graph.num_ops()), 0);
  plan.priority.assign(static_cast<size_t>(f.graph.num_ops()), 0.0);
  plan.fuse_with_producer.assign(static_cast<size_t>(f.graph.num_ops()), 0);
  int fused_unit = -1;
  for (int i = 0; i < f.input.num_ops && fused_unit < 0; ++i) {
    if (f.input.fusable[static_cast<size_t>(i)] && f.input.fusion_producer[static_cast<size_t>(i)] >= 0) {
      plan.fuse_with_producer[static_cast<size_t>(f.input.order[static_cast<size_t>(i)])] = 1;
      fused_unit = UnitOf(f, i);
    }
  }
  ASSERT_GE(fused_unit, 0);
  Actions a = DefaultActions(f.input);
  a.fuse.assign(plan.fuse_with_producer.begin(), plan.fuse_with_producer.end());
  a.priority_level.assign(static_cast<size_t>(f.input.num_ops), 2);
  const Evaluation e = policy->Evaluate(f.tensors, out, {a});
  const TaskLogits t = policy->DecodeTasks(f.tensors, out, torch::zeros({1, f.input.num_units}, torch::kLong));
  const torch::Tensor sched = torch::log_softmax(t.priority_logits[0], 1).detach();
  double scheduling = 0, fusion = 0;
  for (int k = 0; k < f.input.num_units; ++k) {
    scheduling += sched[k][2].item<double>();
    if (!t.fusion_mask[0][k].item<bool>()) continue;
    const double l = t.fusion_logits[0][k].item<double>();
    fusion += k == fused_unit ? -std::log1p(std::exp(-l)) : -std::log1p(std::exp(l));
  }
  EXPECT_NEAR(e.scheduling_log_prob[0].item<double>(), scheduling, 1e-4);
  EXPECT_NEAR(e.fusion_log_prob[0].item<double>(), fusion, 1e-4);
}

}  // namespace
}  // namespace graphopt
