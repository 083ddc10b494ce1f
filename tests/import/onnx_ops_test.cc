// One test per operator of the exporters' op set: a one-node model whose output
// shape, FLOPs, MACs and bytes are computed by hand (onnx_op_table.h states the
// formulas).
#include <gtest/gtest.h>

#include <cstdio>

#include "import/onnx_import.h"
#include "onnx_test_util.h"

namespace graphopt {
namespace {

using namespace onnx_test;  // NOLINT

StatusOr<Graph> Import(const onnx::ModelProto& m, const std::string& name, std::vector<std::string>* warnings = nullptr) {
  const std::string path = WriteModel(m, name + ".onnx");
  OnnxImportOptions options;
  options.warnings = warnings;
  StatusOr<Graph> g = ImportOnnx(path, options);
  std::remove(path.c_str());
  return g;
}

// Imports m and returns its op named "op" (the test fails if either is missing).
Op ImportedOp(const onnx::ModelProto& m, const std::string& name, Graph* graph) {
  std::vector<std::string> warnings;
  StatusOr<Graph> g = Import(m, name, &warnings);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(warnings.empty()) << warnings[0];
  if (!g.ok()) return Op();
  *graph = std::move(*g);
  const Op* op = FindOp(*graph, "op");
  EXPECT_NE(op, nullptr);
  return op != nullptr ? *op : Op();
}

Shape OutShape(const Graph& g, const Op& op, size_t k = 0) { return g.tensor(op.outputs.at(k)).shape; }

// A model with float inputs of the given shapes (named x0, x1, ...) and one node "op".
onnx::ModelProto Unary(const std::string& type, const std::vector<int64_t>& dims, int opset = 13) {
  onnx::ModelProto m = NewModel(opset);
  AddInput(&m, "x", dims);
  AddNode(&m, type, {"x"}, {"y"}, "op");
  return m;
}

TEST(OnnxOpsTest, HardSigmoidIsFourFlopsPerElement) {
  Graph g;
  const Op op = ImportedOp(Unary("HardSigmoid", {2, 8}), "hardsigmoid", &g);
  EXPECT_EQ(op.kind, OpKind::kSigmoid);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 8}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 4.0 * 16);
  EXPECT_EQ(op.cost.bytes_read, 64);
  EXPECT_EQ(op.cost.bytes_written, 64);
}

TEST(OnnxOpsTest, HardSwishIsFiveFlopsPerElement) {
  Graph g;
  const Op op = ImportedOp(Unary("HardSwish", {2, 8}, 14), "hardswish", &g);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 8}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 5.0 * 16);
  EXPECT_EQ(GetStringAttr(op.attrs, "op_type", ""), "HardSwish");
}

TEST(OnnxOpsTest, ModIsThreeFlopsPerElement) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "a", {4}, onnx::TensorProto::INT64);
  AddInput(&m, "b", {4}, onnx::TensorProto::INT64);
  AddNode(&m, "Mod", {"a", "b"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "mod", &g);
  EXPECT_EQ(op.kind, OpKind::kDiv);
  EXPECT_DOUBLE_EQ(op.cost.flops, 3.0 * 4);
  EXPECT_EQ(op.cost.bytes_read, 64);
  EXPECT_EQ(op.cost.bytes_written, 32);
}

TEST(OnnxOpsTest, ErfIsFourFlopsPerElement) {
  Graph g;
  const Op op = ImportedOp(Unary("Erf", {3, 5}), "erf", &g);
  EXPECT_EQ(op.kind, OpKind::kErf);
  EXPECT_DOUBLE_EQ(op.cost.flops, 4.0 * 15);
}

TEST(OnnxOpsTest, GeluNewerThanTheSchemasKeepsItsInputShape) {
  Graph g;
  const Op op = ImportedOp(Unary("Gelu", {2, 4}, 17), "gelu", &g);
  EXPECT_EQ(op.kind, OpKind::kGelu);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 4}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 8.0 * 8);
}

