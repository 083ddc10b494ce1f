// Attributes ONNX's own shape inference trusts (onnx_inference_guard.h): values that
// crashed or hung the library are errors naming the node and the attribute. The
// models are imported from their bytes (ImportOnnxBytes), as the fuzz target does.
#include <gtest/gtest.h>

#include "import/onnx_import.h"
#include "onnx_test_util.h"

namespace graphopt {
namespace {

using namespace onnx_test;  // NOLINT

StatusOr<Graph> ImportBytes(const onnx::ModelProto& m) {
  std::string bytes;
  EXPECT_TRUE(m.SerializeToString(&bytes));
  return ImportOnnxBytes(bytes, "guard.onnx");
}

void ExpectError(const onnx::ModelProto& m, const std::string& fragment) {
  const StatusOr<Graph> g = ImportBytes(m);
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find("guard.onnx: "), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find(fragment), std::string::npos) << g.status().message();
}

// x[1, 2, 8, 8] -> Conv (4 filters of 3x3) named "c".
onnx::ModelProto ConvModel(const std::vector<int64_t>& strides) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 2, 8, 8});
  AddInitializer(&m, "w", {4, 2, 3, 3});
  onnx::NodeProto* c = AddNode(&m, "Conv", {"x", "w"}, {"y"}, "c");
  AddIntsAttr(c, "strides", strides);
  return m;
}

TEST(OnnxInferenceGuardTest, ZeroStrideIsAnErrorNotADivisionByZero) {
  // Found by fuzz/onnx_fuzz: ONNX's convolution inference divided by the stride.
  ExpectError(ConvModel({0, 1}), "node 'c' (Conv): attribute strides[0] is 0, must be at least 1");
  ExpectError(ConvModel({1, -2}), "strides[1] is -2");
  const StatusOr<Graph> ok = ImportBytes(ConvModel({2, 2}));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(FindTensor(*ok, "y")->shape, (Shape{1, 4, 3, 3}));
}

TEST(OnnxInferenceGuardTest, EveryRepeatedAttributeIsChecked) {
  // ONNX reads the last of two attributes of one name.
  onnx::ModelProto m = ConvModel({1, 1});
  AddIntsAttr(m.mutable_graph()->mutable_node(0), "strides", {1, 0});
  ExpectError(m, "strides[1] is 0");
}

TEST(OnnxInferenceGuardTest, PoolingKernelAndDilationsArePositive) {
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 2, 8, 8});
  onnx::NodeProto* p = AddNode(&m, "MaxPool", {"x"}, {"y"}, "p");
  AddIntsAttr(p, "kernel_shape", {2, 0});
  ExpectError(m, "node 'p' (MaxPool): attribute kernel_shape[1] is 0");
  p->mutable_attribute(0)->set_ints(1, 2);
  AddIntsAttr(p, "dilations", {0, 1});
  ExpectError(m, "dilations[0] is 0");
}

TEST(OnnxInferenceGuardTest, BlocksizeWhoseSquareOverflowsIsAnError) {
  // DepthToSpace divides by blocksize^2, which 2^32 wraps to 0.
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 16, 2, 2});
  AddIntAttr(AddNode(&m, "DepthToSpace", {"x"}, {"y"}, "d"), "blocksize", int64_t{1} << 32);
  ExpectError(m, "node 'd' (DepthToSpace): attribute blocksize is 4294967296, must lie in [1, 2^31]");
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->set_i(2);
  const StatusOr<Graph> ok = ImportBytes(m);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(FindTensor(*ok, "y")->shape, (Shape{1, 4, 4, 4}));
}

TEST(OnnxInferenceGuardTest, SamePaddingOfAHugeDimensionIsAnErrorNotAnEndlessLoop) {
  // ONNX computes the dimension modulo the stride by repeated subtraction.
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 1, int64_t{1} << 40});
  AddInitializer(&m, "w", {1, 1, 3});
  onnx::NodeProto* c = AddNode(&m, "Conv", {"x", "w"}, {"y"}, "c");
  AddIntsAttr(c, "strides", {2});
  AddStringAttr(c, "auto_pad", "SAME_UPPER");
  ExpectError(m, "node 'c' (Conv): spatial dimension 0 of the input (1099511627776) holds more than 2^28 strides of 2");
  m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(2)->set_dim_value(9);
  const StatusOr<Graph> ok = ImportBytes(m);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(FindTensor(*ok, "y")->shape, (Shape{1, 1, 5}));
}

TEST(OnnxInferenceGuardTest, ConvolutionWeightsOfAnotherRankThanTheInputAreAnError) {
  // Found by fuzz/onnx_fuzz: without kernel_shape, ONNX's convolution inference read
  // the kernel from 4-D weights and indexed the dilations of a 2-D input with it.
  onnx::ModelProto m = NewModel();
  AddInput(&m, "x", {1, 2});
  AddInitializer(&m, "w", {4, 2, 3, 3});
  AddNode(&m, "Conv", {"x", "w"}, {"y"}, "c");
  ExpectError(m, "node 'c' (Conv): the weights (input 1) have rank 4 but the input has rank 2");
  // With the input's rank it imports.
  auto* shape = m.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->add_dim()->set_dim_value(8);
  shape->add_dim()->set_dim_value(8);
  const StatusOr<Graph> ok = ImportBytes(m);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(FindTensor(*ok, "y")->shape, (Shape{1, 4, 6, 6}));
}

}  // namespace
}  // namespace graphopt
