// Every FLOPs / MACs / bytes formula of graph/cost.h against a hand computation.
#include "graph/cost.h"

#include <gtest/gtest.h>

#include "graph/builder.h"

namespace graphopt {
namespace {

const Op& ProducerOf(const GraphBuilder& b, TensorId t) { return b.graph().op(b.graph().tensor(t).producer); }

TEST(CostTest, ConvMacsAreOutputElementsTimesFilterVolume) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {2, 3, 8, 8});
  TensorId w = b.Variable("w", {16, 3, 3, 3});
  TensorId y = b.Conv2D(x, w, {1, 1}, {1, 1});
  // out [2,16,8,8] = 2048 elements; filter volume 3*3*3 = 27.
  EXPECT_EQ(b.shape(y), (Shape{2, 16, 8, 8}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.macs, 2048.0 * 27);
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.flops, 2 * 2048.0 * 27);
}

TEST(CostTest, GroupedStridedConvCountsOnlyItsGroup) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {1, 8, 9, 9});
  TensorId w = b.Variable("w", {8, 1, 3, 3});  // depthwise
  TensorId y = b.Conv2D(x, w, {2, 2}, {0, 0}, {1, 1}, 8);
  // out [1,8,4,4] = 128 elements, 9 MACs each.
  EXPECT_EQ(b.shape(y), (Shape{1, 8, 4, 4}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.macs, 128.0 * 9);
}

TEST(CostTest, ConvBiasAddsOneFlopPerOutput) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {1, 2, 4, 4});
  TensorId w = b.Variable("w", {3, 2, 1, 1});
  TensorId bias = b.Variable("b", {3});
  OpId op = b.AddOp(OpKind::kConv, "conv", {x, w, bias}, {{1, 3, 4, 4}});
  // 48 outputs x 2 MACs = 96 MACs = 192 FLOPs, + 48 bias adds.
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 192.0 + 48.0);
}

TEST(CostTest, ConvTransposeMacsAreInputElementsTimesFilterVolume) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {1, 4, 3, 3});
  TensorId w = b.Variable("w", {4, 2, 2, 2});
  OpId op = b.AddOp(OpKind::kConvTranspose, "deconv", {x, w}, {{1, 2, 6, 6}});
  // 36 input elements x (2*2*2) = 288 MACs.
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.macs, 288.0);
}

TEST(CostTest, MatMulIsTwoMnkFlops) {
  GraphBuilder b("t");
  TensorId a = b.Input("a", {5, 7});
  TensorId w = b.Variable("w", {7, 3});
  TensorId y = b.MatMul(a, w);
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.macs, 5.0 * 3 * 7);
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.flops, 2.0 * 5 * 3 * 7);
  EXPECT_EQ(ProducerOf(b, y).cost.bytes_read, (35 + 21) * 4);
  EXPECT_EQ(ProducerOf(b, y).cost.bytes_written, 15 * 4);
}

TEST(CostTest, TransposedMatMulContractsTheRightDimension) {
  GraphBuilder b("t");
  TensorId a = b.Input("a", {7, 5});
  TensorId w = b.Variable("w", {3, 7});
  TensorId y = b.MatMul(a, w, /*transpose_a=*/true, /*transpose_b=*/true);
  EXPECT_EQ(b.shape(y), (Shape{5, 3}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.macs, 5.0 * 3 * 7);
}

TEST(CostTest, BatchMatMulCountsEveryBatch) {
  GraphBuilder b("t");
  TensorId q = b.Input("q", {4, 6, 8});
  TensorId k = b.Input("k", {4, 8, 10});
  TensorId y = b.BatchMatMul(q, k);
  EXPECT_EQ(ProducerOf(b, y).kind, OpKind::kBatchMatMul);
  EXPECT_DOUBLE_EQ(ProducerOf(b, y).cost.macs, 4.0 * 6 * 10 * 8);
}

TEST(CostTest, GemmAddsBiasPerOutput) {
  GraphBuilder b("t");
  TensorId a = b.Input("a", {2, 4});
  TensorId w = b.Variable("w", {3, 4});
  TensorId c = b.Variable("c", {3});
  OpId op = b.AddOp(OpKind::kGemm, "gemm", {a, w, c}, {{2, 3}}, {{"transB", int64_t{1}}});
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.macs, 2.0 * 3 * 4);
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 2.0 * 24 + 6);
}

