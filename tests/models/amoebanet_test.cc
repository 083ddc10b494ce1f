#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "../testing/models.h"
#include "graph/json_io.h"
#include "graph/verifier.h"
#include "models/registry.h"

namespace graphopt {
namespace {

using testing::ContractionMacs;
using testing::ErrorOf;
using testing::Forward;
using testing::ParameterCount;

// The output shape of each layer (that of its last op: the cell's concat), in order.
std::vector<Shape> LayerOutputShapes(const Graph& g) {
  std::vector<Shape> shapes(g.layer_names().size());
  for (const Op& op : g.ops()) {
    if (op.layer >= 0) shapes[static_cast<size_t>(op.layer)] = g.tensor(op.outputs[0]).shape;
  }
  return shapes;
}

// Depthwise convolutions: one group per input channel.
int CountDepthwiseConvs(const Graph& g) {
  int n = 0;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kConv && GetIntAttr(op.attrs, "group", 1) > 1 &&
        GetIntAttr(op.attrs, "group", 1) == g.tensor(op.inputs[0]).shape[1]) {
      ++n;
    }
  }
  return n;
}

TEST(AmoebaNetTest, DefaultTrainingGraphHasAFewThousandOpsAndVerifiesQuickly) {
  const auto start = std::chrono::steady_clock::now();
  auto g = BuildBuiltinModel("amoebanet");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Status verified = VerifyGraph(*g);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(verified.ok()) << verified.message();
  EXPECT_LT(seconds, 1.0);
  EXPECT_GE(g->num_ops(), 2000);
  EXPECT_LE(g->num_ops(), 30000);
}

// The paper's large ImageNet model, AmoebaNet-A (N=6, F=190) at 331x331: 86.7M
// parameters and 23.1B multiply-adds.
TEST(AmoebaNetTest, LargeModelMatchesPublishedSize) {
  const Graph g = Forward("amoebanet:cells=6,filters=190,image=331,batch=1");
  EXPECT_NEAR(static_cast<double>(ParameterCount(g)), 86.7e6, 0.05e6);
  EXPECT_NEAR(ContractionMacs(g), 23.1e9, 0.05e9);
}

// The paper's mobile-size model, AmoebaNet-A (N=4, F=50) at 224x224: 5.1M parameters
// and 555M multiply-adds.
TEST(AmoebaNetTest, MobileModelMatchesPublishedSize) {
  const Graph g = Forward("amoebanet:cells=4,filters=50,image=224,batch=1");
  EXPECT_NEAR(static_cast<double>(ParameterCount(g)), 5.1e6, 0.05e6);
  EXPECT_NEAR(ContractionMacs(g), 555e6, 0.005 * 555e6);
}

TEST(AmoebaNetTest, MultiplyAccumulatesScaleLinearlyWithBatch) {
  const double one = ContractionMacs(Forward("amoebanet:cells=2,filters=32,batch=1"));
  const double many = ContractionMacs(Forward("amoebanet:cells=2,filters=32,batch=8"));
  EXPECT_DOUBLE_EQ(many, 8 * one);
}

TEST(AmoebaNetTest, CellCountMatchesTheParameter) {
  for (int cells : {1, 2, 6}) {
    const Graph g = Forward("amoebanet:filters=16,batch=1,cells=" + std::to_string(cells));
    std::vector<std::string> expected = {"stem"};
    for (int i = 0; i < 3 * cells + 2; ++i) expected.push_back("cell" + std::to_string(i));
    expected.push_back("classifier");
    EXPECT_EQ(g.layer_names(), expected) << "cells=" << cells;
  }
}

// Three stacks of N normal cells at 28, 14 and 7 pixels (224x224 input) with F, 2F and
// 4F filters per hidden state; normal cells concatenate 4 hidden states, reduction cells
// (cellN and cell2N+1) 5 and halve the spatial size.
TEST(AmoebaNetTest, ReductionCellsHalveTheSpatialSize) {
  constexpr int kN = 2, kF = 16, kBatch = 2;
  const Graph g = Forward("amoebanet:batch=2,image=224,filters=16,cells=" + std::to_string(kN));
  const std::vector<Shape> shapes = LayerOutputShapes(g);
  ASSERT_EQ(shapes.size(), 1u + 3 * kN + 2 + 1);
  EXPECT_EQ(shapes[0], (Shape{kBatch, 5 * kF / 2, 28, 28}));  // stem: two reduction cells
  int64_t size = 28, filters = kF;
  for (int cell = 0; cell < 3 * kN + 2; ++cell) {
    const bool reduction = cell == kN || cell == 2 * kN + 1;
    if (reduction) {
      size /= 2;
      filters *= 2;
    }
    EXPECT_EQ(shapes[static_cast<size_t>(cell) + 1], (Shape{kBatch, (reduction ? 5 : 4) * filters, size, size}))
        << g.layer_names()[static_cast<size_t>(cell) + 1];
  }
}