TEST(OnnxOpsTest, LayerNormalizationIsEightFlopsPerElement) {
  onnx::ModelProto m = NewModel(17);
  AddInput(&m, "x", {2, 3, 4});
  AddInitializer(&m, "scale", {4});
  AddInitializer(&m, "bias", {4});
  AddIntAttr(AddNode(&m, "LayerNormalization", {"x", "scale", "bias"}, {"y"}, "op"), "axis", -1);
  Graph g;
  const Op op = ImportedOp(m, "layernorm", &g);
  EXPECT_EQ(op.kind, OpKind::kLayerNorm);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 3, 4}));
  EXPECT_EQ(GetIntAttr(op.attrs, "axis", 0), 2);
  EXPECT_DOUBLE_EQ(op.cost.flops, 8.0 * 24);
}

TEST(OnnxOpsTest, GroupNormalizationIsEightFlopsPerElement) {
  onnx::ModelProto m = NewModel(18);
  AddInput(&m, "x", {2, 4, 3, 3});
  AddInitializer(&m, "scale", {2});
  AddInitializer(&m, "bias", {2});
  AddIntAttr(AddNode(&m, "GroupNormalization", {"x", "scale", "bias"}, {"y"}, "op"), "num_groups", 2);
  Graph g;
  const Op op = ImportedOp(m, "groupnorm", &g);
  EXPECT_EQ(op.kind, OpKind::kLayerNorm);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 4, 3, 3}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 8.0 * 72);
}

TEST(OnnxOpsTest, InstanceNormalizationIsEightFlopsPerElement) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 4, 5, 5});
  AddInitializer(&m, "scale", {4});
  AddInitializer(&m, "bias", {4});
  AddNode(&m, "InstanceNormalization", {"x", "scale", "bias"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "instancenorm", &g);
  EXPECT_EQ(OutShape(g, op), (Shape{1, 4, 5, 5}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 8.0 * 100);
}

onnx::ModelProto EinsumModel(const std::string& equation) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "a", {2, 3, 4});
  AddInput(&m, "b", {2, 4, 5});
  AddStringAttr(AddNode(&m, "Einsum", {"a", "b"}, {"y"}, "op"), "equation", equation);
  return m;
}

TEST(OnnxOpsTest, EinsumContractionCountsEveryIndexCombination) {
  Graph g;
  const Op op = ImportedOp(EinsumModel("bij,bjk->bik"), "einsum", &g);
  EXPECT_EQ(op.kind, OpKind::kBatchMatMul);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 3, 5}));
  EXPECT_DOUBLE_EQ(op.cost.macs, 2.0 * 3 * 4 * 5);
  EXPECT_DOUBLE_EQ(op.cost.flops, 2 * 2.0 * 3 * 4 * 5);
}

TEST(OnnxOpsTest, EinsumWithEllipsisCountsTheBroadcastDimensions) {
  Graph g;
  const Op op = ImportedOp(EinsumModel("...ij,...jk->...ik"), "einsum_ellipsis", &g);
  EXPECT_DOUBLE_EQ(op.cost.macs, 2.0 * 3 * 4 * 5);
}

TEST(OnnxOpsTest, EinsumWithATransposedOperandIsABatchMatMul) {
  // Attention scores as MaxViT exports them: q k^T over batch letters.
  onnx::ModelProto m = NewModel();
  AddInput(&m, "q", {2, 3, 4});
  AddInput(&m, "k", {2, 5, 4});
  AddStringAttr(AddNode(&m, "Einsum", {"q", "k"}, {"y"}, "op"), "equation", "B I D, B J D -> B I J");
  Graph g;
  const Op op = ImportedOp(m, "einsum_qk", &g);
  EXPECT_EQ(op.kind, OpKind::kBatchMatMul);
  EXPECT_EQ(GetIntAttr(op.attrs, "transpose_b", 0), 1);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 3, 5}));
  EXPECT_DOUBLE_EQ(op.cost.macs, 2.0 * 3 * 5 * 4);
}

