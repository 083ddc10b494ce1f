#include "exec/kernels.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "graph/builder.h"
#include "graph/training.h"
#include "graph/verifier.h"
#include "import/pipedream_import.h"
#include "kernel_test_util.h"

namespace graphopt {
namespace {

using Tensors = std::vector<at::Tensor>;

// ---- Whole graphs ------------------------------------------------------------------

// Runs every op of a training graph in topological order on data from `seed` and
// returns the first few ops whose outputs do not have the graph's shape or dtype, are
// not contiguous, or are not finite.
std::string RunWholeGraph(const Graph& g, uint64_t seed = 7) {
  const Status checked = CheckKernels(g);
  if (!checked.ok()) return checked.ToString();
  StatusOr<std::vector<OpId>> order = TopologicalOrder(g);
  if (!order.ok()) return order.status().ToString();
  std::vector<at::Tensor> values(static_cast<size_t>(g.num_tensors()));
  std::vector<KernelState> states(static_cast<size_t>(g.num_ops()));
  std::string problems;
  int failed = 0;
  auto report = [&](const std::string& what) {
    if (++failed <= 5) problems += what + "\n";
  };
  for (OpId o : *order) {
    const Op& op = g.op(o);
    Tensors outs;
    if (CategoryOf(op.kind) == OpCategory::kSource) {
      for (TensorId t : op.outputs) {
        StatusOr<at::Tensor> v = MakeSourceTensor(g, t, seed);
        if (!v.ok()) return v.status().ToString();
        outs.push_back(*v);
      }
    } else {
      Tensors ins;
      for (TensorId t : op.inputs) ins.push_back(values[static_cast<size_t>(t)]);
      StatusOr<Tensors> r = RunKernel(g, o, ins, &states[static_cast<size_t>(o)]);
      if (!r.ok()) {
        report(r.status().ToString());
        continue;
      }
      outs = *r;
    }
    if (outs.size() != op.outputs.size()) {
      report(op.name + ": " + std::to_string(outs.size()) + " outputs");
      continue;
    }
    for (size_t k = 0; k < outs.size(); ++k) {
      const Tensor& t = g.tensor(op.outputs[k]);
      const at::Tensor& v = outs[k];
      if (Shape(v.sizes().begin(), v.sizes().end()) != t.shape || v.scalar_type() != ToScalarType(t.dtype) ||
          !v.is_contiguous()) {
        report(op.name + " (" + OpKindName(op.kind) + "): output " + std::to_string(k) + " is not " +
               ShapeToString(t.shape) + " " + DTypeName(t.dtype));
      } else if (at::isFloatingType(v.scalar_type()) && !at::isfinite(v).all().item<bool>()) {
        report(op.name + " (" + OpKindName(op.kind) + "): output " + std::to_string(k) + " is not finite");
      }
      values[static_cast<size_t>(op.outputs[k])] = v;
    }
  }
  if (failed > 5) problems += "... " + std::to_string(failed - 5) + " more\n";
  return problems;
}

TEST(KernelsTest, BuiltinModelsRunEveryOpAtTheGraphsShapes) {
  for (const char* spec : {
           "rnnlm:layers=2,batch=2,hidden=32,vocab=100,steps=4",
           "gnmt:layers=3,batch=2,hidden=16,vocab=50,steps=3",
           "transformer_xl:layers=2,batch=2,segment=4,memory=6,model=16,heads=2,inner=32,vocab=50,segments=2",
           "inception_v3:batch=1,image=75,classes=10",
           "amoebanet:cells=1,filters=8,batch=1,image=32,classes=10",
           "amoebanet:variant=d,cells=1,filters=8,batch=1,image=32,classes=10",
           "wavenet:stacks=1,layers=3,batch=1,length=16,channels=8,skip=8,quantization=16",
       }) {
    const Graph g = Training(spec);
    ASSERT_GT(g.num_ops(), 0) << spec;
    EXPECT_EQ(RunWholeGraph(g), "") << spec;
  }
}

TEST(KernelsTest, OnnxModelsRunEveryOpAtBatchOne) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GRAPHOPT_DATA_DIR) + "/onnx")) {
    if (entry.path().extension() != ".onnx") continue;
    ++files;
    const Graph g = Training(entry.path().string());
    ASSERT_GT(g.num_ops(), 0) << entry.path();
    EXPECT_EQ(RunWholeGraph(g), "") << entry.path();
  }
  EXPECT_GE(files, 6);
}

