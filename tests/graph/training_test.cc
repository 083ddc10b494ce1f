#include "graph/training.h"

#include <gtest/gtest.h>

#include "graph/builder.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

// x [4,8] -> MatMul w1 [8,16] -> Relu -> MatMul w2 [16,10] -> xent(labels)
Graph Mlp() {
  GraphBuilder b("mlp");
  TensorId x = b.Input("x", {4, 8});
  TensorId labels = b.Input("labels", {4}, DType::kI64);
  TensorId w1 = b.Variable("w1", {8, 16});
  TensorId w2 = b.Variable("w2", {16, 10});
  TensorId h = b.Relu(b.MatMul(x, w1));
  b.SoftmaxCrossEntropy(b.MatMul(h, w2), labels);
  return b.Finish();
}

int CountPhase(const Graph& g, Phase p) {
  int n = 0;
  for (const Op& op : g.ops()) n += op.phase == p;
  return n;
}

const Op* FindOp(const Graph& g, const std::string& name) {
  for (const Op& op : g.ops()) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

TEST(TrainingTest, MlpGetsOneGradientPerDifferentiableInput) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_TRUE(VerifyGraph(*t).ok());
  // Gradients: xent->logits, matmul_1->{h, w2}, relu->matmul out, matmul->{w1} (x needs none).
  EXPECT_EQ(CountPhase(*t, Phase::kBackward), 5);
  EXPECT_EQ(CountPhase(*t, Phase::kUpdate), 2);
  EXPECT_EQ(FindOp(*t, "grad/matmul/in0"), nullptr);  // input x needs no gradient
  ASSERT_NE(FindOp(*t, "grad/matmul/in1"), nullptr);
}

TEST(TrainingTest, ContractionGradientsAreTwiceTheForward) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok());
  const Op* fwd = FindOp(*t, "matmul_1");
  const Op* dh = FindOp(*t, "grad/matmul_1/in0");
  const Op* dw = FindOp(*t, "grad/matmul_1/in1");
  ASSERT_TRUE(fwd && dh && dw);
  EXPECT_DOUBLE_EQ(dh->cost.flops + dw->cost.flops, 2 * fwd->cost.flops);
  // dW reads the forward input h (a saved activation), dH reads the weight.
  const Graph& g = *t;
  auto reads = [&](const Op* op, const std::string& tensor) {
    for (TensorId in : op->inputs) {
      if (g.tensor(in).name == tensor) return true;
    }
    return false;
  };
  EXPECT_TRUE(reads(dw, "relu"));
  EXPECT_TRUE(reads(dh, "w2"));
}

TEST(TrainingTest, UpdateOpsShareTheVariablesColocationGroup) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok());
  const Op* var = FindOp(*t, "w1");
  const Op* update = FindOp(*t, "update/w1");
  ASSERT_TRUE(var && update);
  EXPECT_NE(var->colocation_group, kNoId);
  EXPECT_EQ(update->colocation_group, var->colocation_group);
  // Momentum keeps one state tensor the size of the parameter.
  EXPECT_EQ(update->param_bytes, 8 * 16 * 4);
  EXPECT_DOUBLE_EQ(update->cost.flops, 4.0 * 8 * 16);
}

TEST(TrainingTest, AdamKeepsTwoStates) {
  TrainingOptions opt;
  opt.optimizer = "adam";
  auto t = BuildTrainingGraph(Mlp(), opt);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(FindOp(*t, "update/w2")->param_bytes, 2 * 16 * 10 * 4);
}

TEST(TrainingTest, UnknownOptimizerIsRejected) {
  TrainingOptions opt;
  opt.optimizer = "magic";
  auto t = BuildTrainingGraph(Mlp(), opt);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("magic"), std::string::npos);
}

TEST(TrainingTest, TensorWithTwoConsumersGetsSummedGradient) {
  GraphBuilder b("fan");
  TensorId x = b.Input("x", {4});
  TensorId w = b.Variable("w", {4});
  TensorId h = b.Mul(x, w);
  TensorId a = b.Sigmoid(h);
  TensorId c = b.Tanh(h);
  b.Reduce(OpKind::kReduceSum, b.Add(a, c), {0}, false);
  auto t = BuildTrainingGraph(b.Finish());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Op* sum = FindOp(*t, "grad/mul/sum");
  ASSERT_NE(sum, nullptr);
  EXPECT_EQ(sum->kind, OpKind::kAddN);
  EXPECT_EQ(sum->inputs.size(), 2u);
}

