// Tests of the GO policy's decoding with GoPolicyConfig::unit_tasks
// (policy/go_decode.cc): one priority level per unit, per-op fusion whose logits
// carry a term of the op's unit and its placement; on a tiny MLP graph cut into a few
// units, every expectation computed from the logits by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/rng.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "policy_fixture.h"
#include "policy_test_util.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::GpuCluster;
using testing::MlpTrainingGraph;

GoPolicyConfig UnitConfig() {
  GoPolicyConfig c = testing::TinyPolicyConfig(5);
  c.level_prior = 0;  // a uniform start: every level is drawn
  EXPECT_TRUE(c.unit_tasks);  // the default
  return c;
}

using Fixture = testing::PolicyFixture;

Fixture MakeFixture(int devices, int max_units = 6) {
  PolicyInputOptions options;
  options.max_units = max_units;
  return testing::MakePolicyFixture(MlpTrainingGraph(2), GpuCluster(devices), options);
}

int UnitOf(const Fixture& f, int node) { return f.input.node_unit[static_cast<size_t>(node)]; }

// Per task: exp(mean log-probability per decision) of the first sample; the least
// over the tasks that decide something. 2 placements at log 0.5 each, 100 levels at
// log 0.99 each, no fusion: 0.5, whatever the 100 levels (a mean over all 102
// decisions would be 0.98).
TEST(GoDecodeTest, LeastTaskProbabilityIsTheWorstImitatedTask) {
  Evaluation e;
  e.placement_log_prob = torch::tensor({2 * std::log(0.5), 0.0});
  e.placement_decisions = torch::tensor({2.0, 2.0});
  e.scheduling_log_prob = torch::tensor({100 * std::log(0.99), 0.0});
  e.scheduling_decisions = torch::tensor({100.0, 100.0});
  e.fusion_log_prob = torch::tensor({0.0, 0.0});
  e.fusion_decisions = torch::tensor({0.0, 0.0});
  EXPECT_NEAR(e.LeastTaskProbability(), 0.5, 1e-6);
  e.placement_decisions = torch::tensor({0.0, 0.0});
  e.placement_log_prob = torch::tensor({0.0, 0.0});
  EXPECT_NEAR(e.LeastTaskProbability(), 0.99, 1e-6);
  e.scheduling_decisions = torch::tensor({0.0, 0.0});
  e.scheduling_log_prob = torch::tensor({0.0, 0.0});
  EXPECT_EQ(e.LeastTaskProbability(), 1.0);
}

TEST(GoDecodeTest, UnitsHaveSeveralOps) {
  const Fixture f = MakeFixture(3);
  ASSERT_GE(f.input.num_units, 3);
  EXPECT_LT(f.input.num_units * 3, f.input.num_ops);
}

TEST(GoDecodeTest, OneLevelPerUnitAndLegalPerOpFusion) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(3);
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(9);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 12);
  std::set<int> levels_seen;
  int fused = 0, unfused = 0;
  for (const Actions& a : batch) {
    ASSERT_EQ(a.priority_level.size(), static_cast<size_t>(f.input.num_ops));
    for (int i = 0; i < f.input.num_ops; ++i) {
      const size_t op = static_cast<size_t>(f.input.order[static_cast<size_t>(i)]);
      const int unit = UnitOf(f, i);
      const size_t first = static_cast<size_t>(
          f.input.order[static_cast<size_t>(f.input.unit_nodes[static_cast<size_t>(f.input.unit_offsets[unit])])]);
      EXPECT_EQ(a.priority_level[op], a.priority_level[first]) << "op " << op << " of unit " << unit;
      levels_seen.insert(a.priority_level[op]);
      const int producer = f.input.fusion_producer[static_cast<size_t>(i)];
      const bool legal = f.input.fusable[static_cast<size_t>(i)] && producer >= 0 &&
                         a.unit_device[static_cast<size_t>(UnitOf(f, producer))] == a.unit_device[static_cast<size_t>(unit)];
      if (!legal) {
        EXPECT_EQ(a.fuse[op], 0);
      }
      if (legal) (a.fuse[op] ? fused : unfused)++;
    }
    EXPECT_TRUE(ValidatePlan(f.graph, f.cluster, ToPlan(f.graph, f.cluster, f.input, a)).ok());
  }
  EXPECT_GT(levels_seen.size(), 1u);
  EXPECT_GT(fused, 0);  // per-op draws: both outcomes occur
  EXPECT_GT(unfused, 0);
}

