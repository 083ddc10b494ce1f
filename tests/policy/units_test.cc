// Tests of the policy's partition units (policy/units.h) and of their use in the
// policy input (PolicyInputOptions::max_units).
#include "policy/units.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "policy/features.h"
#include "policy_test_util.h"
#include "policy/actions.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::MlpTrainingGraph;

std::vector<double> OpTimes(const Graph& g) {
  const Cluster c = testing::GpuCluster(1);
  std::vector<double> t;
  for (const Op& op : g.ops()) t.push_back(CostModel().OpTimeUs(op, c.device(0)));
  return t;
}

TEST(UnitsTest, PartsAreInRangeKeepGroupsWholeAndAreDeterministic) {
  const Graph g = MlpTrainingGraph(4);
  auto units = PartitionUnits(g, OpTimes(g), 4);
  ASSERT_TRUE(units.ok()) << units.status().message();
  ASSERT_EQ(units->size(), static_cast<size_t>(g.num_ops()));
  std::set<int32_t> used(units->begin(), units->end());
  EXPECT_GE(used.size(), 2u);
  for (int32_t u : used) {
    EXPECT_GE(u, 0);
    EXPECT_LT(u, 4);
  }
  for (OpId a = 0; a < g.num_ops(); ++a) {
    for (OpId b = a + 1; b < g.num_ops(); ++b) {
      const int32_t group = g.op(a).colocation_group;
      if (group != kNoId && group == g.op(b).colocation_group) {
        EXPECT_EQ((*units)[static_cast<size_t>(a)], (*units)[static_cast<size_t>(b)]) << g.op(a).name;
      }
    }
  }
  auto again = PartitionUnits(g, OpTimes(g), 4);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*units, *again);
}

// Two independent MLP training steps in one graph: no unit may hold ops of both,
// so that a sample can put the two models on two devices by deciding a few units.
TEST(UnitsTest, IndependentModelsNeverShareAUnit) {
  Graph g = MlpTrainingGraph(4);
  const int half = g.num_ops();
  {
    const Graph second = MlpTrainingGraph(4);
    std::vector<TensorId> tensor_map(static_cast<size_t>(second.num_tensors()));
    for (TensorId t = 0; t < second.num_tensors(); ++t) {
      tensor_map[static_cast<size_t>(t)] = g.AddTensor("m2/" + second.tensor(t).name, second.tensor(t).shape);
    }
    std::vector<int32_t> group_map;
    for (const Op& op : second.ops()) {
      Op copy = op;
      copy.name = "m2/" + op.name;
      for (TensorId& t : copy.inputs) t = tensor_map[static_cast<size_t>(t)];
      for (TensorId& t : copy.outputs) t = tensor_map[static_cast<size_t>(t)];
      if (copy.forward_op != kNoId) copy.forward_op += half;
      if (op.colocation_group != kNoId) {
        if (static_cast<size_t>(op.colocation_group) >= group_map.size()) group_map.resize(op.colocation_group + 1, kNoId);
        int32_t& mapped = group_map[static_cast<size_t>(op.colocation_group)];
        if (mapped == kNoId) mapped = g.NewColocationGroup();
        copy.colocation_group = mapped;
      }
      g.AddOp(std::move(copy), /*compute_cost=*/false);
    }
  }
  ASSERT_EQ(g.num_ops(), 2 * half);
  auto units = PartitionUnits(g, OpTimes(g), 4);
  ASSERT_TRUE(units.ok()) << units.status().message();
  std::set<int32_t> first(units->begin(), units->begin() + half), second(units->begin() + half, units->end());
  for (int32_t u : first) EXPECT_EQ(second.count(u), 0u) << "unit " << u << " holds ops of both models";
}

