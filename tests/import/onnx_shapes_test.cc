// The shape evaluator: shape subgraphs as the exporters write them evaluate to
// constants, so every downstream shape is computed; what cannot be computed is an
// error naming the tensor and its node.
#include <gtest/gtest.h>

#include <cstdio>

#include "import/onnx_import.h"
#include "onnx_test_util.h"

namespace graphopt {
namespace {

using namespace onnx_test;  // NOLINT

StatusOr<Graph> Import(const onnx::ModelProto& m, const std::string& name, const OnnxImportOptions& options = {}) {
  const std::string path = WriteModel(m, name + ".onnx");
  StatusOr<Graph> g = ImportOnnx(path, options);
  std::remove(path.c_str());
  return g;
}

Shape ShapeOf(const StatusOr<Graph>& g, const std::string& tensor) {
  if (!g.ok()) return {-1};
  const Tensor* t = FindTensor(*g, tensor);
  return t == nullptr ? Shape{-2} : t->shape;
}

// The class token of a Vision Transformer as PyTorch exports it: expand a [1,1,D]
// parameter to (batch, -1, -1), where batch comes from Shape/Gather and the -1 are
// resolved by ConstantOfShape/Mul/Equal/Where, then concatenate with the patches.
onnx::ModelProto ClassTokenModel() {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {2, 5, 8}, onnx::TensorProto::FLOAT, {"batch"});
  AddInitializer(&m, "cls", {1, 1, 8});
  AddInts(&m, "zero", {0}, true);
  AddInts(&m, "axes", {0});
  AddInts(&m, "minus", {-1, -1});
  AddInts(&m, "three", {3});
  AddInts(&m, "neg_one", {-1}, true);
  AddNode(&m, "Shape", {"x"}, {"shape"});
  AddNode(&m, "Gather", {"shape", "zero"}, {"n"});
  AddNode(&m, "Unsqueeze", {"n", "axes"}, {"n1"});
  AddIntAttr(AddNode(&m, "Concat", {"n1", "minus"}, {"target"}), "axis", 0);
  auto* ones = AddNode(&m, "ConstantOfShape", {"three"}, {"ones"});
  auto* value = ones->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(1);
  AddNode(&m, "Mul", {"ones", "neg_one"}, {"minus_ones"});
  AddNode(&m, "Equal", {"target", "minus_ones"}, {"is_free"});
  AddNode(&m, "Where", {"is_free", "ones", "target"}, {"expand_to"});
  AddNode(&m, "Expand", {"cls", "expand_to"}, {"tokens"});
  AddIntAttr(AddNode(&m, "Concat", {"tokens", "x"}, {"y"}, "join"), "axis", 1);
  return m;
}

TEST(OnnxShapesTest, ClassTokenExpandedToAComputedShapeConcatenates) {
  OnnxImportOptions options;
  options.dim_values["batch"] = 3;
  StatusOr<Graph> g = Import(ClassTokenModel(), "class_token", options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(ShapeOf(g, "tokens"), (Shape{3, 1, 8}));
  EXPECT_EQ(ShapeOf(g, "y"), (Shape{3, 6, 8}));
  const Op* where = FindOp(*g, "Where_7");
  ASSERT_NE(where, nullptr);
  EXPECT_EQ(where->kind, OpKind::kShapeCompute);
  EXPECT_EQ(g->metadata().at("dims"), "batch=3");
}

TEST(OnnxShapesTest, ReshapeTakesZeroAndMinusOne) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {2, 3, 4});
  AddInts(&m, "to", {0, -1});
  AddNode(&m, "Reshape", {"x", "to"}, {"y"});
  EXPECT_EQ(ShapeOf(Import(m, "reshape"), "y"), (Shape{2, 12}));
}

TEST(OnnxShapesTest, ReshapeToASlicedShapeOfAnotherTensor) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {2, 3, 4, 5});
  AddInts(&m, "starts", {0});
  AddInts(&m, "ends", {2});
  AddInts(&m, "rest", {-1});
  AddNode(&m, "Shape", {"x"}, {"s"});
  AddNode(&m, "Slice", {"s", "starts", "ends"}, {"head"});
  AddIntAttr(AddNode(&m, "Concat", {"head", "rest"}, {"to"}), "axis", 0);
  AddNode(&m, "Reshape", {"x", "to"}, {"y"});
  EXPECT_EQ(ShapeOf(Import(m, "reshape_sliced"), "y"), (Shape{2, 3, 20}));
}