TEST(OnnxOpsTest, EinsumThatIsNoMatMulIsGenericWithItsContractionCost) {
  // An outer product over a shared batch letter, summed over j: "bi,bj->b".
  onnx::ModelProto m = NewModel();
  AddInput(&m, "a", {2, 3});
  AddInput(&m, "b", {2, 5});
  AddStringAttr(AddNode(&m, "Einsum", {"a", "b"}, {"y"}, "op"), "equation", "bi,bj->b");
  Graph g;
  const Op op = ImportedOp(m, "einsum_generic", &g);
  EXPECT_EQ(op.kind, OpKind::kGeneric);
  EXPECT_EQ(OutShape(g, op), (Shape{2}));
  EXPECT_DOUBLE_EQ(op.cost.macs, 2.0 * 3 * 5);
}

TEST(OnnxOpsTest, EinsumImplicitOutputTakesTheLettersUsedOnce) {
  Graph g;
  const Op op = ImportedOp(EinsumModel("bij,bjk"), "einsum_implicit", &g);
  // b and j appear twice (summed over), i and k once: the output is "ik".
  EXPECT_EQ(OutShape(g, op), (Shape{3, 5}));
  EXPECT_DOUBLE_EQ(op.cost.macs, 2.0 * 3 * 4 * 5);
}

TEST(OnnxOpsTest, WhereBroadcastsItsOperands) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "c", {4}, onnx::TensorProto::BOOL);
  AddInput(&m, "x", {3, 4});
  AddInput(&m, "y", {1});
  AddNode(&m, "Where", {"c", "x", "y"}, {"out"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "where", &g);
  EXPECT_EQ(op.kind, OpKind::kWhere);
  EXPECT_EQ(OutShape(g, op), (Shape{3, 4}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 12);
}

TEST(OnnxOpsTest, ExpandMovesBytesOnly) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {3, 1});
  AddInts(&m, "shape", {2, 3, 4});
  AddNode(&m, "Expand", {"x", "shape"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "expand", &g);
  EXPECT_EQ(op.kind, OpKind::kExpand);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 3, 4}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 0);
  EXPECT_EQ(op.cost.bytes_read, 12 + 24);
  EXPECT_EQ(op.cost.bytes_written, 96);
}

TEST(OnnxOpsTest, RangeOfComputedLimitIsAShapeComputation) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {6, 2});
  AddInts(&m, "zero", {0}, true);
  AddInts(&m, "one", {1}, true);
  AddNode(&m, "Shape", {"x"}, {"s"});
  AddNode(&m, "Gather", {"s", "zero"}, {"n"});
  AddNode(&m, "Range", {"zero", "n", "one"}, {"r"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "range", &g);
  EXPECT_EQ(OutShape(g, op), (Shape{6}));
  EXPECT_EQ(op.kind, OpKind::kShapeCompute);
  EXPECT_DOUBLE_EQ(op.cost.flops, 0);
}

TEST(OnnxOpsTest, FloatRangeWritesItsOutput) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1});
  AddFloats(&m, "start", {0.0f});
  AddFloats(&m, "limit", {3.0f});
  AddFloats(&m, "delta", {0.5f});
  m.mutable_graph()->mutable_initializer(0)->clear_dims();
  m.mutable_graph()->mutable_initializer(1)->clear_dims();
  m.mutable_graph()->mutable_initializer(2)->clear_dims();
  AddNode(&m, "Range", {"start", "limit", "delta"}, {"r"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "float_range", &g);
  EXPECT_EQ(OutShape(g, op), (Shape{6}));
  EXPECT_EQ(op.kind, OpKind::kExpand);
  EXPECT_DOUBLE_EQ(op.cost.flops, 6);
  EXPECT_EQ(op.cost.bytes_read, 0);
  EXPECT_EQ(op.cost.bytes_written, 24);
}

