// The human expert placements on hand-built tagged graphs: one LSTM layer per
// device, GNMT encoder and decoder layer k together, even splits of Transformer-XL
// layers and WaveNet stacks, CNN stages balanced by hand-computed times, and the
// cost-balanced split of the topological order for imported graphs.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "../testing/clusters.h"
#include "../testing/graphs.h"
#include "baselines/baseline.h"
#include "baselines/stages.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::AddLayerTimedOp;
using testing::Preset;

// A training graph shaped like the built-ins: per layer (in the order given) a
// Variable, a forward op reading the previous layer's output and the variable, then
// the backward ops in reverse layer order, and an update op per variable in the
// variable's colocation group. Forward and backward op of a layer take half of
// its time each, updates nothing. All ops carry their layer's tag.
Graph LayeredGraph(const std::string& family, const std::vector<std::string>& layers,
                   const std::vector<double>& layer_us = {}) {
  Graph g(family + "_test");
  g.set_family(family);
  std::vector<TensorId> forward_out, weights;
  std::vector<int32_t> groups;
  TensorId x = kNoId;
  for (size_t l = 0; l < layers.size(); ++l) {
    const int32_t tag = g.AddLayer(layers[l]);
    const double us = layer_us.empty() ? 10.0 : layer_us[l];
    Op var;
    var.name = layers[l] + "/weight";
    var.kind = OpKind::kVariable;
    var.layer = tag;
    var.param_bytes = 4096;
    var.colocation_group = g.NewColocationGroup();
    var.outputs = {g.AddTensor(var.name + ":0", {1024})};
    groups.push_back(var.colocation_group);
    const OpId v = g.AddOp(std::move(var), false);
    weights.push_back(g.op(v).outputs[0]);
    std::vector<TensorId> in = {weights.back()};
    if (x != kNoId) in.push_back(x);
    x = g.op(AddLayerTimedOp(g, layers[l] + "/forward", in, us / 2, tag)).outputs[0];
    forward_out.push_back(x);
  }
  TensorId grad = x;
  for (size_t l = layers.size(); l-- > 0;) {
    const int32_t tag = static_cast<int32_t>(l);
    const double grad_us = (layer_us.empty() ? 10.0 : layer_us[l]) / 2;
    grad = g.op(AddLayerTimedOp(g, "grad/" + layers[l], {grad, forward_out[l]}, grad_us, tag, Phase::kBackward))
               .outputs[0];
    Op update;
    update.name = "update/" + layers[l];
    update.kind = OpKind::kApplyGradient;
    update.phase = Phase::kUpdate;
    update.layer = tag;
    update.colocation_group = groups[l];
    update.measured_time_us = 0;
    update.inputs = {weights[l], grad};
    update.outputs = {g.AddTensor(update.name + ":0", {1024})};
    g.AddOp(std::move(update), false);
  }
  return g;
}

// The device of every op of the tag `layer`; fails the test if they differ.
DeviceId DeviceOfLayer(const Graph& g, const Plan& plan, const std::string& layer) {
  DeviceId device = kNoId;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const int32_t l = g.op(o).layer;
    if (l == kNoId || g.layer_names()[static_cast<size_t>(l)] != layer) continue;
    if (device == kNoId) device = plan.device[static_cast<size_t>(o)];
    EXPECT_EQ(plan.device[static_cast<size_t>(o)], device) << "op " << g.op(o).name << " of layer " << layer;
  }
  EXPECT_NE(device, kNoId) << "no op tagged " << layer;
  return device;
}

Plan ExpertOk(const Graph& g, const Cluster& cluster) {
  auto plan = ExpertPlan(g, cluster, CostModel());
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  if (!plan.ok()) return DefaultPlan(g);
  const Status valid = ValidatePlan(g, cluster, *plan);
  EXPECT_TRUE(valid.ok()) << valid.message();
  EXPECT_EQ(plan->priority, std::vector<double>(static_cast<size_t>(g.num_ops()), 0.0));
  EXPECT_EQ(plan->fuse_with_producer, std::vector<uint8_t>(static_cast<size_t>(g.num_ops()), 0));
  return *plan;
}