TEST(OnnxShapesTest, ArithmeticOnShapesDividesHeads) {
  // [b, t, d] -> [b, t, heads, d / heads] with d / heads computed by Div.
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {2, 7, 12});
  AddInts(&m, "i0", {0}, true);
  AddInts(&m, "i1", {1}, true);
  AddInts(&m, "i2", {2}, true);
  AddInts(&m, "heads", {3}, true);
  AddInts(&m, "axes", {0});
  AddNode(&m, "Shape", {"x"}, {"s"});
  AddNode(&m, "Gather", {"s", "i0"}, {"b"});
  AddNode(&m, "Gather", {"s", "i1"}, {"t"});
  AddNode(&m, "Gather", {"s", "i2"}, {"d"});
  AddNode(&m, "Div", {"d", "heads"}, {"hd"});
  for (const char* n : {"b", "t", "heads", "hd"}) AddNode(&m, "Unsqueeze", {n, "axes"}, {std::string(n) + "_1"});
  AddIntAttr(AddNode(&m, "Concat", {"b_1", "t_1", "heads_1", "hd_1"}, {"to"}), "axis", 0);
  AddNode(&m, "Reshape", {"x", "to"}, {"y"});
  StatusOr<Graph> g = Import(m, "heads");
  EXPECT_EQ(ShapeOf(g, "y"), (Shape{2, 7, 3, 4}));
}

TEST(OnnxShapesTest, TileAndRangeOfComputedSizes) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {4, 2});
  AddInts(&m, "zero", {0}, true);
  AddInts(&m, "one", {1}, true);
  AddNode(&m, "Size", {"x"}, {"n"});
  AddNode(&m, "Range", {"zero", "n", "one"}, {"r"});
  AddNode(&m, "Shape", {"x"}, {"reps"});
  AddNode(&m, "Tile", {"x", "reps"}, {"y"});
  StatusOr<Graph> g = Import(m, "tile_range");
  EXPECT_EQ(ShapeOf(g, "r"), (Shape{8}));
  EXPECT_EQ(ShapeOf(g, "y"), (Shape{16, 4}));
}

TEST(OnnxShapesTest, CastAndSqueezeKeepValues) {
  // A float scale computed from a shape and cast back: Resize sizes of an upsample.
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 2, 3, 5});
  AddInts(&m, "starts", {2});
  AddInts(&m, "ends", {4});
  AddInts(&m, "head", {1, 2});
  AddFloats(&m, "scale", {2.0f});
  AddNode(&m, "Shape", {"x"}, {"s"});
  AddNode(&m, "Slice", {"s", "starts", "ends"}, {"hw"});
  AddIntAttr(AddNode(&m, "Cast", {"hw"}, {"hw_f"}), "to", onnx::TensorProto::FLOAT);
  AddNode(&m, "Mul", {"hw_f", "scale"}, {"scaled"});
  AddNode(&m, "Floor", {"scaled"}, {"floored"});
  AddIntAttr(AddNode(&m, "Cast", {"floored"}, {"hw2"}), "to", onnx::TensorProto::INT64);
  AddIntAttr(AddNode(&m, "Concat", {"head", "hw2"}, {"sizes"}), "axis", 0);
  AddNode(&m, "Resize", {"x", "", "", "sizes"}, {"y"});
  EXPECT_EQ(ShapeOf(Import(m, "upsample"), "y"), (Shape{1, 2, 6, 10}));
}

// The pads of F.pad as PyTorch exports them: a flat [begin..., end...] list built
// from computed sizes, reshaped to pairs, reversed by a Slice with step -1,
// transposed and flattened.
TEST(OnnxShapesTest, PadsReversedBySliceAndTransposeAreComputed) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 5, 6});
  AddInts(&m, "raw", {0, 0, 0, 3, 0, 2});  // (last-axis pair, middle pair, first pair)
  AddInts(&m, "pairs", {-1, 2});
  AddInts(&m, "start", {-1});
  AddInts(&m, "end", {-9223372036854775807LL});
  AddInts(&m, "axis0", {0});
  AddInts(&m, "step", {-1});
  AddInts(&m, "flat", {-1});
  AddNode(&m, "Reshape", {"raw", "pairs"}, {"p2"});
  AddNode(&m, "Slice", {"p2", "start", "end", "axis0", "step"}, {"reversed"});
  AddIntsAttr(AddNode(&m, "Transpose", {"reversed"}, {"cols"}), "perm", {1, 0});
  AddNode(&m, "Reshape", {"cols", "flat"}, {"pads"});
  AddNode(&m, "Pad", {"x", "pads"}, {"y"});
  // pairs [[0,0],[0,3],[0,2]] reversed -> [[0,2],[0,3],[0,0]] -> begins 0,0,0, ends 2,3,0.
  EXPECT_EQ(ShapeOf(Import(m, "pads"), "y"), (Shape{3, 8, 6}));
}