TEST(OnnxOpsTest, CumSumIsOneFlopPerElement) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {3, 4});
  AddInts(&m, "axis", {1}, true);
  AddNode(&m, "CumSum", {"x", "axis"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "cumsum", &g);
  EXPECT_EQ(op.kind, OpKind::kReduceSum);
  EXPECT_EQ(OutShape(g, op), (Shape{3, 4}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 12);
}

TEST(OnnxOpsTest, TopKCostsALogKHeapPerInputElement) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {2, 10});
  AddInts(&m, "k", {3});
  AddNode(&m, "TopK", {"x", "k"}, {"values", "indices"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "topk", &g);
  EXPECT_EQ(OutShape(g, op, 0), (Shape{2, 3}));
  EXPECT_EQ(OutShape(g, op, 1), (Shape{2, 3}));
  EXPECT_EQ(g.tensor(op.outputs[1]).dtype, DType::kI64);
  EXPECT_DOUBLE_EQ(op.cost.flops, 20.0 * 2);  // ceil(log2(3 + 1)) = 2
}

onnx::ModelProto ResizeModel(const std::string& mode) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 2, 4, 4});
  AddFloats(&m, "scales", {1, 1, 2, 2});
  AddStringAttr(AddNode(&m, "Resize", {"x", "", "scales"}, {"y"}, "op"), "mode", mode);
  return m;
}

TEST(OnnxOpsTest, LinearResizeInterpolatesFourInputsPerOutput) {
  Graph g;
  const Op op = ImportedOp(ResizeModel("linear"), "resize_linear", &g);
  EXPECT_EQ(OutShape(g, op), (Shape{1, 2, 8, 8}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 128.0 * 8);
  EXPECT_EQ(op.cost.bytes_read, 128);
  EXPECT_EQ(op.cost.bytes_written, 512);
}

TEST(OnnxOpsTest, NearestResizeOnlyMovesBytes) {
  Graph g;
  const Op op = ImportedOp(ResizeModel("nearest"), "resize_nearest", &g);
  EXPECT_DOUBLE_EQ(op.cost.flops, 0);
  EXPECT_EQ(op.cost.bytes_written, 512);
}

TEST(OnnxOpsTest, ScatterNDReadsDataIndicesAndUpdates) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "data", {4, 3});
  AddInput(&m, "indices", {2, 1}, onnx::TensorProto::INT64);
  AddInput(&m, "updates", {2, 3});
  AddNode(&m, "ScatterND", {"data", "indices", "updates"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "scatternd", &g);
  EXPECT_EQ(op.kind, OpKind::kScatterAdd);
  EXPECT_EQ(OutShape(g, op), (Shape{4, 3}));
  EXPECT_EQ(op.cost.bytes_read, 48 + 16 + 24);
  EXPECT_EQ(op.cost.bytes_written, 48);
}

TEST(OnnxOpsTest, GatherElementsReadsOnlyWhatItGathers) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "data", {3, 4});
  AddInput(&m, "idx", {3, 2}, onnx::TensorProto::INT64);
  AddIntAttr(AddNode(&m, "GatherElements", {"data", "idx"}, {"y"}, "op"), "axis", 1);
  Graph g;
  const Op op = ImportedOp(m, "gatherelements", &g);
  EXPECT_EQ(op.kind, OpKind::kGather);
  EXPECT_EQ(OutShape(g, op), (Shape{3, 2}));
  EXPECT_EQ(op.cost.bytes_read, 24 + 48);
  EXPECT_EQ(op.cost.bytes_written, 24);
}

TEST(OnnxOpsTest, GatherNDReadsOnlyWhatItGathers) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "data", {2, 3, 4});
  AddInput(&m, "idx", {2, 1}, onnx::TensorProto::INT64);
  AddNode(&m, "GatherND", {"data", "idx"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "gathernd", &g);
  EXPECT_EQ(OutShape(g, op), (Shape{2, 3, 4}));
  EXPECT_EQ(op.cost.bytes_read, 96 + 16);
}