// Coupled sampling through the policy: with placement logits giving every unit half
// its mass on device 0 and a quarter on each other device, every coupled sample puts
// all units on one device and independent ones rarely do; every plan is valid, the
// devices of the coupled batch follow the logits, and the same rng gives the same batch.
TEST(GoDecodeTest, CoupledSamplesMoveUnitsTogether) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(3);
  ASSERT_GE(f.input.num_units, 4);
  PolicyOutput out = policy->forward(f.tensors);
  out.placement_logits = torch::log(torch::tensor({0.5f, 0.25f, 0.25f})).repeat({f.input.num_units, 1});
  auto together = [](const std::vector<Actions>& batch) {
    int n = 0;
    for (const Actions& a : batch) {
      n += std::all_of(a.unit_device.begin(), a.unit_device.end(), [&](int32_t d) { return d == a.unit_device[0]; });
    }
    return n;
  };
  Rng rng(21), again(21);
  const std::vector<Actions> coupled = policy->Sample(f.tensors, out, rng, 64, 1.0, /*coupled=*/true);
  const std::vector<Actions> same = policy->Sample(f.tensors, out, again, 64, 1.0, /*coupled=*/true);
  const std::vector<Actions> independent = policy->Sample(f.tensors, out, rng, 64);
  for (size_t s = 0; s < coupled.size(); ++s) {
    EXPECT_TRUE(coupled[s] == same[s]);
    EXPECT_TRUE(ValidatePlan(f.graph, f.cluster, ToPlan(f.graph, f.cluster, f.input, coupled[s])).ok());
  }
  // Every unit has the same distribution, so one quantile gives each the same device;
  // independent draws agree on all units with probability 0.5^U + 2 * 0.25^U.
  EXPECT_EQ(together(coupled), 64);
  const int on_first = static_cast<int>(std::count_if(coupled.begin(), coupled.end(), [](const Actions& a) { return a.unit_device[0] == 0; }));
  EXPECT_NEAR(on_first, 32, 10);
  EXPECT_LT(together(independent), 16);
}