TEST(KernelsTest, ProfileGraphsRunWhereTheirShapesAllow) {
  // PipeDream profiles keep sizes, not shapes: every tensor is 1-D. Ops whose kind does
  // not fit such shapes (a Conv of vectors) run a surrogate of the same bytes. The
  // profiles in the data folder are checked (their activations take gigabytes); a small
  // one of the same form runs.
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GRAPHOPT_DATA_DIR) + "/pipedream")) {
    if (entry.path().extension() != ".txt") continue;
    ++files;
    const Graph g = Training(entry.path().string());
    EXPECT_TRUE(CheckKernels(g).ok()) << entry.path() << ": " << CheckKernels(g).ToString();
  }
  EXPECT_GE(files, 1);
  const std::string times = "forward_compute_time=0.1, backward_compute_time=0.2, ";
  const std::string text =
      "node1 -- Input0 -- " + times + "activation_size=2352.0, parameter_size=0.0\n" +
      "node2 -- Conv2d(3, 8, kernel_size=(3, 3), padding=(1, 1)) -- " + times + "activation_size=6272.0, parameter_size=896.0\n" +
      "node3 -- ReLU(inplace) -- " + times + "activation_size=6272.0, parameter_size=0.0\n" +
      "node4 -- Size(0) -- " + times + "activation_size=4.0, parameter_size=0.0\n" +
      "node5 -- View(1568) -- " + times + "activation_size=6272.0, parameter_size=0.0\n" +
      "node6 -- Linear(in_features=1568, out_features=10) -- " + times + "activation_size=40.0, parameter_size=62760.0\n" +
      "node1 -- node2\nnode2 -- node3\nnode3 -- node4\nnode3 -- node5\nnode5 -- node6\n";
  StatusOr<Graph> forward = ParsePipeDream(text, "tiny.txt");
  ASSERT_TRUE(forward.ok()) << forward.status().ToString();
  const Graph g = *BuildTrainingGraph(*forward);
  EXPECT_EQ(RunWholeGraph(g), "");
}

// ---- Determinism, updates, errors -------------------------------------------------

TEST(KernelsTest, SameOpTwiceGivesTheSameBits) {
  GraphBuilder b("det");
  const TensorId x = b.Input("x", {2, 8, 9, 9});
  const TensorId w = b.Variable("w", {16, 8, 3, 3});
  b.BatchNorm(b.Conv2D(x, w, {2, 2}, {1, 1}), b.Variable("s", {16}), b.Variable("t", {16}));
  const Graph g = b.Finish();
  const OpId conv = g.tensor(w).consumers[0];
  const OpId bn = g.tensor(g.op(conv).outputs[0]).consumers[0];
  const at::Tensor xv = *MakeSourceTensor(g, x, 11), wv = *MakeSourceTensor(g, w, 11);
  const at::Tensor sv = *MakeSourceTensor(g, g.op(bn).inputs[1], 11), tv = *MakeSourceTensor(g, g.op(bn).inputs[2], 11);
  const Tensors a = *RunKernel(g, conv, {xv, wv}, nullptr);
  const Tensors c = *RunKernel(g, conv, {xv, wv}, nullptr);
  EXPECT_TRUE(at::equal(a[0], c[0]));
  EXPECT_TRUE(at::equal((*RunKernel(g, bn, {a[0], sv, tv}, nullptr))[0], (*RunKernel(g, bn, {c[0], sv, tv}, nullptr))[0]));
}

TEST(KernelsTest, SourceDataDependsOnSeedAndTensorOnly) {
  GraphBuilder b("src");
  const TensorId x = b.Input("x", {64});
  const TensorId y = b.Input("y", {64});
  b.Add(x, y);
  const Graph g = b.Finish();
  const at::Tensor a = *MakeSourceTensor(g, x, 5);
  EXPECT_TRUE(at::equal(a, *MakeSourceTensor(g, x, 5)));
  EXPECT_FALSE(at::equal(a, *MakeSourceTensor(g, x, 6)));
  EXPECT_FALSE(at::equal(a, *MakeSourceTensor(g, y, 5)));
  EXPECT_FALSE(MakeSourceTensor(g, g.op(g.tensor(x).consumers[0]).outputs[0], 5).ok());
}

TEST(KernelsTest, IntegerSourcesIndexWithinTheirConsumers) {
  GraphBuilder b("ids");
  const TensorId table = b.Variable("table", {7, 3});
  const TensorId ids = b.Input("ids", {200}, DType::kI32);
  const TensorId flag = b.Input("flag", {50}, DType::kBool);
  b.Gather(table, b.Reshape(ids, {20, 10}));
  b.Unary(OpKind::kNot, flag);
  const Graph g = b.Finish();
  const at::Tensor v = *MakeSourceTensor(g, ids, 1);
  EXPECT_EQ(v.scalar_type(), at::kInt);
  EXPECT_GE(v.min().item<int>(), 0);
  EXPECT_EQ(v.max().item<int>(), 6);  // 200 draws below 7 reach 6
  EXPECT_EQ(MakeSourceTensor(g, flag, 1)->scalar_type(), at::kBool);
}