TEST(CostTest, LstmLayerCountsGatesOverSteps) {
  GraphBuilder b("t");
  // T=5, B=2, I=3, H=4, one direction.
  TensorId x = b.Input("x", {5, 2, 3});
  TensorId w = b.Variable("w", {1, 16, 3});
  TensorId r = b.Variable("r", {1, 16, 4});
  OpId op = b.AddOp(OpKind::kLSTM, "lstm", {x, w, r}, {{5, 1, 2, 4}}, {{"hidden_size", int64_t{4}}});
  // MACs = T*B*4H*(I+H) = 5*2*16*7 = 1120; FLOPs = 2*1120 + T*B*H*32 = 2240 + 1280.
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.macs, 1120.0);
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 2240.0 + 1280.0);
}

TEST(CostTest, BidirectionalGruDoublesTheWork) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {3, 1, 2});
  TensorId w = b.Variable("w", {2, 6, 2});
  TensorId r = b.Variable("r", {2, 6, 2});
  OpId op = b.AddOp(OpKind::kGRU, "gru", {x, w, r}, {{3, 2, 1, 2}}, {{"hidden_size", int64_t{2}}});
  // D*T*B*3H*(I+H) = 2*3*1*6*4 = 144 MACs; + D*T*B*H*24 = 2*3*1*2*24 = 288.
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.macs, 144.0);
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 288.0 + 288.0);
}

TEST(CostTest, LstmCellIsOneStep) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {2, 3});
  TensorId w = b.Variable("w", {16, 3});
  TensorId r = b.Variable("r", {16, 4});
  OpId op = b.AddOp(OpKind::kLSTMCell, "cell", {x, w, r}, {{2, 4}, {2, 4}});
  // B*4H*(I+H) = 2*16*7 = 224 MACs; elementwise 2*4*32 = 256.
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.macs, 224.0);
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 448.0 + 256.0);
}

TEST(CostTest, SimpleRnnHasOneGate) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {2, 1, 3});
  TensorId w = b.Variable("w", {1, 5, 3});
  TensorId r = b.Variable("r", {1, 5, 5});
  OpId op = b.AddOp(OpKind::kRNN, "rnn", {x, w, r}, {{2, 1, 1, 5}}, {{"hidden_size", int64_t{5}}});
  // T*B*H*(I+H) = 2*1*5*8 = 80 MACs; elementwise 2*1*5*6 = 60.
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 160.0 + 60.0);
}

TEST(CostTest, ElementwiseUsesPerKindFlops) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {10, 10});
  TensorId s = b.Sigmoid(x);
  TensorId r = b.Relu(x);
  TensorId c = b.Variable("c", {10});
  TensorId a = b.Add(x, c);  // broadcast
  EXPECT_DOUBLE_EQ(ProducerOf(b, s).cost.flops, 400.0);  // 4 per element
  EXPECT_DOUBLE_EQ(ProducerOf(b, r).cost.flops, 100.0);
  EXPECT_DOUBLE_EQ(ProducerOf(b, a).cost.flops, 100.0);
  EXPECT_EQ(ProducerOf(b, a).cost.bytes_read, (100 + 10) * 4);
}

TEST(CostTest, AddNAddsAllButOneInput) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {8});
  TensorId y = b.Input("y", {8});
  TensorId z = b.Input("z", {8});
  TensorId s = b.AddN({x, y, z});
  EXPECT_DOUBLE_EQ(ProducerOf(b, s).cost.flops, 16.0);
}

TEST(CostTest, ReductionsSoftmaxAndNormsScaleWithInput) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {4, 25});
  TensorId g = b.Variable("g", {25});
  TensorId be = b.Variable("be", {25});
  EXPECT_DOUBLE_EQ(ProducerOf(b, b.Reduce(OpKind::kReduceSum, x, {1}, false)).cost.flops, 100.0);
  EXPECT_DOUBLE_EQ(ProducerOf(b, b.Softmax(x)).cost.flops, 500.0);
  EXPECT_DOUBLE_EQ(ProducerOf(b, b.LayerNorm(x, g, be)).cost.flops, 800.0);
  TensorId img = b.Input("img", {2, 3, 4, 4});
  TensorId sc = b.Variable("sc", {3});
  TensorId bi = b.Variable("bi", {3});
  EXPECT_DOUBLE_EQ(ProducerOf(b, b.BatchNorm(img, sc, bi)).cost.flops, 4.0 * 96);
}

