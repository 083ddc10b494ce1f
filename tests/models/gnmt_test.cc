// The GNMT built-in: size of the 8-layer training graph, op counts by formula,
// parameter bytes by hand, layer tags, encoder-to-decoder state passing, a single
// loss, determinism and parameter checking.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../testing/models.h"
#include "graph/json_io.h"
#include "models/registry.h"

namespace graphopt {
namespace {

using testing::ErrorOf;
using testing::Forward;
using testing::Training;

// Forward ops with S = T = steps (see gnmt.cc).
int ForwardOps(int layers, int steps) { return 46 + 108 * steps + (layers - 2) * (7 + 37 * steps); }

std::string TinySpec(int layers, int steps) {
  return "gnmt:layers=" + std::to_string(layers) + ",steps=" + std::to_string(steps) + ",batch=2,hidden=4,vocab=10";
}

const Op& FindOp(const Graph& g, const std::string& name) {
  for (const Op& op : g.ops()) {
    if (op.name == name) return op;
  }
  GO_CHECK_MSG(false, "no op named " + name);
  return g.op(0);
}

const std::string& LayerOf(const Graph& g, OpId op) { return g.layer_names()[static_cast<size_t>(g.op(op).layer)]; }

TEST(GnmtTest, EightLayerTrainingGraphHasFortyToHundredThousandOps) {
  const int ops = Training("gnmt:layers=8").num_ops();
  EXPECT_GE(ops, 40000);
  EXPECT_LE(ops, 100000);
}

TEST(GnmtTest, DefaultForwardOpCountsMatchFormula) {
  EXPECT_EQ(Forward("gnmt").num_ops(), ForwardOps(2, 50));
  EXPECT_EQ(Forward("gnmt:layers=8").num_ops(), ForwardOps(8, 50));
}

TEST(GnmtTest, ForwardOpCountMatchesFormulaForTinyConfigs) {
  EXPECT_EQ(Forward(TinySpec(2, 2)).num_ops(), ForwardOps(2, 2));
  EXPECT_EQ(Forward(TinySpec(3, 1)).num_ops(), ForwardOps(3, 1));
  EXPECT_EQ(Forward(TinySpec(4, 3)).num_ops(), ForwardOps(4, 3));
}

TEST(GnmtTest, TrainingOpCountGrowsLinearlyInLayersAndSteps) {
  std::vector<int> by_layers, by_steps;
  for (int l = 3; l <= 6; ++l) by_layers.push_back(Training(TinySpec(l, 3)).num_ops());
  for (int t = 2; t <= 5; ++t) by_steps.push_back(Training(TinySpec(3, t)).num_ops());
  for (size_t i = 2; i < by_layers.size(); ++i) {
    EXPECT_EQ(by_layers[i] - by_layers[i - 1], by_layers[1] - by_layers[0]) << "layers " << i + 3;
  }
  for (size_t i = 2; i < by_steps.size(); ++i) {
    EXPECT_EQ(by_steps[i] - by_steps[i - 1], by_steps[1] - by_steps[0]) << "steps " << i + 2;
  }
  EXPECT_GT(by_layers[1], by_layers[0]);
  EXPECT_GT(by_steps[1], by_steps[0]);
}

TEST(GnmtTest, ParameterBytesOfTinyModelMatchHandCount) {
  // hidden 4, vocab 10, in floats: embeddings 2 x 40; encoder layer 0 two directions of
  // (8x16 + 16) = 288; encoder layer 1 (12x16 + 16) = 208; encoder layer 2 (8x16 + 16) = 144;
  // decoder layers (12x16 + 16) = 208 each; attention 4x4 + 4x4 + 4 + 1 + 4 = 41; softmax 4x10 + 10 = 50.
  const int64_t floats = 80 + 288 + 208 + 144 + 3 * 208 + 41 + 50;
  EXPECT_EQ(Forward(TinySpec(3, 2)).TotalParamBytes(), floats * 4);
}

TEST(GnmtTest, ParameterBytesDoNotDependOnSteps) {
  EXPECT_EQ(Forward(TinySpec(3, 1)).TotalParamBytes(), Forward(TinySpec(3, 6)).TotalParamBytes());
}

TEST(GnmtTest, LayerNamesFollowEncoderDecoderOrder) {
  const std::vector<std::string> expected = {"encoder_embedding", "encoder0", "encoder1", "encoder2",
                                             "decoder_embedding", "decoder0", "decoder1", "decoder2", "softmax"};
  EXPECT_EQ(Forward(TinySpec(3, 2)).layer_names(), expected);
}

TEST(GnmtTest, EveryOpOfTheTrainingGraphHasALayerTag) {
  const Graph g = Training(TinySpec(3, 3));
  for (const Op& op : g.ops()) {
    EXPECT_GE(op.layer, 0) << op.name;
    EXPECT_LT(op.layer, static_cast<int>(g.layer_names().size())) << op.name;
  }
}

TEST(GnmtTest, AttentionOpsBelongToTheBottomDecoderLayer) {
  const Graph g = Forward(TinySpec(3, 3));
  int attention_ops = 0;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (g.op(o).name.rfind("dec/attention/", 0) != 0) continue;
    ++attention_ops;
    EXPECT_EQ(LayerOf(g, o), "decoder0") << g.op(o).name;
  }
  // Setup: initial context, memory (3), keys (2), query kernel, v, g, bias, normalized v (6),
  // source mask and score floor: 18; then 12 per step.
  EXPECT_EQ(attention_ops, 18 + 12 * 3);
}

TEST(GnmtTest, DecoderLayersStartFromTheEncoderFinalStates) {
  const Graph g = Forward(TinySpec(3, 2));
  for (int l = 0; l < 3; ++l) {
    // Step 0 of decoder layer l: "concat" builds the cell input, "concat_1" is the cell's
    // concat([input, h]), whose h must come from encoder layer l.
    const Op& concat = FindOp(g, "dec/l" + std::to_string(l) + "/t0/concat_1");
    ASSERT_EQ(concat.inputs.size(), 2u);
    const OpId producer = g.tensor(concat.inputs[1]).producer;
    EXPECT_EQ(LayerOf(g, producer), "encoder" + std::to_string(l)) << concat.name;
  }
}

TEST(GnmtTest, EachLstmKernelIsReadByEveryStep) {
  const int steps = 3;
  const Graph g = Forward(TinySpec(3, steps));
  int kernels = 0;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kVariable || op.name.find("/kernel") == std::string::npos) continue;
    if (op.name.rfind("softmax", 0) == 0) continue;
    ++kernels;
    EXPECT_EQ(static_cast<int>(g.tensor(op.outputs[0]).consumers.size()), steps) << op.name;
  }
  EXPECT_EQ(kernels, 2 + 2 + 3);  // encoder: fw, bw, 2 more layers; decoder: 3 layers
}