void ExpectLayerDevices(const Graph& g, const Plan& plan, const std::map<std::string, DeviceId>& expected) {
  for (const auto& [layer, device] : expected) EXPECT_EQ(DeviceOfLayer(g, plan, layer), device) << layer;
}

TEST(ExpertTest, RnnlmPutsLayerKOnDeviceK) {
  const Graph g = LayeredGraph("rnnlm", {"embedding", "lstm0", "lstm1", "lstm2", "lstm3", "softmax"});
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  ExpectLayerDevices(g, plan,
                     {{"embedding", 0}, {"lstm0", 0}, {"lstm1", 1}, {"lstm2", 2}, {"lstm3", 3}, {"softmax", 3}});
}

TEST(ExpertTest, RnnlmWithMoreLayersThanDevicesSplitsThemEvenly) {
  // Layer k of 8 on device floor(k * 4 / 8).
  const Graph g = LayeredGraph(
      "rnnlm", {"embedding", "lstm0", "lstm1", "lstm2", "lstm3", "lstm4", "lstm5", "lstm6", "lstm7", "softmax"});
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  ExpectLayerDevices(g, plan,
                     {{"embedding", 0},
                      {"lstm0", 0},
                      {"lstm1", 0},
                      {"lstm2", 1},
                      {"lstm3", 1},
                      {"lstm4", 2},
                      {"lstm5", 2},
                      {"lstm6", 3},
                      {"lstm7", 3},
                      {"softmax", 3}});
}

TEST(ExpertTest, GnmtPutsEncoderAndDecoderLayerKOnDeviceK) {
  const Graph g =
      LayeredGraph("gnmt", {"encoder_embedding", "encoder0", "encoder1", "encoder2", "encoder3", "decoder_embedding",
                            "decoder0", "decoder1", "decoder2", "decoder3", "softmax"});
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  ExpectLayerDevices(g, plan,
                     {{"encoder_embedding", 0},
                      {"encoder0", 0},
                      {"encoder1", 1},
                      {"encoder2", 2},
                      {"encoder3", 3},
                      {"decoder_embedding", 0},
                      {"decoder0", 0},
                      {"decoder1", 1},
                      {"decoder2", 2},
                      {"decoder3", 3},
                      {"softmax", 3}});
}

TEST(ExpertTest, GnmtAttentionTagGoesWithTheFirstDecoderLayer) {
  const Graph g = LayeredGraph("gnmt", {"encoder_embedding", "encoder0", "encoder1", "decoder_embedding", "decoder0",
                                        "attention", "decoder1", "softmax"});
  const Plan plan = ExpertOk(g, Preset("2xP100"));
  ExpectLayerDevices(g, plan,
                     {{"encoder_embedding", 0},
                      {"encoder0", 0},
                      {"encoder1", 1},
                      {"decoder_embedding", 0},
                      {"decoder0", 0},
                      {"attention", 0},
                      {"decoder1", 1},
                      {"softmax", 1}});
}

TEST(ExpertTest, TransformerXlSplitsLayersEvenly) {
  const Graph g = LayeredGraph("transformer_xl", {"embedding", "layer0", "layer1", "layer2", "layer3", "softmax"});
  const Plan plan = ExpertOk(g, Preset("2xP100"));
  ExpectLayerDevices(g, plan,
                     {{"embedding", 0}, {"layer0", 0}, {"layer1", 0}, {"layer2", 1}, {"layer3", 1}, {"softmax", 1}});
}

std::vector<std::string> WaveNetLayers(int stacks, int layers_per_stack) {
  std::vector<std::string> names = {"input"};
  for (int s = 0; s < stacks; ++s) {
    for (int k = 0; k < layers_per_stack; ++k)
      names.push_back("stack" + std::to_string(s) + "/layer" + std::to_string(k));
  }
  names.push_back("output");
  return names;
}

TEST(ExpertTest, WaveNetPutsAStackPerDeviceWhenThereAreEnoughStacks) {
  const Graph g = LayeredGraph("wavenet", WaveNetLayers(2, 3));
  const Plan plan = ExpertOk(g, Preset("2xP100"));
  ExpectLayerDevices(g, plan,
                     {{"input", 0},
                      {"stack0/layer0", 0},
                      {"stack0/layer2", 0},
                      {"stack1/layer0", 1},
                      {"stack1/layer2", 1},
                      {"output", 1}});
}

