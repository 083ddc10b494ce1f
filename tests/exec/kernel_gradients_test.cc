// The gradient ops' results against autograd: whole models through the forward
// kernels, and single ops against ATen computations written out here.
#include <ATen/core/grad_mode.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <map>
#include <string>
#include <vector>

#include "exec/kernels.h"
#include "graph/builder.h"
#include "graph/training.h"
#include "graph/verifier.h"
#include "kernel_test_util.h"

namespace graphopt {
namespace {

using Tensors = std::vector<at::Tensor>;

// Runs a training graph with the forward ops under autograd (Variables require
// gradients, StopGradient outputs are detached) and the backward ops on plain values;
// returns the parameters whose gradient from the backward ops differs from autograd's
// through the forward kernels, the loss being every sink's outputs summed (the seeds
// of the training expansion).
std::string CompareWithAutograd(const Graph& g, double tol, uint64_t seed = 5) {
  at::AutoGradMode on(true);
  StatusOr<std::vector<OpId>> order = TopologicalOrder(g);
  if (!order.ok()) return order.status().ToString();
  std::vector<at::Tensor> plain(static_cast<size_t>(g.num_tensors())), tracked(plain.size());
  std::map<TensorId, at::Tensor> leaves, kernel_grads;
  std::vector<at::Tensor> sinks;
  for (OpId o : *order) {
    const Op& op = g.op(o);
    if (CategoryOf(op.kind) == OpCategory::kSource) {
      for (TensorId t : op.outputs) {
        at::Tensor v = *MakeSourceTensor(g, t, seed);
        plain[static_cast<size_t>(t)] = v;
        tracked[static_cast<size_t>(t)] = v;
        if (op.kind == OpKind::kVariable) {
          tracked[static_cast<size_t>(t)] = v.detach().clone().requires_grad_(true);
          leaves[t] = tracked[static_cast<size_t>(t)];
        }
      }
      continue;
    }
    if (op.kind == OpKind::kApplyGradient) {
      kernel_grads[op.inputs[0]] = plain[static_cast<size_t>(op.inputs[1])];
      continue;
    }
    const bool forward = op.phase == Phase::kForward;
    Tensors ins;
    for (TensorId t : op.inputs) ins.push_back((forward ? tracked : plain)[static_cast<size_t>(t)]);
    StatusOr<Tensors> outs = RunKernel(g, o, ins, nullptr);
    if (!outs.ok()) return outs.status().ToString();
    bool sink = forward;
    for (size_t k = 0; k < outs->size(); ++k) {
      const TensorId t = op.outputs[k];
      plain[static_cast<size_t>(t)] = (*outs)[k].detach();
      tracked[static_cast<size_t>(t)] = op.kind == OpKind::kStopGradient ? (*outs)[k].detach() : (*outs)[k];
      for (OpId c : g.tensor(t).consumers) sink &= g.op(c).phase != Phase::kForward;
    }
    if (!sink) continue;
    for (const at::Tensor& v : *outs) {
      if (v.requires_grad()) sinks.push_back(v.sum());
    }
  }
  if (sinks.empty()) return "no loss";
  std::vector<TensorId> ids;
  std::vector<at::Tensor> xs;
  for (const auto& [t, leaf] : leaves) {
    ids.push_back(t);
    xs.push_back(leaf);
  }
  const at::Tensor loss = at::stack(sinks).sum();
  const std::vector<at::Tensor> want = torch::autograd::grad({loss}, xs, {}, false, false, true);
  std::string problems;
  for (size_t i = 0; i < ids.size(); ++i) {
    auto it = kernel_grads.find(ids[i]);
    if (it == kernel_grads.end()) continue;
    const at::Tensor w = want[i].defined() ? want[i].to(at::kDouble) : at::zeros_like(it->second, at::kDouble);
    const double err = (it->second.reshape(w.sizes()).to(at::kDouble) - w).abs().max().item<double>();
    const double scale = std::max(1.0, w.abs().max().item<double>());
    if (!(err <= tol * scale)) {
      problems += g.tensor(ids[i]).name + ": error " + std::to_string(err) + " (largest gradient " + std::to_string(scale) + ")\n";
    }
  }
  return problems;
}

TEST(KernelGradientTest, ModelGradientsMatchAutogradThroughTheForwardKernels) {
  for (const char* spec : {
           "rnnlm:layers=2,batch=2,hidden=16,vocab=40,steps=3",
           "gnmt:layers=3,batch=2,hidden=8,vocab=30,steps=3",
           "transformer_xl:layers=2,batch=2,segment=4,memory=6,model=16,heads=2,inner=32,vocab=50,segments=2",
           "wavenet:stacks=1,layers=3,batch=1,length=16,channels=8,skip=8,quantization=16",
           "amoebanet:cells=1,filters=8,batch=2,image=32,classes=10",
           "inception_v3:batch=2,image=75,classes=10",
       }) {
    const Graph g = Training(spec);
    ASSERT_GT(g.num_ops(), 0) << spec;
    EXPECT_EQ(CompareWithAutograd(g, 1e-4), "") << spec;
  }
  for (const char* file : {"lstm_lm.onnx", "squeezenet1_1.onnx"}) {
    const Graph g = Training(std::string(GRAPHOPT_DATA_DIR) + "/onnx/" + file);
    ASSERT_GT(g.num_ops(), 0) << file;
    EXPECT_EQ(CompareWithAutograd(g, 1e-4), "") << file;
  }
}

// ---- Gradients of single ops against autograd --------------------------------------

// The values of the sources and the gradient of every Variable (by tensor name) after
// the forward and backward ops of the forward graph's training step.
struct StepValues {
  std::map<std::string, at::Tensor> sources, grads;
};

StepValues RunStep(const Graph& training, uint64_t seed = 3) {
  StepValues r;
  StatusOr<std::vector<OpId>> order = TopologicalOrder(training);
  EXPECT_TRUE(order.ok());
  std::vector<at::Tensor> values(static_cast<size_t>(training.num_tensors()));
  for (OpId o : *order) {
    const Op& op = training.op(o);
    if (CategoryOf(op.kind) == OpCategory::kSource) {
      for (TensorId t : op.outputs) {
        StatusOr<at::Tensor> v = MakeSourceTensor(training, t, seed);
        EXPECT_TRUE(v.ok()) << v.status().ToString();
        values[static_cast<size_t>(t)] = *v;
        r.sources[training.tensor(t).name] = *v;
      }
      continue;
    }
    if (op.kind == OpKind::kApplyGradient) {
      r.grads[training.tensor(op.inputs[0]).name] = values[static_cast<size_t>(op.inputs[1])];
      continue;
    }
    Tensors ins;
    for (TensorId t : op.inputs) ins.push_back(values[static_cast<size_t>(t)]);
    StatusOr<Tensors> outs = RunKernel(training, o, ins, nullptr);
    EXPECT_TRUE(outs.ok()) << outs.status().ToString();
    if (!outs.ok()) return r;
    for (size_t k = 0; k < outs->size(); ++k) values[static_cast<size_t>(op.outputs[k])] = (*outs)[k];
  }
  return r;
}

StepValues RunStepOf(const Graph& forward) {
  TrainingOptions options;
  options.optimizer = "sgd";
  StatusOr<Graph> t = BuildTrainingGraph(forward, options);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(CheckKernels(*t).ok()) << CheckKernels(*t).ToString();
  return RunStep(*t);
}

// Adds loss += sum(y * r) for a random Input r of y's shape (so that the gradient
// reaching y is not uniform); returns the loss term.
TensorId Weighted(GraphBuilder& b, TensorId y, const std::string& name) {
  const TensorId r = b.Input(name, b.shape(y));
  std::vector<int64_t> axes;
  for (size_t d = 0; d < b.shape(y).size(); ++d) axes.push_back(static_cast<int64_t>(d));
  return b.Reduce(OpKind::kReduceSum, b.Mul(y, r), axes, false);
}

// The reference: the gradients of `loss` with respect to the named sources.
class Reference {
 public:
  explicit Reference(const StepValues& step) : step_(step) {}
  at::Tensor Var(const std::string& name) {
    at::Tensor t = step_.sources.at(name).detach().clone().requires_grad_(true);
    vars_[name] = t;
    return t;
  }
  at::Tensor In(const std::string& name) const { return step_.sources.at(name); }
  at::Tensor W(const at::Tensor& y, const std::string& r) const { return (y * In(r)).sum(); }
  // Compares the kernels' gradient of every variable with autograd's.
  void Check(const at::Tensor& loss, double tol = 1e-4) {
    std::vector<std::string> names;
    std::vector<at::Tensor> xs;
    for (const auto& [name, t] : vars_) {
      names.push_back(name);
      xs.push_back(t);
    }
    const std::vector<at::Tensor> g = torch::autograd::grad({loss}, xs, {}, false, false, true);
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = step_.grads.find(names[i]);
      ASSERT_NE(it, step_.grads.end()) << "no gradient of " << names[i];
      ASSERT_TRUE(g[i].defined()) << names[i];
      const at::Tensor got = it->second.reshape(g[i].sizes()).to(at::kDouble);
      const double err = (got - g[i].to(at::kDouble)).abs().max().item<double>();
      const double scale = std::max(1.0, g[i].abs().max().item<double>());
      EXPECT_LT(err, tol * scale) << names[i] << ": kernels\n" << it->second << "\nautograd\n" << g[i];
    }
  }

