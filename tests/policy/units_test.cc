// Tests of the policy's partition units (policy/units.h) and of their use in the
// policy input (PolicyInputOptions::max_units).
#include "policy/units.h"

#include <gtest/gtest.h>

#include <map>
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

// Layers "a" and "b", a Relu between them outside any layer, the input outside too.
TEST(LayerUnitsTest, UntaggedOpsTakeTheLayerOfAProducerElseOfAConsumer) {
  GraphBuilder b("two-layers");
  const TensorId x = b.Input("x", {4, 8});
  const int32_t a = b.BeginLayer("a");
  const TensorId m1 = b.MatMul(x, b.Variable("w1", {8, 8}));
  b.SetLayer(kNoId);
  const TensorId r = b.Relu(m1);
  const int32_t l2 = b.BeginLayer("b");
  b.MatMul(r, b.Variable("w2", {8, 8}));
  const Graph g = b.Finish();
  const std::vector<int32_t> layer = UnitLayers(g);
  EXPECT_EQ(layer[static_cast<size_t>(g.tensor(x).producer)], a);  // from its consumer
  EXPECT_EQ(layer[static_cast<size_t>(g.tensor(r).producer)], a);  // from its producer
  EXPECT_EQ(layer[static_cast<size_t>(g.tensor(m1).producer)], a);
  EXPECT_EQ(layer.back(), l2);
}

// Ranks follow the tags' order; an op without a layer takes one rank past the tagged
// ones, counted as one more layer only where such an op is left.
TEST(UnitLayersTest, RanksFollowTheTagsAndUntaggedOpsComeLast) {
  GraphBuilder b("ranks");
  const int32_t first = b.BeginLayer("first");
  const int32_t second = b.BeginLayer("second");
  b.SetLayer(second);
  const TensorId x = b.Input("x", {4, 8});
  const TensorId m2 = b.MatMul(x, b.Variable("w2", {8, 8}));
  b.SetLayer(first);
  const TensorId m1 = b.MatMul(b.Input("y", {4, 8}), b.Variable("w1", {8, 8}));
  const Graph tagged = b.Finish();
  const LayerRanks ranks = RankUnitLayers(tagged);
  ASSERT_LT(first, second);
  EXPECT_EQ(ranks.num_tagged, 2);
  EXPECT_EQ(ranks.num_layers, 2);
  EXPECT_EQ(ranks.op_rank[static_cast<size_t>(tagged.tensor(m1).producer)], 0);
  EXPECT_EQ(ranks.op_rank[static_cast<size_t>(tagged.tensor(m2).producer)], 1);

  GraphBuilder lone("lone");
  const TensorId a = lone.Input("a", {4, 8});
  lone.Relu(a);
  const Graph untagged = lone.Finish();
  const LayerRanks none = RankUnitLayers(untagged);
  EXPECT_EQ(none.num_tagged, 0);
  EXPECT_EQ(none.num_layers, 1);
  for (int32_t r : none.op_rank) EXPECT_EQ(r, 0);
}

// An unrolled recurrent net of `layers` tagged layers ("l0", "l1", ...) over `steps`
// time steps (h[k][t] = Tanh(h[k-1][t] W_k + h[k][t-1] U_k)), as a training step.
Graph RecurrentTrainingGraph(int layers, int steps) {
  GraphBuilder b("recurrent");
  std::vector<int32_t> tag;
  std::vector<TensorId> w, u, h;
  for (int k = 0; k < layers; ++k) {
    tag.push_back(b.BeginLayer("l" + std::to_string(k)));
    w.push_back(b.Variable("w" + std::to_string(k), {16, 16}));
    u.push_back(b.Variable("u" + std::to_string(k), {16, 16}));
    h.push_back(b.Input("h0_" + std::to_string(k), {4, 16}));
  }
  TensorId last = kNoId;
  for (int t = 0; t < steps; ++t) {
    b.SetLayer(kNoId);
    TensorId x = b.Input("x" + std::to_string(t), {4, 16});
    for (int k = 0; k < layers; ++k) {
      b.SetLayer(tag[static_cast<size_t>(k)]);
      h[static_cast<size_t>(k)] = b.Unary(OpKind::kTanh, b.Add(b.MatMul(x, w[static_cast<size_t>(k)]),
                                                              b.MatMul(h[static_cast<size_t>(k)], u[static_cast<size_t>(k)])));
      x = h[static_cast<size_t>(k)];
    }
    last = x;
  }
  b.SetLayer(kNoId);
  b.Reduce(OpKind::kReduceSum, last, {0, 1}, false);
  auto g = BuildTrainingGraph(b.Finish());
  if (!g.ok()) std::abort();
  return std::move(*g);
}