TEST(OnnxShapesTest, SplitOfAComputedShapeGivesEveryPart) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {4, 6, 8});
  AddInts(&m, "sizes", {1, 2});
  AddNode(&m, "Shape", {"x"}, {"shape"});
  AddNode(&m, "Split", {"shape", "sizes"}, {"head", "tail"});
  AddInts(&m, "one", {1});
  AddIntAttr(AddNode(&m, "Concat", {"tail", "one"}, {"target"}), "axis", 0);
  AddNode(&m, "Reshape", {"x", "target"}, {"y"});
  EXPECT_EQ(ShapeOf(Import(m, "split"), "y"), (Shape{6, 8, 1}));
}

TEST(OnnxShapesTest, Opset18ReductionTakesItsAxesInput) {
  onnx::ModelProto m = NewModel(18);
  AddInput(&m, "x", {2, 3, 4});
  AddInts(&m, "axes", {-1});
  AddIntAttr(AddNode(&m, "ReduceMean", {"x", "axes"}, {"mean"}), "keepdims", 0);
  AddNode(&m, "ReduceMax", {"x", "axes"}, {"max"});
  const StatusOr<Graph> g = Import(m, "reduce18");
  EXPECT_EQ(ShapeOf(g, "mean"), (Shape{2, 3}));
  EXPECT_EQ(ShapeOf(g, "max"), (Shape{2, 3, 1}));
}

TEST(OnnxShapesTest, ReshapeToAnInputValueIsAnErrorNamingTensorAndNode) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {2, 3});
  AddInput(&m, "to", {2}, onnx::TensorProto::INT64);
  AddNode(&m, "Reshape", {"x", "to"}, {"y"}, "reshaper");
  StatusOr<Graph> g = Import(m, "data_dependent");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("tensor 'y'"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("'reshaper' (Reshape)"), std::string::npos) << g.status().message();
}

onnx::ModelProto DynamicModel() {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "idx", {1, 1}, onnx::TensorProto::FLOAT, {"batch", "seq"});
  AddNode(&m, "Relu", {"idx"}, {"y"});
  return m;
}

TEST(OnnxShapesTest, UnboundDimensionIsAnErrorNamingIt) {
  OnnxImportOptions options;
  options.dim_values["batch"] = 2;
  StatusOr<Graph> g = Import(DynamicModel(), "unbound", options);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'seq'"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("--dim seq=N"), std::string::npos) << g.status().message();
}

TEST(OnnxShapesTest, BoundDimensionsSizeTheInputs) {
  OnnxImportOptions options;
  options.dim_values = {{"batch", 2}, {"seq", 64}};
  EXPECT_EQ(ShapeOf(Import(DynamicModel(), "bound", options), "y"), (Shape{2, 64}));
}

TEST(OnnxShapesTest, BindingADimensionTheModelLacksIsAnError) {
  OnnxImportOptions options;
  options.dim_values = {{"batch", 2}, {"seq", 64}, {"sequence", 8}};
  StatusOr<Graph> g = Import(DynamicModel(), "typo", options);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("'sequence'"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("batch, seq"), std::string::npos) << g.status().message();
}

TEST(OnnxShapesTest, DefaultDimensionIsNamedInAWarning) {
  std::vector<std::string> warnings;
  OnnxImportOptions options;
  options.dim_values["batch"] = 2;
  options.default_dim = 5;
  options.warnings = &warnings;
  StatusOr<Graph> g = Import(DynamicModel(), "defaulted", options);
  EXPECT_EQ(ShapeOf(g, "y"), (Shape{2, 5}));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("seq"), std::string::npos) << warnings[0];
  // The graph's metadata (printed by inspect) names the default too.
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->metadata().at("dims"), "batch=2,seq=5 (default)");
}

TEST(OnnxShapesTest, DimBindingsParse) {
  OnnxImportOptions options;
  ASSERT_TRUE(ParseDimBindings("batch=32,seq=512,*=1", &options).ok());
  EXPECT_EQ(options.dim_values.at("batch"), 32);
  EXPECT_EQ(options.dim_values.at("seq"), 512);
  EXPECT_EQ(options.default_dim, 1);
  EXPECT_FALSE(ParseDimBindings("batch", &options).ok());
  EXPECT_FALSE(ParseDimBindings("batch=0", &options).ok());
  EXPECT_FALSE(ParseDimBindings("batch=3x", &options).ok());
}

}  // namespace
}  // namespace graphopt
