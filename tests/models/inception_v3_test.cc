#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "../testing/models.h"
#include "graph/json_io.h"
#include "graph/training.h"
#include "graph/verifier.h"
#include "models/registry.h"

namespace graphopt {
namespace {

using testing::ErrorOf;
using testing::Forward;
using testing::ForwardContractionMacs;
using testing::ParameterCount;

// The output of a layer: that of its last op (the block's final concat).
Shape LayerOutputShape(const Graph& g, const std::string& layer) {
  OpId last = kNoId;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const Op& op = g.op(o);
    if (op.layer >= 0 && g.layer_names()[static_cast<size_t>(op.layer)] == layer) last = o;
  }
  if (last == kNoId) return {};
  return g.tensor(g.op(last).outputs[0]).shape;
}

// torchvision's inception_v3: 5.71 GFLOPS (multiply-accumulates) at 299x299.
TEST(InceptionV3Test, MultiplyAccumulatesMatchPublishedFigure) {
  const Graph g = Forward("inception_v3:batch=1");
  EXPECT_NEAR(ForwardContractionMacs(g), 5.71e9, 0.01 * 5.71e9);
}

// The same sum counted conv by conv from the layer table (kernel x Cin x Cout x output pixels).
TEST(InceptionV3Test, MultiplyAccumulatesMatchHandCount) {
  const Graph g = Forward("inception_v3:batch=1");
  EXPECT_EQ(ForwardContractionMacs(g), 5713216096.0);
}

TEST(InceptionV3Test, MultiplyAccumulatesScaleLinearlyWithBatch) {
  const Graph one = Forward("inception_v3:batch=1");
  const Graph many = Forward("inception_v3:batch=32");
  EXPECT_DOUBLE_EQ(ForwardContractionMacs(many), 32 * ForwardContractionMacs(one));
}

// Conv weights + batch-norm scale and bias (2 per output channel) + FC weight and bias:
// torchvision's inception_v3 without the auxiliary head (27,161,264 - 3,326,696).
TEST(InceptionV3Test, ParameterCountMatchesTorchvision) {
  const Graph g = Forward("inception_v3");
  EXPECT_EQ(ParameterCount(g), 23834568);
}

// With the auxiliary head: conv 768->128 1x1 (+BN), conv 128->768 5x5 (+BN), FC 768->1000.
TEST(InceptionV3Test, AuxiliaryHeadAddsItsParameters) {
  const Graph g = Forward("inception_v3:aux=1");
  EXPECT_EQ(ParameterCount(g), 27161264);
}

TEST(InceptionV3Test, ParametersDoNotDependOnBatch) {
  EXPECT_EQ(ParameterCount(Forward("inception_v3:batch=1")), ParameterCount(Forward("inception_v3:batch=7")));
}

TEST(InceptionV3Test, BlockOutputsHaveTheStandardShapes) {
  const Graph g = Forward("inception_v3:batch=3");
  EXPECT_EQ(LayerOutputShape(g, "stem"), (Shape{3, 192, 35, 35}));
  EXPECT_EQ(LayerOutputShape(g, "mixed_5b"), (Shape{3, 256, 35, 35}));
  EXPECT_EQ(LayerOutputShape(g, "mixed_5d"), (Shape{3, 288, 35, 35}));
  EXPECT_EQ(LayerOutputShape(g, "mixed_6a"), (Shape{3, 768, 17, 17}));
  EXPECT_EQ(LayerOutputShape(g, "mixed_6e"), (Shape{3, 768, 17, 17}));
  EXPECT_EQ(LayerOutputShape(g, "mixed_7a"), (Shape{3, 1280, 8, 8}));
  EXPECT_EQ(LayerOutputShape(g, "mixed_7c"), (Shape{3, 2048, 8, 8}));
}

TEST(InceptionV3Test, FactorizedConvolutionsUseAsymmetricKernels) {
  const Graph g = Forward("inception_v3:batch=1");
  int one_by_seven = 0, seven_by_one = 0;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kConv) continue;
    const std::vector<int64_t> kernel = GetIntsAttr(op.attrs, "kernel");
    if (kernel == std::vector<int64_t>{1, 7}) {
      ++one_by_seven;
      EXPECT_EQ(GetIntsAttr(op.attrs, "pads"), (std::vector<int64_t>{0, 3})) << op.name;
    }
    if (kernel == std::vector<int64_t>{7, 1}) ++seven_by_one;
  }
  // Mixed_6b..6e: 1 + 2 of each; Mixed_7a: 1 of each.
  EXPECT_EQ(one_by_seven, 4 * 3 + 1);
  EXPECT_EQ(seven_by_one, 4 * 3 + 1);
}