TEST(TrainingTest, ActivationsLiveUntilTheirGradientUse) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok());
  // The Relu output is read by a backward op (dW2 needs it, dRelu needs it).
  int backward_readers = 0;
  for (const Tensor& tensor : t->tensors()) {
    if (tensor.name != "relu") continue;
    for (OpId c : tensor.consumers) backward_readers += t->op(c).phase == Phase::kBackward;
  }
  EXPECT_GE(backward_readers, 2);
}

TEST(TrainingTest, MeasuredBackwardTimeIsSplitOverGradients) {
  Graph g = Mlp();
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (g.op(o).name == "matmul_1") g.mutable_op(o).measured_backward_us = 90.0;
  }
  auto t = BuildTrainingGraph(g);
  ASSERT_TRUE(t.ok());
  const double total = FindOp(*t, "grad/matmul_1/in0")->measured_time_us + FindOp(*t, "grad/matmul_1/in1")->measured_time_us;
  EXPECT_DOUBLE_EQ(total, 90.0);
}

TEST(TrainingTest, ExpandingTwiceIsRejected) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok());
  auto again = BuildTrainingGraph(*t);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("already a training graph"), std::string::npos);
}

TEST(TrainingTest, BranchThatDoesNotReachTheLossGetsNoGradient) {
  GraphBuilder b("dead");
  TensorId x = b.Input("x", {4, 3});
  TensorId w = b.Variable("w", {3, 2});
  TensorId y = b.MatMul(x, w);
  TensorId shape_only = b.Reshape(y, {8});
  b.AddOp(OpKind::kShape, "shape", {shape_only}, {{1}}, {}, DType::kI64);
  b.Reduce(OpKind::kReduceMean, y, {0, 1}, false);
  auto t = BuildTrainingGraph(b.Finish());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(FindOp(*t, "grad/reshape/in0"), nullptr);
  EXPECT_NE(FindOp(*t, "grad/matmul/in1"), nullptr);
}

TEST(TrainingTest, GradientOpsNameTheInputTheyDifferentiate) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok());
  const Op* dh = FindOp(*t, "grad/matmul_1/in0");
  const Op* dw = FindOp(*t, "grad/matmul_1/in1");
  ASSERT_TRUE(dh && dw);
  EXPECT_EQ(GetIntAttr(dh->attrs, "grad_input", -1), 0);
  EXPECT_EQ(GetIntAttr(dw->attrs, "grad_input", -1), 1);
}

TEST(TrainingTest, GradientOpsListTheOutputsWhoseGradientsTheyRead) {
  // A Split with three outputs of which only the first and the last reach the loss.
  GraphBuilder b("split");
  TensorId w = b.Variable("w", {6, 2});
  std::vector<TensorId> parts = b.Split(w, 0, {2, 2, 2});
  b.Reduce(OpKind::kReduceSum, b.Add(parts[0], parts[2]), {0, 1}, false);
  auto t = BuildTrainingGraph(b.Finish());
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Op* dw = FindOp(*t, "grad/split/in0");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(GetIntsAttr(dw->attrs, "grad_outputs"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(dw->inputs.size(), 2u);
  // The forward attributes stay.
  EXPECT_EQ(GetIntAttr(dw->attrs, "axis", -1), 0);
}

TEST(TrainingTest, SeedGradientOpReadsNoOutputGradient) {
  auto t = BuildTrainingGraph(Mlp());
  ASSERT_TRUE(t.ok());
  const Op* dlogits = FindOp(*t, "grad/xent/in0");
  ASSERT_NE(dlogits, nullptr);
  ASSERT_TRUE(dlogits->attrs.count("grad_outputs"));
  EXPECT_TRUE(GetIntsAttr(dlogits->attrs, "grad_outputs", {99}).empty());
  EXPECT_EQ(GetIntAttr(dlogits->attrs, "grad_input", -1), 0);
}

}  // namespace
}  // namespace graphopt