// No unit holds ops of two layers, so a plan of a layer per device is one the
// policy can express; the spare units cut the layers further.
TEST(LayerUnitsTest, UnitsNeverSpanTwoLayers) {
  const Graph g = RecurrentTrainingGraph(3, 6);
  const std::vector<int32_t> layer = UnitLayers(g);
  auto units = PartitionUnitsByLayer(g, OpTimes(g), 12);
  ASSERT_TRUE(units.ok()) << units.status().message();
  std::map<int32_t, int32_t> unit_layer;
  std::set<int32_t> layers_seen;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const int32_t u = (*units)[static_cast<size_t>(o)];
    ASSERT_GE(u, 0);
    ASSERT_LT(u, 12);
    const int32_t l = layer[static_cast<size_t>(o)];
    EXPECT_NE(l, kNoId) << g.op(o).name;
    EXPECT_EQ(unit_layer.emplace(u, l).first->second, l) << g.op(o).name;
    layers_seen.insert(l);
  }
  EXPECT_EQ(layers_seen.size(), 3u);
  EXPECT_GT(unit_layer.size(), 3u);
  auto again = PartitionUnitsByLayer(g, OpTimes(g), 12);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*units, *again);
}

// With more layers than units, runs of consecutive layers share a unit, and every
// layer lies in one unit.
TEST(LayerUnitsTest, ManyLayersShareUnitsInOrder) {
  const Graph g = RecurrentTrainingGraph(8, 2);
  const std::vector<int32_t> layer = UnitLayers(g);
  auto units = PartitionUnitsByLayer(g, OpTimes(g), 4);
  ASSERT_TRUE(units.ok()) << units.status().message();
  std::map<int32_t, int32_t> unit_of_layer;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const int32_t l = layer[static_cast<size_t>(o)];
    ASSERT_NE(l, kNoId) << g.op(o).name;
    EXPECT_EQ(unit_of_layer.emplace(l, (*units)[static_cast<size_t>(o)]).first->second, (*units)[static_cast<size_t>(o)]);
  }
  int32_t last = -1;
  std::set<int32_t> used;
  for (const auto& [l, u] : unit_of_layer) {  // layer tags in model order
    EXPECT_GE(u, last) << g.layer_names()[static_cast<size_t>(l)];
    last = u;
    used.insert(u);
  }
  EXPECT_EQ(used.size(), 4u);
}

// A graph without layer tags gets the plain parts; the policy input takes the option.
TEST(LayerUnitsTest, UntaggedGraphsKeepThePlainPartsAndTheInputTakesTheOption) {
  const Graph g = MlpTrainingGraph(4);
  auto plain = PartitionUnits(g, OpTimes(g), 4);
  auto by_layer = PartitionUnitsByLayer(g, OpTimes(g), 4);
  ASSERT_TRUE(plain.ok() && by_layer.ok());
  EXPECT_EQ(*plain, *by_layer);

  const Graph rnn = RecurrentTrainingGraph(3, 6);
  const Cluster c = testing::GpuCluster(3);
  auto input = BuildPolicyInput(rnn, c, CostModel(), UnitsPerDeviceOptions(c, 4, kLayerUnitsAlways));
  ASSERT_TRUE(input.ok()) << input.status().message();
  EXPECT_LE(input->num_units, 12);
  const std::vector<int32_t> layer = UnitLayers(rnn);
  std::map<int, int32_t> layer_of_unit;
  for (OpId o = 0; o < rnn.num_ops(); ++o) {
    EXPECT_EQ(layer_of_unit.emplace(input->unit_of_op(o), layer[static_cast<size_t>(o)]).first->second,
              layer[static_cast<size_t>(o)]);
  }
}

// kLayerUnitsWhenFewer: the layers' parts where every layer gets units of its own,
// the plain parts where the layers outnumber the units.
TEST(LayerUnitsTest, WhenFewerTakesTheLayersOnlyWhereTheyAreFewerThanTheUnits) {
  const Graph g = RecurrentTrainingGraph(8, 2);
  ASSERT_EQ(RankUnitLayers(g).num_layers, 8);
  const Cluster c = testing::GpuCluster(2);
  auto units_of = [&](int per_device, int layer_units) {
    auto in = BuildPolicyInput(g, c, CostModel(), UnitsPerDeviceOptions(c, per_device, layer_units));
    if (!in.ok()) std::abort();
    return in->node_unit;
  };
  EXPECT_EQ(units_of(2, kLayerUnitsWhenFewer), units_of(2, kLayerUnitsOff));      // 8 layers, 4 units
  EXPECT_EQ(units_of(8, kLayerUnitsWhenFewer), units_of(8, kLayerUnitsAlways));   // 8 layers, 16 units
  EXPECT_NE(units_of(8, kLayerUnitsAlways), units_of(8, kLayerUnitsOff));
}

}  // namespace
}  // namespace graphopt