// Training-mode batch norm: statistics, then normalize: its input read twice (96
// floats), scale and bias once (3 floats each); a LayerNorm's row stays on chip.
TEST(CostTest, BatchNormReadsItsInputTwiceLayerNormOnce) {
  GraphBuilder b("t");
  TensorId img = b.Input("img", {2, 3, 4, 4});
  TensorId sc = b.Variable("sc", {3});
  TensorId bi = b.Variable("bi", {3});
  EXPECT_EQ(ProducerOf(b, b.BatchNorm(img, sc, bi)).cost.bytes_read, (2 * 96 + 3 + 3) * 4);
  TensorId x = b.Input("x", {4, 25});
  TensorId g = b.Variable("g", {25});
  TensorId be = b.Variable("be", {25});
  EXPECT_EQ(ProducerOf(b, b.LayerNorm(x, g, be)).cost.bytes_read, (100 + 25 + 25) * 4);
}

TEST(CostTest, PoolingCountsTheWindow) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {1, 2, 6, 6});
  TensorId m = b.Pool2D(OpKind::kMaxPool, x, {3, 3}, {3, 3});
  EXPECT_EQ(b.shape(m), (Shape{1, 2, 2, 2}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, m).cost.flops, 8.0 * 9);
  TensorId g = b.GlobalAvgPool(x);
  EXPECT_EQ(b.shape(g), (Shape{1, 2, 1, 1}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, g).cost.flops, 72.0);
}

TEST(CostTest, GatherReadsOnlyTheGatheredRows) {
  GraphBuilder b("t");
  TensorId table = b.Variable("table", {1000, 16});
  TensorId ids = b.Input("ids", {4, 5}, DType::kI64);
  TensorId e = b.Gather(table, ids);
  EXPECT_EQ(b.shape(e), (Shape{4, 5, 16}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, e).cost.flops, 0.0);
  EXPECT_EQ(ProducerOf(b, e).cost.bytes_read, 20 * 16 * 4 + 20 * 8);
}

TEST(CostTest, DataMovementMovesBytesWithoutFlops) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {2, 3});
  TensorId y = b.Input("y", {2, 5});
  TensorId c = b.Concat({x, y}, 1);
  EXPECT_EQ(b.shape(c), (Shape{2, 8}));
  EXPECT_DOUBLE_EQ(ProducerOf(b, c).cost.flops, 0.0);
  EXPECT_EQ(ProducerOf(b, c).cost.bytes_read, 16 * 4);
  EXPECT_EQ(ProducerOf(b, c).cost.bytes_written, 16 * 4);
}

TEST(CostTest, ViewsAndSourcesAreFree) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {2, 3});
  TensorId r = b.Reshape(x, {6});
  EXPECT_DOUBLE_EQ(ProducerOf(b, r).cost.flops, 0.0);
  EXPECT_EQ(ProducerOf(b, r).cost.bytes_read, 0);
  EXPECT_EQ(ProducerOf(b, x).cost.bytes_written, 0);
}

TEST(CostTest, SoftmaxCrossEntropyIsSixFlopsPerLogit) {
  GraphBuilder b("t");
  TensorId logits = b.Input("logits", {4, 10});
  TensorId labels = b.Input("labels", {4}, DType::kI64);
  TensorId loss = b.SoftmaxCrossEntropy(logits, labels);
  EXPECT_DOUBLE_EQ(ProducerOf(b, loss).cost.flops, 240.0);
}

TEST(CostTest, ApplyGradientUsesFlopsPerElement) {
  GraphBuilder b("t");
  TensorId w = b.Variable("w", {10, 10});
  TensorId g = b.Input("g", {10, 10});
  OpId op = b.AddOp(OpKind::kApplyGradient, "update", {w, g}, {}, {{"flops_per_element", 4.0}});
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 400.0);
}

TEST(CostTest, GenericOpIsCostedByBytesOnly) {
  GraphBuilder b("t");
  TensorId x = b.Input("x", {10});
  OpId op = b.AddOp(OpKind::kGeneric, "mystery", {x}, {{20}});
  EXPECT_DOUBLE_EQ(b.graph().op(op).cost.flops, 0.0);
  EXPECT_EQ(b.graph().op(op).cost.bytes_read, 40);
  EXPECT_EQ(b.graph().op(op).cost.bytes_written, 80);
}

}  // namespace
}  // namespace graphopt