TEST(ExpertTest, WaveNetSplitsLayersWhenStacksAreFewerThanDevices) {
  // 2 stacks of 4 layers on 4 devices: two consecutive layers per device.
  const Graph g = LayeredGraph("wavenet", WaveNetLayers(2, 4));
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  ExpectLayerDevices(g, plan,
                     {{"input", 0},
                      {"stack0/layer0", 0},
                      {"stack0/layer1", 0},
                      {"stack0/layer2", 1},
                      {"stack0/layer3", 1},
                      {"stack1/layer0", 2},
                      {"stack1/layer1", 2},
                      {"stack1/layer2", 3},
                      {"stack1/layer3", 3},
                      {"output", 3}});
}

const std::vector<std::string> kCnnLayers = {"stem",     "mixed_5b", "mixed_5c", "mixed_5d",
                                             "mixed_6a", "mixed_6b", "mixed_6c", "classifier"};
// Layer times (forward + backward) in us: 16 in all.
const std::vector<double> kCnnLayerUs = {3, 1, 1, 1, 2, 2, 2, 4};

TEST(ExpertTest, CnnStagesBalanceLayerTimesOnFourDevices) {
  // The only split into four stages of 4 us: [3 1] [1 1 2] [2 2] [4].
  for (const std::string family : {"inception_v3", "amoebanet"}) {
    const Graph g = LayeredGraph(family, kCnnLayers, kCnnLayerUs);
    const Plan plan = ExpertOk(g, Preset("4xV100"));
    ExpectLayerDevices(g, plan,
                       {{"stem", 0},
                        {"mixed_5b", 0},
                        {"mixed_5c", 1},
                        {"mixed_5d", 1},
                        {"mixed_6a", 1},
                        {"mixed_6b", 2},
                        {"mixed_6c", 2},
                        {"classifier", 3}});
  }
}

TEST(ExpertTest, CnnStagesBalanceLayerTimesOnTwoDevices) {
  // The only split into two stages of 8 us: [3 1 1 1 2] [2 2 4].
  const Graph g = LayeredGraph("inception_v3", kCnnLayers, kCnnLayerUs);
  const Plan plan = ExpertOk(g, Preset("2xP100"));
  ExpectLayerDevices(g, plan,
                     {{"stem", 0},
                      {"mixed_5b", 0},
                      {"mixed_5c", 0},
                      {"mixed_5d", 0},
                      {"mixed_6a", 0},
                      {"mixed_6b", 1},
                      {"mixed_6c", 1},
                      {"classifier", 1}});
}

// An imported chain (no family, no tags) whose op ids run against the data flow:
// op 0 is the last of the chain. Returns the ops in chain order.
std::vector<OpId> ReversedChain(Graph* g, const std::vector<double>& us) {
  const size_t n = us.size();
  std::vector<TensorId> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = g->AddTensor("t" + std::to_string(i), {1024});
  std::vector<OpId> chain(n);
  for (size_t j = n; j-- > 0;) {
    Op op;
    op.name = "op" + std::to_string(j);
    op.kind = OpKind::kGeneric;
    op.measured_time_us = us[j];
    if (j > 0) op.inputs = {out[j - 1]};
    op.outputs = {out[j]};
    chain[j] = g->AddOp(std::move(op), false);
  }
  return chain;
}

TEST(ExpertTest, ImportedGraphSplitsTopologicalOrderIntoCostBalancedStages) {
  // 20 us in all; the only split into two stages of 10 us is after the sixth op.
  Graph g("imported");
  const std::vector<OpId> chain = ReversedChain(&g, {5, 1, 1, 1, 1, 1, 3, 3, 2, 2});
  ASSERT_EQ(chain.front(), 9);
  const Plan plan = ExpertOk(g, Preset("2xP100"));
  for (size_t i = 0; i < chain.size(); ++i) {
    EXPECT_EQ(plan.device[static_cast<size_t>(chain[i])], i < 6 ? 0 : 1) << "chain position " << i;
  }
}