// AmoebaNet-A: 4 separable operations per cell (normal: 3x3 three times and 5x5; reduction:
// 3x3 and 7x7 twice each), each two depthwise + pointwise convolutions.
TEST(AmoebaNetTest, SeparableConvsAreDepthwiseThenPointwise) {
  constexpr int kN = 2;
  const Graph g = Forward("amoebanet:filters=16,batch=1,cells=" + std::to_string(kN));
  EXPECT_EQ(CountDepthwiseConvs(g), 8 * (3 * kN + 2 + 2));
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kConv || GetIntAttr(op.attrs, "group", 1) == 1) continue;
    const std::vector<OpId>& next = g.tensor(op.outputs[0]).consumers;
    ASSERT_EQ(next.size(), 1u) << op.name;
    EXPECT_EQ(g.op(next[0]).kind, OpKind::kConv) << op.name;
    EXPECT_EQ(GetIntsAttr(g.op(next[0]).attrs, "kernel"), (std::vector<int64_t>{1, 1})) << op.name;
  }
}

TEST(AmoebaNetTest, VariantDUsesConvolutionsInsteadOfSeparables) {
  const Graph g = Forward("amoebanet:variant=d,filters=16,cells=2,batch=1");
  EXPECT_EQ(CountDepthwiseConvs(g), 0);
  int one_by_seven = 0;
  for (const Op& op : g.ops()) {
    one_by_seven += op.kind == OpKind::kConv && GetIntsAttr(op.attrs, "kernel") == std::vector<int64_t>{1, 7};
  }
  // Normal cells: two 1x7-7x1 operations; reduction cells: one.
  EXPECT_EQ(one_by_seven, 2 * 3 * 2 + 1 * (2 + 2));
}

TEST(AmoebaNetTest, EveryOpHasALayerTag) {
  const Graph g = Forward("amoebanet:filters=16,cells=2,batch=1");
  for (const Op& op : g.ops()) {
    EXPECT_GE(op.layer, 0) << op.name;
    EXPECT_LT(op.layer, static_cast<int32_t>(g.layer_names().size())) << op.name;
  }
}

TEST(AmoebaNetTest, LossIsTheOnlySink) {
  for (const char* spec : {"amoebanet:filters=16,cells=2,batch=1", "amoebanet:variant=d,filters=16,cells=2,batch=1"}) {
    const Graph g = Forward(spec);
    std::vector<OpId> sinks;
    for (OpId o = 0; o < g.num_ops(); ++o) {
      for (TensorId t : g.op(o).outputs) {
        if (g.tensor(t).consumers.empty()) sinks.push_back(o);
      }
    }
    ASSERT_EQ(sinks.size(), 1u) << spec;
    EXPECT_EQ(g.op(sinks[0]).kind, OpKind::kSoftmaxCrossEntropy) << spec;
  }
}

TEST(AmoebaNetTest, SmallConfigTrainingGraphVerifies) {
  auto g = BuildBuiltinModel("amoebanet:cells=1,filters=8,image=32,batch=1,classes=10");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const Status verified = VerifyGraph(*g);
  EXPECT_TRUE(verified.ok()) << verified.message();
}

TEST(AmoebaNetTest, OddFilterCountsBuild) {
  // F/4 = 47 and F/2 = 95 in the stem: the factorized reductions split odd channel counts.
  const Graph g = Forward("amoebanet:filters=190,cells=1,image=64,batch=1");
  EXPECT_EQ(LayerOutputShapes(g)[0][1], 5 * 95);
}

TEST(AmoebaNetTest, BuildIsDeterministic) {
  const std::string spec = "amoebanet:filters=24,cells=2,batch=2";
  EXPECT_EQ(GraphToJson(Forward(spec)), GraphToJson(Forward(spec)));
}

TEST(AmoebaNetTest, BadParametersAreRejectedByName) {
  EXPECT_NE(ErrorOf("amoebanet:batch=-3").find("'batch'"), std::string::npos);
  EXPECT_NE(ErrorOf("amoebanet:cells=0").find("'cells'"), std::string::npos);
  EXPECT_NE(ErrorOf("amoebanet:filters=2").find("'filters'"), std::string::npos);
  EXPECT_NE(ErrorOf("amoebanet:variant=b").find("'variant'"), std::string::npos);
  EXPECT_NE(ErrorOf("amoebanet:classes=0").find("'classes'"), std::string::npos);
}

TEST(AmoebaNetTest, TooSmallImageIsRejectedWithTheMinimum) {
  const std::string error = ErrorOf("amoebanet:image=18");
  EXPECT_NE(error.find("amoebanet: parameter 'image' must be at least 19"), std::string::npos) << error;
  EXPECT_TRUE(BuildBuiltinForward("amoebanet:image=19,filters=8,cells=1,batch=1").ok());
}

}  // namespace
}  // namespace graphopt