 private:
  const StepValues& step_;
  std::map<std::string, at::Tensor> vars_;
};

TEST(KernelGradientTest, MatMulWithBroadcastingAndTransposes) {
  GraphBuilder b("mm");
  const TensorId x = b.Variable("x", {2, 3, 4}), w = b.Variable("w", {4, 5});
  const TensorId a = b.Variable("a", {2, 1, 3, 4}), c = b.Variable("c", {5, 4, 6});
  const TensorId p = b.Variable("p", {3, 4}), q = b.Variable("q", {6, 4});
  b.AddN({Weighted(b, b.MatMul(x, w), "r1"), Weighted(b, b.BatchMatMul(a, c), "r2"),
          Weighted(b, b.MatMul(p, q, false, true), "r3")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor loss = ref.W(at::matmul(ref.Var("x"), ref.Var("w")), "r1") +
                          ref.W(at::matmul(ref.Var("a"), ref.Var("c")), "r2") +
                          ref.W(at::matmul(ref.Var("p"), ref.Var("q").t()), "r3");
  ref.Check(loss);
}

TEST(KernelGradientTest, ConvWithStridePaddingGroupsAndInferredAttributes) {
  GraphBuilder b("conv");
  const TensorId x = b.Variable("x", {2, 4, 7, 7});
  const TensorId w1 = b.Variable("w1", {3, 4, 3, 3}), bias = b.Variable("bias", {3, 1, 1});
  const TensorId w2 = b.Variable("w2", {4, 2, 3, 3});
  const TensorId w3 = b.Variable("w3", {2, 4, 3, 3});
  const TensorId y1 = b.Add(b.Conv2D(x, w1, {2, 2}, {1, 1}), bias);
  const TensorId y2 = b.Conv2D(x, w2, {1, 1}, {2, 2}, {2, 2}, 2);
  // No attributes: stride 2 and padding 1 follow from 7 -> 4 with a 3x3 kernel.
  const TensorId y3 = b.Output(b.AddOp(OpKind::kConv, "bare_conv", {x, w3}, {{2, 2, 4, 4}}));
  b.AddN({Weighted(b, y1, "r1"), Weighted(b, y2, "r2"), Weighted(b, y3, "r3")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor xv = ref.Var("x");
  const at::Tensor loss = ref.W(at::conv2d(xv, ref.Var("w1"), {}, 2, 1) + ref.Var("bias"), "r1") +
                          ref.W(at::conv2d(xv, ref.Var("w2"), {}, 1, 2, 2, 2), "r2") +
                          ref.W(at::conv2d(xv, ref.Var("w3"), {}, 2, 1), "r3");
  ref.Check(loss);
}

TEST(KernelGradientTest, ReluSigmoidTanh) {
  GraphBuilder b("unary");
  const TensorId x = b.Variable("x", {3, 4});
  b.AddN({Weighted(b, b.Relu(x), "r1"), Weighted(b, b.Sigmoid(x), "r2"), Weighted(b, b.Tanh(x), "r3")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor xv = ref.Var("x");
  ref.Check(ref.W(at::relu(xv), "r1") + ref.W(at::sigmoid(xv), "r2") + ref.W(at::tanh(xv), "r3"));
}

TEST(KernelGradientTest, DivWhereAndPowWithBroadcasting) {
  GraphBuilder b("binary");
  const TensorId a = b.Variable("a", {3, 4}), d = b.Variable("d", {4});
  const TensorId cond = b.Input("cond", {3, 1}, DType::kBool);
  const TensorId where = b.Output(b.AddOp(OpKind::kWhere, "where", {cond, a, d}, {{3, 4}}));
  // A positive base: a fractional power of a negative number is not a number.
  b.AddN({Weighted(b, b.Binary(OpKind::kDiv, a, d), "r1"), Weighted(b, where, "r2"),
          Weighted(b, b.Binary(OpKind::kPow, b.Sigmoid(a), d), "r3")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor av = ref.Var("a"), dv = ref.Var("d");
  ref.Check(ref.W(av / dv, "r1") + ref.W(at::where(ref.In("cond"), av, dv), "r2") +
            ref.W(at::pow(at::sigmoid(av), dv), "r3"));
}

TEST(KernelGradientTest, SoftmaxOverEitherAxis) {
  GraphBuilder b("softmax");
  const TensorId x = b.Variable("x", {3, 5});
  b.AddN({Weighted(b, b.Softmax(x, -1), "r1"), Weighted(b, b.Softmax(x, 0), "r2")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor xv = ref.Var("x");
  ref.Check(ref.W(at::softmax(xv, -1), "r1") + ref.W(at::softmax(xv, 0), "r2"));
}

TEST(KernelGradientTest, LayerNorm) {
  GraphBuilder b("ln");
  const TensorId x = b.Variable("x", {2, 3, 8}), g = b.Variable("gamma", {8}), beta = b.Variable("beta", {8});
  Weighted(b, b.LayerNorm(x, g, beta), "r");
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  ref.Check(ref.W(at::layer_norm(ref.Var("x"), {8}, ref.Var("gamma"), ref.Var("beta"), 1e-5), "r"));
}

TEST(KernelGradientTest, BatchNormInTrainingMode) {
  GraphBuilder b("bn");
  const TensorId x = b.Variable("x", {2, 3, 4, 4}), s = b.Variable("scale", {3}), bias = b.Variable("bias", {3});
  Weighted(b, b.BatchNorm(x, s, bias), "r");
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor y = at::batch_norm(ref.Var("x"), ref.Var("scale"), ref.Var("bias"), {}, {}, true, 0.1, 1e-5, false);
  ref.Check(ref.W(y, "r"));
}

TEST(KernelGradientTest, MaxAndAveragePools) {
  GraphBuilder b("pool");
  const TensorId x = b.Variable("x", {1, 2, 6, 6});
  b.AddN({Weighted(b, b.Pool2D(OpKind::kMaxPool, x, {3, 3}, {2, 2}, {1, 1}), "r1"),
          Weighted(b, b.Pool2D(OpKind::kAvgPool, x, {3, 3}, {1, 1}, {1, 1}), "r2")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor xv = ref.Var("x");
  ref.Check(ref.W(at::max_pool2d(xv, {3, 3}, {2, 2}, {1, 1}), "r1") +
            ref.W(at::avg_pool2d(xv, {3, 3}, {1, 1}, {1, 1}, false, false), "r2"));
}

TEST(KernelGradientTest, GatherAccumulatesRepeatedRows) {
  GraphBuilder b("gather");
  const TensorId table = b.Variable("table", {4, 3});
  const TensorId ids = b.Input("ids", {5, 2}, DType::kI64);  // 10 ids over 4 rows: repeats
  Weighted(b, b.Gather(table, ids), "r");
  const StepValues step = RunStepOf(b.Finish());
  EXPECT_LT(step.sources.at("ids").max().item<int64_t>(), 4);
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor rows = at::index_select(ref.Var("table"), 0, ref.In("ids").flatten()).reshape({5, 2, 3});
  ref.Check(ref.W(rows, "r"));
}

TEST(KernelGradientTest, SoftmaxCrossEntropyAsTheLoss) {
  GraphBuilder b("xent");
  const TensorId logits = b.Variable("logits", {4, 5});
  const TensorId labels = b.Input("labels", {4}, DType::kI64);
  b.SoftmaxCrossEntropy(logits, labels);
  const StepValues step = RunStepOf(b.Finish());
  EXPECT_LT(step.sources.at("labels").max().item<int64_t>(), 5);
  at::AutoGradMode on(true);
  Reference ref(step);
  ref.Check(at::cross_entropy_loss(ref.Var("logits"), ref.In("labels")));
}

TEST(KernelGradientTest, ConcatAndSplitWithAnUnusedPiece) {
  GraphBuilder b("concat");
  const TensorId x = b.Variable("x", {2, 3}), y = b.Variable("y", {2, 4});
  const std::vector<TensorId> parts = b.Split(b.Concat({x, y}, 1), 1, {2, 1, 4});
  b.AddN({Weighted(b, parts[0], "r1"), Weighted(b, parts[2], "r2")});
  const Graph forward = b.Finish();
  const StepValues step = RunStepOf(forward);
  // A graph from before the grad_input/grad_outputs attributes gives the same gradients.
  TrainingOptions options;
  options.optimizer = "sgd";
  Graph old = *BuildTrainingGraph(forward, options);
  for (OpId o = 0; o < old.num_ops(); ++o) {
    old.mutable_op(o).attrs.erase("grad_input");
    old.mutable_op(o).attrs.erase("grad_outputs");
  }
  const StepValues old_step = RunStep(old);
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor cat = at::cat({ref.Var("x"), ref.Var("y")}, 1);
  const at::Tensor loss = ref.W(cat.narrow(1, 0, 2), "r1") + ref.W(cat.narrow(1, 3, 4), "r2");
  ref.Check(loss);
  for (const char* name : {"x", "y"}) EXPECT_TRUE(at::equal(step.grads.at(name), old_step.grads.at(name))) << name;
}

TEST(KernelGradientTest, OnnxLstmLayerMatchesAtensLstm) {
  // ONNX gate order i, o, f, c; ATen's is i, f, c, o.
  GraphBuilder b("lstm");
  const int64_t steps = 3, batch = 2, in = 4, hidden = 5;
  const TensorId x = b.Variable("x", {steps, batch, in});
  const TensorId w = b.Variable("w", {1, 4 * hidden, in}), r = b.Variable("r", {1, 4 * hidden, hidden});
  const TensorId bias = b.Variable("b", {1, 8 * hidden});
  const OpId lstm = b.AddOp(OpKind::kLSTM, "lstm", {x, w, r, bias},
                            {{steps, 1, batch, hidden}, {1, batch, hidden}, {1, batch, hidden}},
                            {{"hidden_size", hidden}});
  Weighted(b, b.Output(lstm, 0), "r0");
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  auto reorder = [](const at::Tensor& t) {  // i, o, f, c -> i, f, c, o along dim 0
    const std::vector<at::Tensor> g = t.chunk(4, 0);
    return at::cat({g[0], g[2], g[3], g[1]}, 0);
  };
  const at::Tensor wv = ref.Var("w"), rv = ref.Var("r"), bv = ref.Var("b");
  const std::vector<at::Tensor> params = {reorder(wv[0]), reorder(rv[0]), reorder(bv[0].narrow(0, 0, 4 * hidden)),
                                          reorder(bv[0].narrow(0, 4 * hidden, 4 * hidden))};
  const at::Tensor zeros = at::zeros({1, batch, hidden});
  const at::Tensor y = std::get<0>(at::lstm(ref.Var("x"), {zeros, zeros}, params, true, 1, 0.0, true, false, false));
  ref.Check(ref.W(y.unsqueeze(1), "r0"));
}


TEST(KernelGradientTest, ConvTransposeWithInferredStrideAndCrop) {
  GraphBuilder b("deconv");
  const TensorId x = b.Variable("x", {1, 3, 4, 4}), w = b.Variable("w", {3, 2, 3, 3});
  // Full output (4 - 1) * 2 + 3 = 9, cut to 8: stride 2 and one row and column cropped.
  const TensorId y = b.Output(b.AddOp(OpKind::kConvTranspose, "deconv", {x, w}, {{1, 2, 8, 8}}));
  Weighted(b, y, "r");
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  const at::Tensor full = at::conv_transpose2d(ref.Var("x"), ref.Var("w"), {}, 2);
  ref.Check(ref.W(full.narrow(2, 0, 8).narrow(3, 0, 8), "r"));
}

TEST(KernelGradientTest, OnnxGruLayerMatchesAtensGru) {
  // ONNX gates z, r, h; ATen's r, z, n. linear_before_reset = 1 is ATen's GRU.
  GraphBuilder b("gru");
  const int64_t steps = 3, batch = 2, in = 4, hidden = 5;
  const TensorId x = b.Variable("x", {steps, batch, in});
  const TensorId w = b.Variable("w", {1, 3 * hidden, in}), r = b.Variable("r", {1, 3 * hidden, hidden});
  const TensorId bias = b.Variable("b", {1, 6 * hidden});
  const TensorId h0 = b.Variable("h0", {1, batch, hidden});
  const OpId gru = b.AddOp(OpKind::kGRU, "gru", {x, w, r, bias, h0}, {{steps, 1, batch, hidden}, {1, batch, hidden}},
                           {{"hidden_size", hidden}, {"linear_before_reset", int64_t{1}}});
  b.AddN({Weighted(b, b.Output(gru, 0), "r0"), Weighted(b, b.Output(gru, 1), "r1")});
  const StepValues step = RunStepOf(b.Finish());
  at::AutoGradMode on(true);
  Reference ref(step);
  auto reorder = [](const at::Tensor& t) {  // z, r, h -> r, z, n along dim 0
    const std::vector<at::Tensor> g = t.chunk(3, 0);
    return at::cat({g[1], g[0], g[2]}, 0);
  };
  const at::Tensor wv = ref.Var("w"), rv = ref.Var("r"), bv = ref.Var("b");
  const std::vector<at::Tensor> params = {reorder(wv[0]), reorder(rv[0]), reorder(bv[0].narrow(0, 0, 3 * hidden)),
                                          reorder(bv[0].narrow(0, 3 * hidden, 3 * hidden))};
  auto [y, hn] = at::gru(ref.Var("x"), ref.Var("h0"), params, true, 1, 0.0, true, false, false);
  ref.Check(ref.W(y.unsqueeze(1), "r0") + ref.W(hn, "r1"));
}

}  // namespace
}  // namespace graphopt