TEST(OnnxOpsTest, TriluIsOneFlopPerElement) {
  Graph g;
  const Op op = ImportedOp(Unary("Trilu", {4, 4}, 14), "trilu", &g);
  EXPECT_EQ(op.kind, OpKind::kWhere);
  EXPECT_EQ(OutShape(g, op), (Shape{4, 4}));
  EXPECT_DOUBLE_EQ(op.cost.flops, 16);
}

TEST(OnnxOpsTest, PadTakesItsComputedPads) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 2, 3});
  AddInts(&m, "pads", {0, 0, 1, 0, 0, 2});
  AddNode(&m, "Pad", {"x", "pads"}, {"y"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "pad", &g);
  EXPECT_EQ(op.kind, OpKind::kPad);
  EXPECT_EQ(OutShape(g, op), (Shape{1, 2, 6}));
  EXPECT_EQ(op.cost.bytes_read, 24 + 48);
  EXPECT_EQ(op.cost.bytes_written, 48);
}

TEST(OnnxOpsTest, SplitRecordsItsSizes) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {6, 4});
  AddInts(&m, "split", {2, 4});
  AddNode(&m, "Split", {"x", "split"}, {"a", "b"}, "op");
  Graph g;
  const Op op = ImportedOp(m, "split", &g);
  EXPECT_EQ(op.kind, OpKind::kSplit);
  EXPECT_EQ(OutShape(g, op, 0), (Shape{2, 4}));
  EXPECT_EQ(OutShape(g, op, 1), (Shape{4, 4}));
  EXPECT_EQ(GetIntsAttr(op.attrs, "split"), (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(op.cost.bytes_written, 96);
}

TEST(OnnxOpsTest, DepthToSpaceIsATranspose) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 8, 2, 2});
  AddIntAttr(AddNode(&m, "DepthToSpace", {"x"}, {"y"}, "op"), "blocksize", 2);
  Graph g;
  const Op op = ImportedOp(m, "depthtospace", &g);
  EXPECT_EQ(op.kind, OpKind::kTranspose);
  EXPECT_EQ(OutShape(g, op), (Shape{1, 2, 4, 4}));
  EXPECT_EQ(op.cost.bytes_read, 128);
  EXPECT_EQ(op.cost.bytes_written, 128);
}

TEST(OnnxOpsTest, ConvTransposeMacsArePerInputElement) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 4, 3, 3});
  AddInitializer(&m, "w", {4, 2, 3, 3});
  AddIntsAttr(AddNode(&m, "ConvTranspose", {"x", "w"}, {"y"}, "op"), "strides", {2, 2});
  Graph g;
  const Op op = ImportedOp(m, "convtranspose", &g);
  EXPECT_EQ(op.kind, OpKind::kConvTranspose);
  EXPECT_EQ(OutShape(g, op), (Shape{1, 2, 7, 7}));
  EXPECT_DOUBLE_EQ(op.cost.macs, 36.0 * 18);
}

// x [5 steps, 2 batch, 3 input], hidden 4, gates weights W [1, g*4, 3], R [1, g*4, 4].
Op RecurrentOp(const std::string& type, int gates, Graph* g) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {5, 2, 3});
  AddInitializer(&m, "w", {1, gates * 4, 3});
  AddInitializer(&m, "r", {1, gates * 4, 4});
  AddIntAttr(AddNode(&m, type, {"x", "w", "r"}, {"y", "h"}, "op"), "hidden_size", 4);
  return ImportedOp(m, type, g);
}