TEST(ExpertTest, KnownFamilyWithoutItsTagsFallsBackToTopologicalSplit) {
  Graph g("renamed");
  g.set_family("rnnlm");
  const std::vector<OpId> chain = ReversedChain(&g, {1, 1, 1, 1, 1, 1, 1, 1});
  const int32_t tag = g.AddLayer("block");
  for (OpId o : chain) g.mutable_op(o).layer = tag;
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  for (size_t i = 0; i < chain.size(); ++i) {
    EXPECT_EQ(plan.device[static_cast<size_t>(chain[i])], static_cast<DeviceId>(i / 2)) << "chain position " << i;
  }
}

TEST(ExpertTest, UntaggedOpsFollowTheirProducer) {
  Graph g = LayeredGraph("rnnlm", {"embedding", "lstm0", "lstm1", "lstm2", "lstm3", "softmax"});
  OpId lstm2 = kNoId;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (g.op(o).name == "lstm2/forward") lstm2 = o;
  }
  ASSERT_NE(lstm2, kNoId);
  const OpId untagged = AddLayerTimedOp(g, "probe", {g.op(lstm2).outputs[0]}, 1.0);
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  EXPECT_EQ(plan.device[static_cast<size_t>(untagged)], 2);
}

TEST(ExpertTest, ColocationGroupsFollowTheirFirstOp) {
  // A group spanning lstm1's weight and an op of lstm3 goes whole to device 1.
  Graph g = LayeredGraph("rnnlm", {"embedding", "lstm0", "lstm1", "lstm2", "lstm3", "softmax"});
  OpId weight1 = kNoId, forward3 = kNoId;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (g.op(o).name == "lstm1/weight") weight1 = o;
    if (g.op(o).name == "lstm3/forward") forward3 = o;
  }
  ASSERT_NE(weight1, kNoId);
  ASSERT_NE(forward3, kNoId);
  g.mutable_op(forward3).colocation_group = g.op(weight1).colocation_group;
  const Plan plan = ExpertOk(g, Preset("4xV100"));
  EXPECT_EQ(plan.device[static_cast<size_t>(forward3)], 1);
  EXPECT_EQ(plan.device[static_cast<size_t>(weight1)], 1);
}

TEST(ExpertTest, OneAcceleratorTakesEverything) {
  const Graph g = LayeredGraph("rnnlm", {"embedding", "lstm0", "lstm1", "softmax"});
  const Plan plan = ExpertOk(g, Preset("1xV100"));
  EXPECT_EQ(plan.device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 0));
}

TEST(ExpertStagesTest, MinimizesTheLargestStageThenEvensThemOut) {
  // Four stages of exactly 4: the only split with no stage above 4.
  EXPECT_EQ(BalancedContiguousStages({3, 1, 1, 1, 2, 2, 2, 4}, 4), (std::vector<int>{0, 0, 1, 1, 1, 2, 2, 3}));
  // The 4 forces a bottleneck of 4; of the splits reaching it, [4] [1 1] [1 1] is
  // the most even (left-to-right packing would give [4] [1 1 1] [1]).
  EXPECT_EQ(BalancedContiguousStages({4, 1, 1, 1, 1}, 3), (std::vector<int>{0, 1, 1, 2, 2}));
  EXPECT_EQ(BalancedContiguousStages({1, 2}, 4), (std::vector<int>{0, 1}));
  // All-zero costs count as one each.
  EXPECT_EQ(BalancedContiguousStages({0, 0, 0, 0}, 2), (std::vector<int>{0, 0, 1, 1}));
}

TEST(ExpertStagesTest, LongSequencesAreSplitWithinOneItemOfEven) {
  std::vector<double> costs(5000);
  for (size_t i = 0; i < costs.size(); ++i) costs[i] = 1.0 + static_cast<double>(i % 7);
  const std::vector<int> stage = BalancedContiguousStages(costs, 8);
  std::vector<double> load(8, 0.0);
  double total = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (i > 0) {
      ASSERT_GE(stage[i], stage[i - 1]);
    }
    load[static_cast<size_t>(stage[i])] += costs[i];
    total += costs[i];
  }
  for (double l : load) EXPECT_LE(l, total / 8 + 7.0);
}

}  // namespace
}  // namespace graphopt
