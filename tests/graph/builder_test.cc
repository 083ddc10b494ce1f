#include "graph/builder.h"

#include <gtest/gtest.h>

#include "graph/dot.h"

namespace graphopt {
namespace {

TEST(BuilderTest, NamesAreUniqueWithinAScope) {
  GraphBuilder b("names");
  b.SetScope("enc/t0");
  TensorId x = b.Input("x", {2});
  TensorId r1 = b.Relu(x);
  TensorId r2 = b.Relu(r1);
  EXPECT_EQ(b.graph().op(b.graph().tensor(r1).producer).name, "enc/t0/relu");
  EXPECT_EQ(b.graph().op(b.graph().tensor(r2).producer).name, "enc/t0/relu_1");
}

TEST(BuilderTest, LayerTagsFollowBeginLayer) {
  GraphBuilder b("layers");
  const int32_t l0 = b.BeginLayer("first");
  TensorId x = b.Input("x", {2});
  const int32_t l1 = b.BeginLayer("second");
  TensorId y = b.Relu(x);
  EXPECT_EQ(b.graph().op(b.graph().tensor(x).producer).layer, l0);
  EXPECT_EQ(b.graph().op(b.graph().tensor(y).producer).layer, l1);
  EXPECT_EQ(b.graph().layer_names(), (std::vector<std::string>{"first", "second"}));
}

TEST(BuilderTest, VariablesGetTheirOwnColocationGroupAndParameterBytes) {
  GraphBuilder b("vars");
  TensorId a = b.Variable("a", {3, 4});
  TensorId c = b.Variable("c", {5}, DType::kF16);
  const Op& va = b.graph().op(b.graph().tensor(a).producer);
  const Op& vc = b.graph().op(b.graph().tensor(c).producer);
  EXPECT_EQ(va.param_bytes, 48);
  EXPECT_EQ(vc.param_bytes, 10);
  EXPECT_NE(va.colocation_group, vc.colocation_group);
}

TEST(BuilderTest, SplitAndConcatShapes) {
  GraphBuilder b("sc");
  TensorId x = b.Input("x", {2, 12});
  auto parts = b.Split(x, 1, {3, 3, 6});
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(b.shape(parts[2]), (Shape{2, 6}));
  EXPECT_EQ(b.shape(b.Concat({parts[0], parts[2]}, -1)), (Shape{2, 9}));
}

TEST(BuilderTest, BroadcastFollowsNumpyRules) {
  EXPECT_EQ(BroadcastShapes({4, 1, 3}, {5, 1}), (Shape{4, 5, 3}));
  EXPECT_EQ(BroadcastShapes({}, {2, 2}), (Shape{2, 2}));
}

TEST(BuilderTest, Conv1DWithDilationKeepsCausalLength) {
  GraphBuilder b("wave");
  TensorId x = b.Input("x", {1, 4, 16});
  TensorId padded = b.Pad(x, 2, 4, 0);  // causal pad of (k-1)*dilation = 4
  TensorId w = b.Variable("w", {8, 4, 2});
  TensorId y = b.Conv1D(padded, w, 1, 0, 4);
  EXPECT_EQ(b.shape(y), (Shape{1, 8, 16}));
}

TEST(DotTest, ColoursNodesByDevice) {
  GraphBuilder b("dot");
  TensorId x = b.Input("x", {2});
  b.Relu(x);
  Graph g = b.Finish();
  std::vector<DeviceId> devices = {0, 1};
  const std::string dot = GraphToDot(g, &devices);
  EXPECT_NE(dot.find("n0 -> n1"), std::string::npos);
  EXPECT_NE(dot.find("legend1"), std::string::npos);
  EXPECT_NE(dot.find("fillcolor=\"#ffffb3\""), std::string::npos);
}

}  // namespace
}  // namespace graphopt
