// The RNNLM built-in: op counts by formula, parameter bytes by hand, layer tags,
// a single loss, determinism and parameter checking.
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

// Forward ops: embedding 4 + T, per layer 5 + 15 T, softmax 7 + T.
int ForwardOps(int layers, int steps) { return 11 + 2 * steps + layers * (5 + 15 * steps); }

std::string TinySpec(int layers, int steps) {
  return "rnnlm:layers=" + std::to_string(layers) + ",steps=" + std::to_string(steps) + ",batch=2,hidden=4,vocab=10";
}

TEST(RnnlmTest, ForwardOpCountMatchesFormulaForTinyConfigs) {
  EXPECT_EQ(Forward(TinySpec(1, 2)).num_ops(), ForwardOps(1, 2));
  EXPECT_EQ(Forward(TinySpec(2, 3)).num_ops(), ForwardOps(2, 3));
  EXPECT_EQ(Forward(TinySpec(3, 1)).num_ops(), ForwardOps(3, 1));
}

TEST(RnnlmTest, DefaultEightLayerForwardOpCountMatchesFormula) {
  EXPECT_EQ(Forward("rnnlm:layers=8").num_ops(), ForwardOps(8, 20));
}

TEST(RnnlmTest, TrainingOpCountGrowsLinearlyInLayersAndSteps) {
  std::vector<int> by_layers, by_steps;
  for (int l = 1; l <= 4; ++l) by_layers.push_back(Training(TinySpec(l, 3)).num_ops());
  for (int t = 2; t <= 5; ++t) by_steps.push_back(Training(TinySpec(2, t)).num_ops());
  for (size_t i = 2; i < by_layers.size(); ++i) {
    EXPECT_EQ(by_layers[i] - by_layers[i - 1], by_layers[1] - by_layers[0]) << "layers " << i + 1;
  }
  for (size_t i = 2; i < by_steps.size(); ++i) {
    EXPECT_EQ(by_steps[i] - by_steps[i - 1], by_steps[1] - by_steps[0]) << "steps " << i + 2;
  }
  EXPECT_GT(by_layers[1], by_layers[0]);
  EXPECT_GT(by_steps[1], by_steps[0]);
}

TEST(RnnlmTest, TrainingGraphIsTwoToThreeTimesTheForwardGraph) {
  const int forward = Forward("rnnlm:layers=8").num_ops();
  const int training = Training("rnnlm:layers=8").num_ops();
  EXPECT_GT(training, 2 * forward);
  EXPECT_LT(training, 3 * forward);
}

TEST(RnnlmTest, ParameterBytesOfTinyModelMatchHandCount) {
  // Embedding 10x4, LSTM kernel (4+4)x16 and bias 16, softmax kernel 4x10 and bias 10: 234 floats.
  EXPECT_EQ(Forward(TinySpec(1, 2)).TotalParamBytes(), 234 * 4);
  // A second layer adds 8x16 + 16 = 144 floats.
  EXPECT_EQ(Forward(TinySpec(2, 2)).TotalParamBytes(), (234 + 144) * 4);
}

TEST(RnnlmTest, ParameterBytesDoNotDependOnSteps) {
  EXPECT_EQ(Forward(TinySpec(2, 1)).TotalParamBytes(), Forward(TinySpec(2, 7)).TotalParamBytes());
}

TEST(RnnlmTest, LayerNamesAreEmbeddingLstmsAndSoftmax) {
  const std::vector<std::string> expected = {"embedding", "lstm0", "lstm1", "lstm2", "softmax"};
  EXPECT_EQ(Forward(TinySpec(3, 2)).layer_names(), expected);
}

TEST(RnnlmTest, EveryOpOfTheTrainingGraphHasALayerTag) {
  const Graph g = Training(TinySpec(3, 3));
  for (const Op& op : g.ops()) {
    EXPECT_GE(op.layer, 0) << op.name;
    EXPECT_LT(op.layer, static_cast<int>(g.layer_names().size())) << op.name;
  }
}

TEST(RnnlmTest, EachLayerHasOneKernelReadByEveryStep) {
  const int steps = 4;
  const Graph g = Forward(TinySpec(2, steps));
  int kernels = 0;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kVariable || g.layer_names()[static_cast<size_t>(op.layer)].rfind("lstm", 0) != 0) continue;
    if (g.tensor(op.outputs[0]).shape.size() != 2) continue;
    ++kernels;
    const auto& consumers = g.tensor(op.outputs[0]).consumers;
    EXPECT_EQ(static_cast<int>(consumers.size()), steps) << op.name;
    for (OpId c : consumers) EXPECT_EQ(g.op(c).kind, OpKind::kMatMul) << op.name;
  }
  EXPECT_EQ(kernels, 2);
}

TEST(RnnlmTest, CrossEntropyIsTheOnlySink) {
  const Graph g = Forward(TinySpec(2, 3));
  std::vector<std::string> sinks;
  for (const Op& op : g.ops()) {
    bool consumed = false;
    for (TensorId t : op.outputs) consumed |= !g.tensor(t).consumers.empty();
    if (!consumed) sinks.push_back(op.name);
  }
  ASSERT_EQ(sinks.size(), 1u);
  EXPECT_EQ(g.op(g.num_ops() - 1).kind, OpKind::kSoftmaxCrossEntropy);
  EXPECT_EQ(sinks[0], g.op(g.num_ops() - 1).name);
}

TEST(RnnlmTest, TwoBuildsGiveIdenticalJson) {
  EXPECT_EQ(GraphToJson(Training("rnnlm:layers=2")), GraphToJson(Training("rnnlm:layers=2")));
}

TEST(RnnlmTest, ZeroLayersIsRejectedNamingTheParameter) {
  EXPECT_NE(ErrorOf("rnnlm:layers=0").find("'layers'"), std::string::npos) << ErrorOf("rnnlm:layers=0");
}

TEST(RnnlmTest, NegativeBatchIsRejectedNamingTheParameter) {
  EXPECT_NE(ErrorOf("rnnlm:batch=-3").find("'batch'"), std::string::npos) << ErrorOf("rnnlm:batch=-3");
}

TEST(RnnlmTest, UnknownParameterIsRejectedNamingIt) {
  EXPECT_NE(ErrorOf("rnnlm:depth=3").find("'depth'"), std::string::npos) << ErrorOf("rnnlm:depth=3");
}

TEST(RnnlmTest, NonIntegerStepsAreRejectedNamingTheParameter) {
  EXPECT_NE(ErrorOf("rnnlm:steps=many").find("'steps'"), std::string::npos) << ErrorOf("rnnlm:steps=many");
}

}  // namespace
}  // namespace graphopt