TEST(KernelsTest, MomentumUpdateByHand) {
  GraphBuilder b("momentum");
  const TensorId w = b.Variable("w", {2});
  b.Reduce(OpKind::kReduceSum, w, {0}, false);
  const Graph g = *BuildTrainingGraph(b.Finish());
  OpId update = kNoId;
  for (OpId o = 0; o < g.num_ops(); ++o) update = g.op(o).kind == OpKind::kApplyGradient ? o : update;
  ASSERT_NE(update, kNoId);
  at::Tensor p = at::tensor({1.0f, 2.0f});
  const at::Tensor grad = at::tensor({0.5f, -1.0f});
  KernelState state;
  ASSERT_TRUE(RunKernel(g, update, {p, grad}, &state).ok());
  // buffer = g; p -= 0.01 * buffer
  EXPECT_FLOAT_EQ(p[0].item<float>(), 0.995f);
  EXPECT_FLOAT_EQ(p[1].item<float>(), 2.01f);
  ASSERT_TRUE(RunKernel(g, update, {p, grad}, &state).ok());
  // buffer = 0.9 * g + g = 1.9 g
  EXPECT_FLOAT_EQ(p[0].item<float>(), 0.995f - 0.0095f);
  EXPECT_FLOAT_EQ(p[1].item<float>(), 2.01f + 0.019f);
  EXPECT_EQ(state.steps, 2);
  ASSERT_EQ(state.tensors.size(), 1u);
  EXPECT_FLOAT_EQ(state.tensors[0][0].item<float>(), 0.95f);
}

TEST(KernelsTest, AdamFirstStepMovesByTheLearningRate) {
  GraphBuilder b("adam");
  const TensorId w = b.Variable("w", {2});
  b.Reduce(OpKind::kReduceSum, w, {0}, false);
  TrainingOptions options;
  options.optimizer = "adam";
  const Graph g = *BuildTrainingGraph(b.Finish(), options);
  OpId update = kNoId;
  for (OpId o = 0; o < g.num_ops(); ++o) update = g.op(o).kind == OpKind::kApplyGradient ? o : update;
  at::Tensor p = at::tensor({1.0f, 2.0f});
  KernelState state;
  ASSERT_TRUE(RunKernel(g, update, {p, at::tensor({0.5f, -3.0f})}, &state).ok());
  EXPECT_NEAR(p[0].item<float>(), 0.99f, 1e-6);
  EXPECT_NEAR(p[1].item<float>(), 2.01f, 1e-6);
  EXPECT_EQ(state.tensors.size(), 2u);
}

TEST(KernelsTest, MissingAttributesAreInferredFromShapes) {
  GraphBuilder b("bare");
  const TensorId x = b.Input("x", {2, 3, 4});
  const TensorId y = b.Input("y", {2, 5, 4});
  const OpId concat = b.AddOp(OpKind::kConcat, "concat", {x, y}, {{2, 8, 4}});
  const OpId transpose = b.AddOp(OpKind::kTranspose, "transpose", {x}, {{4, 2, 3}});
  const OpId slice = b.AddOp(OpKind::kSlice, "slice", {y}, {{2, 2, 4}});
  const OpId reduce = b.AddOp(OpKind::kReduceMean, "mean", {y}, {{2, 4}});
  const OpId pad = b.AddOp(OpKind::kPad, "pad", {x}, {{2, 3, 6}});
  const OpId softmax = b.AddOp(OpKind::kSoftmax, "softmax", {x}, {{2, 3, 4}});
  const Graph g = b.Finish();
  ASSERT_TRUE(CheckKernels(g).ok()) << CheckKernels(g).ToString();
  const at::Tensor xv = *MakeSourceTensor(g, x, 1), yv = *MakeSourceTensor(g, y, 1);
  EXPECT_TRUE(at::equal((*RunKernel(g, concat, {xv, yv}, nullptr))[0], at::cat({xv, yv}, 1)));
  EXPECT_TRUE(at::equal((*RunKernel(g, transpose, {xv}, nullptr))[0], xv.permute({2, 0, 1})));
  EXPECT_TRUE(at::equal((*RunKernel(g, slice, {yv}, nullptr))[0], yv.narrow(1, 0, 2)));
  EXPECT_TRUE(at::allclose((*RunKernel(g, reduce, {yv}, nullptr))[0], yv.mean(1)));
  EXPECT_TRUE(at::equal((*RunKernel(g, pad, {xv}, nullptr))[0], at::constant_pad_nd(xv, {1, 1})));
  EXPECT_TRUE(at::allclose((*RunKernel(g, softmax, {xv}, nullptr))[0], at::softmax(xv, -1)));
}

TEST(KernelsTest, CheckKernelsNamesAnOpItCannotRun) {
  GraphBuilder b("bad");
  const TensorId x = b.Input("x", {1, 2, 5, 5});
  const TensorId w = b.Variable("w", {3, 2});
  b.AddOp(OpKind::kConv, "flat_weight_conv", {x, w}, {{1, 3, 5, 5}});
  b.AddOp(OpKind::kReshape, "bad_reshape", {x}, {{7}});
  const Graph g = b.Finish();
  const Status s = CheckKernels(g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("flat_weight_conv"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("Conv"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("[3,2]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("bad_reshape"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("2 op(s)"), std::string::npos) << s.message();
  // RunKernel says the same for the op.
  const StatusOr<Tensors> r = RunKernel(g, g.tensor(w).consumers[0], {*MakeSourceTensor(g, x, 1), *MakeSourceTensor(g, w, 1)}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("flat_weight_conv"), std::string::npos);
}

}  // namespace
}  // namespace graphopt