TEST(OnnxOpsTest, LstmMacsAreFourGatesPerStep) {
  Graph g;
  const Op op = RecurrentOp("LSTM", 4, &g);
  EXPECT_EQ(op.kind, OpKind::kLSTM);
  EXPECT_EQ(OutShape(g, op), (Shape{5, 1, 2, 4}));
  EXPECT_DOUBLE_EQ(op.cost.macs, 5.0 * 2 * 4 * 4 * (3 + 4));
}

TEST(OnnxOpsTest, GruMacsAreThreeGatesPerStep) {
  Graph g;
  const Op op = RecurrentOp("GRU", 3, &g);
  EXPECT_EQ(op.kind, OpKind::kGRU);
  EXPECT_DOUBLE_EQ(op.cost.macs, 5.0 * 2 * 3 * 4 * (3 + 4));
}

TEST(OnnxOpsTest, RnnMacsAreOneGatePerStep) {
  Graph g;
  const Op op = RecurrentOp("RNN", 1, &g);
  EXPECT_EQ(op.kind, OpKind::kRNN);
  EXPECT_DOUBLE_EQ(op.cost.macs, 5.0 * 2 * 1 * 4 * (3 + 4));
}

TEST(OnnxOpsTest, ExportedAttentionIsBatchedProductsAroundASoftmax) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "q", {2, 4, 8, 16});
  AddInput(&m, "kt", {2, 4, 16, 8});
  AddInput(&m, "v", {2, 4, 8, 16});
  AddNode(&m, "MatMul", {"q", "kt"}, {"scores"}, "op");
  AddIntAttr(AddNode(&m, "Softmax", {"scores"}, {"probs"}, "softmax"), "axis", -1);
  AddNode(&m, "MatMul", {"probs", "v"}, {"out"}, "context");
  Graph g;
  const Op op = ImportedOp(m, "attention", &g);
  EXPECT_EQ(op.kind, OpKind::kBatchMatMul);
  EXPECT_DOUBLE_EQ(op.cost.macs, 2.0 * 4 * 8 * 8 * 16);
  EXPECT_DOUBLE_EQ(FindOp(g, "softmax")->cost.flops, 5.0 * 512);
  EXPECT_DOUBLE_EQ(FindOp(g, "context")->cost.macs, 2.0 * 4 * 8 * 16 * 8);
  EXPECT_EQ(g.tensor(FindOp(g, "context")->outputs[0]).shape, (Shape{2, 4, 8, 16}));
}

TEST(OnnxOpsTest, LoopIsRefusedNamingTheNode) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "n", {}, onnx::TensorProto::INT64);
  AddInput(&m, "x", {4});
  auto* loop = AddNode(&m, "Loop", {"n", "", "x"}, {"y"}, "looper");
  auto* body = loop->add_attribute();
  body->set_name("body");
  body->set_type(onnx::AttributeProto::GRAPH);
  body->mutable_g()->set_name("body");
  StatusOr<Graph> g = Import(m, "loop");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'looper' (Loop)"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("loops are not imported"), std::string::npos) << g.status().message();
}

TEST(OnnxOpsTest, TensorSequenceIsRefusedNamingTheNode) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {4});
  AddIntAttr(AddNode(&m, "SequenceEmpty", {}, {"seq"}, "empty_list"), "dtype", onnx::TensorProto::FLOAT);
  AddNode(&m, "SequenceInsert", {"seq", "x"}, {"seq1"});
  StatusOr<Graph> g = Import(m, "sequence");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'empty_list' (SequenceEmpty)"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("tensor sequences are not imported"), std::string::npos) << g.status().message();
}

TEST(OnnxOpsTest, NonZeroTakesTheUpperBoundWithAWarning) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {3, 4});
  AddNode(&m, "NonZero", {"x"}, {"y"}, "op");
  std::vector<std::string> warnings;
  StatusOr<Graph> g = Import(m, "nonzero", &warnings);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->tensor(FindOp(*g, "op")->outputs[0]).shape, (Shape{2, 12}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("'op' (NonZero)"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("upper bound"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace graphopt