TEST(InceptionV3Test, EveryConvIsFollowedByBatchNormAndRelu) {
  const Graph g = Forward("inception_v3:batch=1");
  int convs = 0;
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kConv) continue;
    ++convs;
    const std::vector<OpId>& bn = g.tensor(op.outputs[0]).consumers;
    ASSERT_EQ(bn.size(), 1u) << op.name;
    EXPECT_EQ(g.op(bn[0]).kind, OpKind::kBatchNorm) << op.name;
    const std::vector<OpId>& relu = g.tensor(g.op(bn[0]).outputs[0]).consumers;
    ASSERT_EQ(relu.size(), 1u) << op.name;
    EXPECT_EQ(g.op(relu[0]).kind, OpKind::kRelu) << op.name;
  }
  EXPECT_EQ(convs, 94);  // stem 5 + 3 x 7 + 4 + 4 x 10 + 6 + 2 x 9
}

TEST(InceptionV3Test, LayerTagsFollowTheBlocks) {
  const Graph g = Forward("inception_v3:batch=1");
  const std::vector<std::string> expected = {"stem",     "mixed_5b", "mixed_5c",  "mixed_5d", "mixed_6a",
                                             "mixed_6b", "mixed_6c", "mixed_6d",  "mixed_6e", "mixed_7a",
                                             "mixed_7b", "mixed_7c", "classifier"};
  EXPECT_EQ(g.layer_names(), expected);
  for (const Op& op : g.ops()) {
    EXPECT_GE(op.layer, 0) << op.name;
    EXPECT_LT(op.layer, static_cast<int32_t>(expected.size())) << op.name;
  }
}

TEST(InceptionV3Test, AuxiliaryHeadHasItsOwnLayerAfterMixed6e) {
  const Graph g = Forward("inception_v3:aux=1,batch=1");
  ASSERT_EQ(g.layer_names().size(), 14u);
  EXPECT_EQ(g.layer_names()[8], "mixed_6e");
  EXPECT_EQ(g.layer_names()[9], "aux_classifier");
  EXPECT_EQ(g.layer_names()[10], "mixed_7a");
}

// Every forward op feeds the loss: the only op whose output nobody reads is the loss.
void ExpectLossIsTheOnlySink(const Graph& g, OpKind loss_kind) {
  std::vector<OpId> sinks;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    for (TensorId t : g.op(o).outputs) {
      if (g.tensor(t).consumers.empty()) sinks.push_back(o);
    }
  }
  ASSERT_EQ(sinks.size(), 1u);
  EXPECT_EQ(g.op(sinks[0]).kind, loss_kind) << g.op(sinks[0]).name;
}

TEST(InceptionV3Test, LossIsTheOnlySink) {
  ExpectLossIsTheOnlySink(Forward("inception_v3:batch=2"), OpKind::kSoftmaxCrossEntropy);
  // With the auxiliary head, the two losses are summed (main + 0.4 x aux).
  ExpectLossIsTheOnlySink(Forward("inception_v3:batch=2,aux=1"), OpKind::kAdd);
}

TEST(InceptionV3Test, TrainingGraphBuildsAndVerifiesQuickly) {
  const auto start = std::chrono::steady_clock::now();
  auto g = BuildBuiltinModel("inception_v3");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Status verified = VerifyGraph(*g);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(verified.ok()) << verified.message();
  EXPECT_LT(seconds, 1.0);
  int backward = 0, update = 0;
  for (const Op& op : g->ops()) {
    backward += op.phase == Phase::kBackward;
    update += op.phase == Phase::kUpdate;
  }
  EXPECT_GT(backward, 0);
  // One update per Variable: 94 conv weights, 94 x 2 batch-norm parameters, FC weight and bias.
  EXPECT_EQ(update, 94 * 3 + 2);
}

TEST(InceptionV3Test, BuildIsDeterministic) {
  EXPECT_EQ(GraphToJson(Forward("inception_v3:batch=4")), GraphToJson(Forward("inception_v3:batch=4")));
}

TEST(InceptionV3Test, SmallestImageBuildsDownToOnePixel) {
  const Graph g = Forward("inception_v3:batch=1,image=75");
  EXPECT_EQ(LayerOutputShape(g, "mixed_7c"), (Shape{1, 2048, 1, 1}));
}

TEST(InceptionV3Test, BadParametersAreRejectedByName) {
  EXPECT_NE(ErrorOf("inception_v3:batch=-3").find("'batch'"), std::string::npos);
  EXPECT_NE(ErrorOf("inception_v3:classes=0").find("'classes'"), std::string::npos);
  EXPECT_NE(ErrorOf("inception_v3:aux=2").find("'aux'"), std::string::npos);
  EXPECT_NE(ErrorOf("inception_v3:depth=3").find("'depth'"), std::string::npos);
}

TEST(InceptionV3Test, TooSmallImageIsRejectedWithTheMinimum) {
  const std::string error = ErrorOf("inception_v3:image=74");
  EXPECT_NE(error.find("inception_v3: parameter 'image' must be at least 75"), std::string::npos) << error;
  const std::string aux_error = ErrorOf("inception_v3:image=200,aux=1");
  EXPECT_NE(aux_error.find("parameter 'image'"), std::string::npos) << aux_error;
}

}  // namespace
}  // namespace graphopt