TEST(UnitsTest, PolicyInputHasAtMostMaxUnitsNumberedByFirstNode) {
  const Graph g = MlpTrainingGraph(4);
  const Cluster c = testing::GpuCluster(2);
  PolicyInputOptions options;
  options.max_units = 6;
  auto in = BuildPolicyInput(g, c, CostModel(), options);
  ASSERT_TRUE(in.ok()) << in.status().message();
  EXPECT_GE(in->num_units, 2);
  EXPECT_LE(in->num_units, 6);
  EXPECT_EQ(in->unit_features.size(), static_cast<size_t>(in->num_units) * kNumUnitFeatures);
  EXPECT_EQ(in->unit_offsets.back(), g.num_ops());
  for (int u = 0; u < in->num_units; ++u) {
    EXPECT_LT(in->unit_offsets[static_cast<size_t>(u)], in->unit_offsets[static_cast<size_t>(u) + 1]) << "empty unit";
  }
  for (int u = 1; u < in->num_units; ++u) {
    EXPECT_LT(in->unit_nodes[static_cast<size_t>(in->unit_offsets[static_cast<size_t>(u) - 1])],
              in->unit_nodes[static_cast<size_t>(in->unit_offsets[static_cast<size_t>(u)])]);
  }
  // No more units than colocation groups allow: max_units above that keeps the groups.
  PolicyInputOptions wide;
  wide.max_units = 100000;
  auto groups = BuildPolicyInput(g, c, CostModel(), wide);
  auto plain = BuildPolicyInput(g, c, CostModel(), {});
  ASSERT_TRUE(groups.ok() && plain.ok());
  EXPECT_EQ(groups->node_unit, plain->node_unit);
}

// Units split by a plan: the plan is expressible exactly, every unit lies on one of
// its devices, colocation groups stay whole, and only the plan's cuts are added.
TEST(UnitsTest, SplitByAPlanMakesThePlanExpressible) {
  const Graph g = MlpTrainingGraph(4);
  const Cluster c = testing::GpuCluster(3);
  PolicyInputOptions options;
  options.max_units = 4;
  auto coarse = BuildPolicyInput(g, c, CostModel(), options);
  ASSERT_TRUE(coarse.ok()) << coarse.status().message();
  // A plan that cuts the topological order in three (groups kept together).
  Plan plan;
  plan.device.assign(static_cast<size_t>(g.num_ops()), 0);
  for (int i = 0; i < g.num_ops(); ++i)
    plan.device[static_cast<size_t>(coarse->order[static_cast<size_t>(i)])] = 3 * i / g.num_ops();
  RespectColocation(g, &plan);
  options.split_by_device = plan.device;
  auto split = BuildPolicyInput(g, c, CostModel(), options);
  ASSERT_TRUE(split.ok()) << split.status().message();
  EXPECT_GT(split->num_units, coarse->num_units);
  EXPECT_LE(split->num_units, 3 * coarse->num_units);
  std::set<std::pair<int32_t, DeviceId>> pairs;
  for (int i = 0; i < g.num_ops(); ++i)
    pairs.insert({coarse->node_unit[static_cast<size_t>(i)], plan.device[static_cast<size_t>(split->order[static_cast<size_t>(i)])]});
  EXPECT_EQ(static_cast<size_t>(split->num_units), pairs.size());  // one unit per (unit, device) pair
  // Each unit where its first op is: exactly the plan with the split units, not without.
  auto express = [&](const PolicyInput& in) {
    Actions a = DefaultActions(in);
    for (int u = 0; u < in.num_units; ++u) {
      const int32_t first = in.unit_nodes[static_cast<size_t>(in.unit_offsets[static_cast<size_t>(u)])];
      a.unit_device[static_cast<size_t>(u)] = plan.device[static_cast<size_t>(in.order[static_cast<size_t>(first)])];
    }
    return ToPlan(g, c, in, a).device;
  };
  EXPECT_EQ(express(*split), plan.device);
  EXPECT_NE(express(*coarse), plan.device);
  EXPECT_EQ(split->unit_features.size(), static_cast<size_t>(split->num_units) * kNumUnitFeatures);
  // A placement of the wrong length is an error.
  options.split_by_device.pop_back();
  EXPECT_FALSE(BuildPolicyInput(g, c, CostModel(), options).ok());
}

}  // namespace
}  // namespace graphopt