TEST(GnmtTest, TheSummedLossIsTheOnlySink) {
  const Graph g = Forward(TinySpec(3, 3));
  std::vector<OpId> sinks;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    bool consumed = false;
    for (TensorId t : g.op(o).outputs) consumed |= !g.tensor(t).consumers.empty();
    if (!consumed) sinks.push_back(o);
  }
  ASSERT_EQ(sinks.size(), 1u) << g.op(sinks[1]).name;
  EXPECT_EQ(g.op(sinks[0]).kind, OpKind::kAddN);
  EXPECT_EQ(LayerOf(g, sinks[0]), "softmax");
}

TEST(GnmtTest, TwoBuildsGiveIdenticalJson) {
  EXPECT_EQ(GraphToJson(Training("gnmt:layers=4,steps=10")), GraphToJson(Training("gnmt:layers=4,steps=10")));
}

TEST(GnmtTest, OneLayerIsRejectedNamingTheParameter) {
  EXPECT_NE(ErrorOf("gnmt:layers=1").find("'layers'"), std::string::npos) << ErrorOf("gnmt:layers=1");
}

TEST(GnmtTest, ZeroLayersIsRejectedNamingTheParameter) {
  EXPECT_NE(ErrorOf("gnmt:layers=0").find("'layers'"), std::string::npos) << ErrorOf("gnmt:layers=0");
}

TEST(GnmtTest, NegativeBatchIsRejectedNamingTheParameter) {
  EXPECT_NE(ErrorOf("gnmt:batch=-3").find("'batch'"), std::string::npos) << ErrorOf("gnmt:batch=-3");
}

TEST(GnmtTest, UnknownParameterIsRejectedNamingIt) {
  EXPECT_NE(ErrorOf("gnmt:heads=8").find("'heads'"), std::string::npos) << ErrorOf("gnmt:heads=8");
}

}  // namespace
}  // namespace graphopt