TEST(GoDecodeTest, LogProbIsTheSumOverUnitLevelsAndOpFusions) {
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
    ASSERT_TRUE(t.scheduling_per_unit);
    ASSERT_EQ(t.priority_logits.sizes(), (std::vector<int64_t>{1, f.input.num_units, 4}));
    ASSERT_EQ(t.fusion_logits.sizes(), (std::vector<int64_t>{1, f.input.num_ops}));
    const torch::Tensor sched = torch::log_softmax(t.priority_logits[0], 1).detach();
    double scheduling = 0, fusion = 0;
    int fusion_decisions = 0;
    for (int k = 0; k < f.input.num_units; ++k) {
      const int first = f.input.unit_nodes[static_cast<size_t>(f.input.unit_offsets[static_cast<size_t>(k)])];
      scheduling += sched[k][a.priority_level[static_cast<size_t>(f.input.order[static_cast<size_t>(first)])]].item<double>();
    }
    for (int i = 0; i < f.input.num_ops; ++i) {
      if (!t.fusion_mask[0][i].item<bool>()) continue;
      const double l = t.fusion_logits[0][i].item<double>();
      fusion += a.fuse[static_cast<size_t>(f.input.order[static_cast<size_t>(i)])] ? -std::log1p(std::exp(-l))
                                                                                   : -std::log1p(std::exp(l));
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
  for (int i = 0; i < f.input.num_ops; ++i) {
    const bool fuse = t.fusion_mask[0][i].item<bool>() && t.fusion_logits[0][i].item<float>() > 0;
    EXPECT_EQ(a.fuse[static_cast<size_t>(f.input.order[static_cast<size_t>(i)])] != 0, fuse) << "node " << i;
  }
}

// A fusion logit is the op's own term plus its unit's: moving one unit to another
// device shifts the logits of each unit's ops by one amount per unit (the unit's
// placement feedback; other units move too, as their devices' loads change), and
// the moved unit's shift is not zero.
TEST(GoDecodeTest, FusionLogitsCarryTheirUnitsPlacement) {
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(2);
  const PolicyOutput out = policy->forward(f.tensors);
  const int64_t u = f.input.num_units;
  const torch::Tensor all0 = torch::zeros({1, u}, torch::kLong);
  torch::Tensor moved = all0.clone();
  const int k = 1;
  moved[0][k] = 1;
  const TaskLogits a = policy->DecodeTasks(f.tensors, out, all0);
  const TaskLogits b = policy->DecodeTasks(f.tensors, out, moved);
  std::vector<std::vector<double>> shifts(static_cast<size_t>(u));
  int changed = 0;
  for (int i = 0; i < f.input.num_ops; ++i) {
    if (!a.fusion_mask[0][i].item<bool>() || !b.fusion_mask[0][i].item<bool>()) continue;
    const double d = b.fusion_logits[0][i].item<double>() - a.fusion_logits[0][i].item<double>();
    shifts[static_cast<size_t>(UnitOf(f, i))].push_back(d);
    if (UnitOf(f, i) == k) changed += std::abs(d) > 1e-6 ? 1 : 0;
  }
  for (int unit = 0; unit < u; ++unit) {
    for (double d : shifts[static_cast<size_t>(unit)])
      EXPECT_NEAR(d, shifts[static_cast<size_t>(unit)].front(), 1e-5) << "unit " << unit;
  }
  EXPECT_GT(changed, 0);
  // A fusible op whose producer is on another device never counts.
  for (int i = 0; i < f.input.num_ops; ++i) {
    const int producer = f.input.fusion_producer[static_cast<size_t>(i)];
    const bool legal = f.input.fusable[static_cast<size_t>(i)] && producer >= 0 &&
                       (UnitOf(f, producer) == k) == (UnitOf(f, i) == k);
    EXPECT_EQ(b.fusion_mask[0][i].item<bool>(), legal) << "node " << i;
  }
}

TEST(GoDecodeTest, ImitatedPlansAreReadPerUnit) {
  // A plan from elsewhere (PlanToActions) with levels differing inside a unit: the
  // unit's level is its first op's.
  GoPolicy policy(UnitConfig());
  const Fixture f = MakeFixture(2);
  const PolicyOutput out = policy->forward(f.tensors);
  Actions a = DefaultActions(f.input);
  for (int i = 0; i < f.input.num_ops; ++i) a.priority_level[static_cast<size_t>(f.input.order[static_cast<size_t>(i)])] = i % 4;
  const Evaluation e = policy->Evaluate(f.tensors, out, {a});
  const TaskLogits t = policy->DecodeTasks(f.tensors, out, torch::zeros({1, f.input.num_units}, torch::kLong));
  const torch::Tensor sched = torch::log_softmax(t.priority_logits[0], 1).detach();
  double scheduling = 0;
  for (int k = 0; k < f.input.num_units; ++k)
    scheduling += sched[k][f.input.unit_nodes[static_cast<size_t>(f.input.unit_offsets[static_cast<size_t>(k)])] % 4]
                      .item<double>();
  EXPECT_NEAR(e.scheduling_log_prob[0].item<double>(), scheduling, 1e-4);
}

}  // namespace
}  // namespace graphopt
