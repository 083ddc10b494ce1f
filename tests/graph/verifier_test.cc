#include "graph/verifier.h"

#include <gtest/gtest.h>

#include "graph/builder.h"

namespace graphopt {
namespace {

Op MakeOp(const std::string& name, OpKind kind, std::vector<TensorId> in, std::vector<TensorId> out) {
  Op op;
  op.name = name;
  op.kind = kind;
  op.inputs = std::move(in);
  op.outputs = std::move(out);
  return op;
}

TEST(VerifierTest, BuilderGraphIsValid) {
  GraphBuilder b("ok");
  TensorId x = b.Input("x", {2, 3});
  TensorId w = b.Variable("w", {3, 4});
  b.Relu(b.MatMul(x, w));
  EXPECT_TRUE(VerifyGraph(b.graph()).ok());
}

TEST(VerifierTest, CycleIsNamed) {
  Graph g("cyc");
  TensorId a = g.AddTensor("a", {4});
  TensorId b = g.AddTensor("b", {4});
  g.AddOp(MakeOp("first", OpKind::kRelu, {b}, {a}));
  g.AddOp(MakeOp("second", OpKind::kRelu, {a}, {b}));
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cycle"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'first'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("'second'"), std::string::npos) << s.message();
}

TEST(VerifierTest, DanglingTensorIsNamed) {
  Graph g("dangle");
  TensorId a = g.AddTensor("orphan", {4});
  TensorId b = g.AddTensor("b", {4});
  g.AddOp(MakeOp("user", OpKind::kRelu, {a}, {b}));
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("orphan"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("dangling"), std::string::npos) << s.message();
}

TEST(VerifierTest, DuplicateOpNameIsRejected) {
  Graph g("dup");
  TensorId a = g.AddTensor("a", {4});
  TensorId b = g.AddTensor("b", {4});
  g.AddOp(MakeOp("same", OpKind::kInput, {}, {a}));
  g.AddOp(MakeOp("same", OpKind::kRelu, {a}, {b}));
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'same' is used twice"), std::string::npos) << s.message();
}

TEST(VerifierTest, DuplicateTensorNameIsRejected) {
  Graph g("dup");
  TensorId a = g.AddTensor("t", {4});
  TensorId b = g.AddTensor("t", {4});
  g.AddOp(MakeOp("in", OpKind::kInput, {}, {a}));
  g.AddOp(MakeOp("relu", OpKind::kRelu, {a}, {b}));
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tensor name 't'"), std::string::npos) << s.message();
}

TEST(VerifierTest, InconsistentShapesAreNamed) {
  Graph g("shapes");
  TensorId a = g.AddTensor("a", {2, 3});
  TensorId b = g.AddTensor("b", {4, 5});
  TensorId c = g.AddTensor("c", {2, 5});
  g.AddOp(MakeOp("in_a", OpKind::kInput, {}, {a}));
  g.AddOp(MakeOp("in_b", OpKind::kInput, {}, {b}));
  g.AddOp(MakeOp("mm", OpKind::kMatMul, {a, b}, {c}));
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'mm'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("inner dimensions"), std::string::npos) << s.message();
}

TEST(VerifierTest, NonBroadcastingElementwiseIsRejected) {
  Graph g("bcast");
  TensorId a = g.AddTensor("a", {2, 3});
  TensorId b = g.AddTensor("b", {4});
  TensorId c = g.AddTensor("c", {2, 3});
  g.AddOp(MakeOp("in_a", OpKind::kInput, {}, {a}));
  g.AddOp(MakeOp("in_b", OpKind::kInput, {}, {b}));
  g.AddOp(MakeOp("add", OpKind::kAdd, {a, b}, {c}));
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("do not broadcast"), std::string::npos) << s.message();
}

TEST(VerifierTest, ConcatSizesMustAddUp) {
  Graph g("concat");
  TensorId a = g.AddTensor("a", {2, 3});
  TensorId b = g.AddTensor("b", {2, 3});
  TensorId c = g.AddTensor("c", {2, 7});
  g.AddOp(MakeOp("in_a", OpKind::kInput, {}, {a}));
  g.AddOp(MakeOp("in_b", OpKind::kInput, {}, {b}));
  Op cat = MakeOp("cat", OpKind::kConcat, {a, b}, {c});
  cat.attrs["axis"] = int64_t{1};
  g.AddOp(cat);
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'cat'"), std::string::npos) << s.message();
}

TEST(VerifierTest, LayerTagOutOfRangeIsRejected) {
  Graph g("layers");
  TensorId a = g.AddTensor("a", {2});
  Op in = MakeOp("in", OpKind::kInput, {}, {a});
  in.layer = 3;
  g.AddOp(in);
  Status s = VerifyGraph(g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("layer tag 3"), std::string::npos) << s.message();
}

TEST(TopologicalOrderTest, ProducersComeBeforeConsumers) {
  GraphBuilder b("topo");
  TensorId x = b.Input("x", {4});
  TensorId y = b.Relu(x);
  TensorId z = b.Sigmoid(x);
  b.Add(y, z);
  auto order = TopologicalOrder(b.graph());
  ASSERT_TRUE(order.ok());
  std::vector<int> position(static_cast<size_t>(b.graph().num_ops()));
  for (size_t i = 0; i < order->size(); ++i) position[static_cast<size_t>((*order)[i])] = static_cast<int>(i);
  for (const Tensor& t : b.graph().tensors()) {
    for (OpId c : t.consumers) EXPECT_LT(position[static_cast<size_t>(t.producer)], position[static_cast<size_t>(c)]);
  }
}

TEST(TopologicalOrderTest, TiesGoToTheLowerId) {
  Graph g("ties");
  TensorId a = g.AddTensor("a", {1});
  TensorId b = g.AddTensor("b", {1});
  TensorId c = g.AddTensor("c", {1});
  g.AddOp(MakeOp("late_source", OpKind::kInput, {}, {a}));  // op 0
  g.AddOp(MakeOp("consumer", OpKind::kRelu, {b}, {c}));     // op 1, needs op 2
  g.AddOp(MakeOp("early_source", OpKind::kInput, {}, {b}));  // op 2
  auto order = TopologicalOrder(g);
  ASSERT_TRUE(order.ok());
  EXPECT_EQ(*order, (std::vector<OpId>{0, 2, 1}));
}

TEST(AdjacencyTest, ParallelTensorsGiveOneEdge) {
  GraphBuilder b("adj");
  TensorId x = b.Input("x", {4, 2});
  auto parts = b.Split(x, 1, {1, 1});
  b.Add(parts[0], parts[1]);
  Adjacency adj = b.graph().BuildAdjacency();
  EXPECT_EQ(adj.num_edges(), 2);  // input->split, split->add (two tensors, one edge)
  EXPECT_EQ(b.graph().num_edges(), 3);
}

}  // namespace
}  // namespace graphopt
