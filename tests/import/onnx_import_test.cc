// The ONNX importer against the real exports in data/onnx (parameter counts and
// multiply-accumulates known from the models' papers and torchvision), against tiny
// models built here whose shapes and costs can be checked by hand, and against
// broken files, which must give an error naming the file and never crash.
#include "import/onnx_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/files.h"
#include "graph/verifier.h"
#include "onnx_test_util.h"

namespace graphopt {
namespace {

using namespace onnx_test;

std::string OnnxPath(const std::string& file) { return std::string(GRAPHOPT_DATA_DIR) + "/onnx/" + file; }

const Graph& Imported(const std::string& file) {
  static auto* cache = new std::map<std::string, Graph>();
  auto it = cache->find(file);
  if (it == cache->end()) {
    StatusOr<Graph> g = ImportOnnx(OnnxPath(file));
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    it = cache->emplace(file, g.ok() ? std::move(g).value() : Graph()).first;
  }
  return it->second;
}

int64_t ParameterCount(const Graph& g) {
  int64_t n = 0;
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kVariable) n += g.tensor(op.outputs[0]).num_elements();
  }
  return n;
}

double TotalMacs(const Graph& g) {
  double macs = 0;
  for (const Op& op : g.ops()) macs += op.cost.macs;
  return macs;
}

int CountKind(const Graph& g, OpKind kind) {
  return static_cast<int>(std::count_if(g.ops().begin(), g.ops().end(), [&](const Op& op) { return op.kind == kind; }));
}

void ExpectErrorNaming(const StatusOr<Graph>& g, const std::string& path, const std::string& what);

// x [N,3,8,8] (N symbolic) -> Conv(W [4,3,3,3], B [4], pads 1) -> Relu -> y.
onnx::ModelProto TinyConvModel() {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {1, 3, 8, 8}, onnx::TensorProto::FLOAT, {"N"});
  AddInitializer(&m, "w", {4, 3, 3, 3});
  AddInitializer(&m, "b", {4});
  auto* conv = AddNode(&m, "Conv", {"x", "w", "b"}, {"c"}, "conv");
  AddIntsAttr(conv, "kernel_shape", {3, 3});
  AddIntsAttr(conv, "pads", {1, 1, 1, 1});
  AddNode(&m, "Relu", {"c"}, {"y"});
  SetTensorType(m.mutable_graph()->add_output(), "y", {1, 4, 8, 8}, onnx::TensorProto::FLOAT, {"N"});
  return m;
}

TEST(OnnxImportTest, ResNet50ParameterCountIsExact) { EXPECT_EQ(ParameterCount(Imported("resnet50.onnx")), 25530472); }

TEST(OnnxImportTest, InceptionV3ParameterCountIsExact) {
  EXPECT_EQ(ParameterCount(Imported("inception_v3.onnx")), 23817352);
}

TEST(OnnxImportTest, ResNet50MacsPerImageMatchPublishedCount) {
  EXPECT_NEAR(TotalMacs(Imported("resnet50.onnx")), 4.089e9, 0.01 * 4.089e9);
}

TEST(OnnxImportTest, InceptionV3MacsPerImageMatchPublishedCount) {
  EXPECT_NEAR(TotalMacs(Imported("inception_v3.onnx")), 5.713e9, 0.01 * 5.713e9);
}

TEST(OnnxImportTest, ParameterBytesAreFourPerFloatParameter) {
  const Graph& g = Imported("resnet50.onnx");
  EXPECT_EQ(g.TotalParamBytes(), 4 * 25530472);
  EXPECT_EQ(CountKind(g, OpKind::kVariable), g.num_colocation_groups());
}

TEST(OnnxImportTest, EveryDataFileImportsAndVerifies) {
  // Ops = graph inputs + initializers + nodes of each file.
  const std::map<std::string, int> expected_ops = {
      {"bert_encoder.onnx", 1 + 144 + 840}, {"inception_v3.onnx", 1 + 190 + 233},
      {"lstm_lm.onnx", 1 + 9 + 51},         {"resnet50.onnx", 1 + 108 + 122},
      {"squeezenet1_1.onnx", 1 + 52 + 65},  {"transformer_seq2seq.onnx", 2 + 196 + 1175},
  };
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GRAPHOPT_DATA_DIR) + "/onnx")) {
    if (entry.path().extension() != ".onnx") continue;
    const std::string file = entry.path().filename().string();
    ++files;
    const Graph& g = Imported(file);
    EXPECT_TRUE(VerifyGraph(g).ok()) << file << ": " << VerifyGraph(g).ToString();
    EXPECT_EQ(g.name(), entry.path().stem().string());
    EXPECT_EQ(g.metadata().at("source"), OnnxPath(file));
    EXPECT_EQ(CountKind(g, OpKind::kGeneric), 0) << file;
    auto it = expected_ops.find(file);
    if (it != expected_ops.end()) {
      EXPECT_EQ(g.num_ops(), it->second) << file;
    }
  }
  EXPECT_GE(files, 6);
}

TEST(OnnxImportTest, SqueezeNetWithEmbeddedWeightsImports) {
  const Graph& g = Imported("squeezenet1_1.onnx");
  EXPECT_EQ(ParameterCount(g), 1235496);
  EXPECT_EQ(CountKind(g, OpKind::kConv), 26);
  EXPECT_EQ(CountKind(g, OpKind::kConcat), 8);
}

TEST(OnnxImportTest, LstmLayersCostFourGatesPerStep) {
  const Graph& g = Imported("lstm_lm.onnx");
  ASSERT_EQ(CountKind(g, OpKind::kLSTM), 2);
  for (const Op& op : g.ops()) {
    if (op.kind != OpKind::kLSTM) continue;
    // 35 steps x batch 1 x 4 gates x 512 hidden x (512 input + 512 recurrent).
    EXPECT_DOUBLE_EQ(op.cost.macs, 35.0 * 4 * 512 * 1024) << op.name;
    EXPECT_EQ(GetIntAttr(op.attrs, "hidden_size", 0), 512);
  }
}

TEST(OnnxImportTest, SlicesOfComputedBoundsGetShapes) {
  // The attention input projection is split by Slice ops whose bounds come from
  // Shape -> Gather -> arithmetic, which ONNX shape inference leaves open.
  const Graph& g = Imported("bert_encoder.onnx");
  const Tensor* q = FindTensor(g, "/layers.0/self_attn/Slice_output_0");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->shape, (Shape{128, 1, 768}));
  const Tensor* v = FindTensor(g, "/layers.0/self_attn/Slice_2_output_0");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->shape, (Shape{128, 1, 768}));
}

TEST(OnnxImportTest, ShapeHelpersCostNothing) {
  const Graph& g = Imported("bert_encoder.onnx");
  const Op* gather = FindOp(g, "/layers.0/self_attn/Gather");
  ASSERT_NE(gather, nullptr);
  EXPECT_EQ(gather->kind, OpKind::kShapeCompute);
  const Op* div = FindOp(g, "/layers.0/self_attn/Div");
  ASSERT_NE(div, nullptr);
  EXPECT_EQ(div->kind, OpKind::kShapeCompute);
  EXPECT_EQ(FindOp(g, "/layers.0/self_attn/Shape")->kind, OpKind::kShape);
  for (const Op& op : g.ops()) {
    if (op.kind == OpKind::kShape || op.kind == OpKind::kShapeCompute || op.kind == OpKind::kConstant) {
      EXPECT_EQ(op.cost.flops, 0) << op.name;
      EXPECT_EQ(op.cost.bytes_read + op.cost.bytes_written, 0) << op.name;
    }
  }
  // The attention scores are batched matrix products.
  EXPECT_EQ(FindOp(g, "/layers.0/self_attn/MatMul_1")->kind, OpKind::kBatchMatMul);
  EXPECT_EQ(FindOp(g, "/layers.0/linear1/MatMul")->kind, OpKind::kMatMul);
}

TEST(OnnxImportTest, HandBuiltConvHasHandComputedShapesAndMacs) {
  const std::string path = WriteModel(TinyConvModel(), "conv.onnx");
  OnnxImportOptions options;
  options.dim_values["N"] = 1;
  StatusOr<Graph> g = ImportOnnx(path, options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(g->num_ops(), 5);
  EXPECT_EQ(g->op(0).kind, OpKind::kInput);
  EXPECT_EQ(g->op(1).kind, OpKind::kVariable);
  EXPECT_EQ(g->op(2).kind, OpKind::kVariable);
  EXPECT_EQ(g->op(1).param_bytes, 4 * 108);
  EXPECT_NE(g->op(1).colocation_group, g->op(2).colocation_group);
  const Op& conv = g->op(3);
  EXPECT_EQ(conv.kind, OpKind::kConv);
  EXPECT_EQ(conv.name, "conv");
  EXPECT_EQ(GetIntsAttr(conv.attrs, "kernel"), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(GetIntsAttr(conv.attrs, "strides"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(GetIntAttr(conv.attrs, "group", 0), 1);
  // Batch N bound to 1: output [1,4,8,8] = 256 elements x 27 MACs each.
  EXPECT_EQ(g->tensor(conv.outputs[0]).shape, (Shape{1, 4, 8, 8}));
  EXPECT_DOUBLE_EQ(conv.cost.macs, 256.0 * 27);
  EXPECT_DOUBLE_EQ(conv.cost.flops, 2 * 256.0 * 27 + 256);
  EXPECT_EQ(g->op(4).kind, OpKind::kRelu);
  EXPECT_EQ(g->op(4).name, "Relu_1");
  std::remove(path.c_str());
}

TEST(OnnxImportTest, NamedSymbolicDimensionTakesItsOptionValue) {
  const std::string path = WriteModel(TinyConvModel(), "conv_batch.onnx");
  OnnxImportOptions options;
  options.dim_values["N"] = 2;
  StatusOr<Graph> g = ImportOnnx(path, options);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->tensor(g->op(3).outputs[0]).shape, (Shape{2, 4, 8, 8}));
  EXPECT_DOUBLE_EQ(g->op(3).cost.macs, 2 * 256.0 * 27);
  std::remove(path.c_str());
}

TEST(OnnxImportTest, HandBuiltMatMulsHaveHandComputedMacs) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "a", {2, 3, 4});
  SetTensorType(m.mutable_graph()->add_input(), "b", {2, 4, 5});
  AddInitializer(&m, "w", {5, 6});
  AddNode(&m, "MatMul", {"a", "b"}, {"ab"}, "batched");
  AddNode(&m, "MatMul", {"ab", "w"}, {"y"}, "shared");
  SetTensorType(m.mutable_graph()->add_output(), "y", {2, 3, 6});
  const std::string path = WriteModel(m, "matmul.onnx");
  StatusOr<Graph> g = ImportOnnx(path);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Op* batched = FindOp(*g, "batched");
  const Op* shared = FindOp(*g, "shared");
  ASSERT_TRUE(batched != nullptr && shared != nullptr);
  EXPECT_EQ(batched->kind, OpKind::kBatchMatMul);
  EXPECT_EQ(shared->kind, OpKind::kMatMul);
  EXPECT_EQ(g->tensor(batched->outputs[0]).shape, (Shape{2, 3, 5}));
  EXPECT_DOUBLE_EQ(batched->cost.macs, 2.0 * 3 * 5 * 4);
  EXPECT_DOUBLE_EQ(shared->cost.macs, 2.0 * 3 * 6 * 5);
  std::remove(path.c_str());
}

TEST(OnnxImportTest, SymbolicDimensionLeftUnboundIsAnError) {
  const std::string path = WriteModel(TinyConvModel(), "conv_unbound.onnx");
  ExpectErrorNaming(ImportOnnx(path), path, "'N'");
  std::remove(path.c_str());
}

TEST(OnnxImportTest, UnknownOpTypeWithoutDeclaredShapeIsAnErrorNamingTensorAndNode) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {2, 8});
  AddNode(&m, "FancyOp", {"x"}, {"f1"}, "fancy1");
  const std::string path = WriteModel(m, "fancy_undeclared.onnx");
  StatusOr<Graph> g = ImportOnnx(path);
  ExpectErrorNaming(g, path, "tensor 'f1'");
  ExpectErrorNaming(g, path, "'fancy1' (FancyOp)");
  std::remove(path.c_str());
}

TEST(OnnxImportTest, UnknownOpTypeImportsAsGenericWithOneWarning) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {2, 8});
  AddNode(&m, "FancyOp", {"x"}, {"f1"}, "fancy1");
  AddNode(&m, "FancyOp", {"f1"}, {"f2"}, "fancy2");
  // The shapes the file declares for the outputs of the op no schema describes.
  SetTensorType(m.mutable_graph()->add_value_info(), "f1", {2, 8});
  SetTensorType(m.mutable_graph()->add_value_info(), "f2", {2, 8});
  AddNode(&m, "Relu", {"f2"}, {"y"}, "relu");
  const std::string path = WriteModel(m, "fancy.onnx");
  ::testing::internal::CaptureStderr();
  StatusOr<Graph> g = ImportOnnx(path);
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Op* fancy = FindOp(*g, "fancy2");
  ASSERT_NE(fancy, nullptr);
  EXPECT_EQ(fancy->kind, OpKind::kGeneric);
  EXPECT_EQ(GetStringAttr(fancy->attrs, "op_type", ""), "FancyOp");
  // Outputs take their declared shapes; Generic ops cost their bytes.
  EXPECT_EQ(g->tensor(fancy->outputs[0]).shape, (Shape{2, 8}));
  EXPECT_EQ(fancy->cost.bytes_read, 64);
  EXPECT_EQ(fancy->cost.bytes_written, 64);
  EXPECT_EQ(FindOp(*g, "relu")->kind, OpKind::kRelu);
  EXPECT_NE(log.find("FancyOp x2"), std::string::npos) << log;
  size_t warnings = 0;
  for (size_t at = log.find("does not know"); at != std::string::npos; at = log.find("does not know", at + 1))
    ++warnings;
  EXPECT_EQ(warnings, 1u) << log;
  std::remove(path.c_str());
}

TEST(OnnxImportTest, NodesOutOfOrderAreSorted) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {4});
  AddNode(&m, "Relu", {"h"}, {"y"}, "second");
  AddNode(&m, "Neg", {"x"}, {"h"}, "first");
  const std::string path = WriteModel(m, "unsorted.onnx");
  StatusOr<Graph> g = ImportOnnx(path);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->op(1).name, "first");
  EXPECT_EQ(g->op(2).name, "second");
  EXPECT_EQ(g->tensor(g->op(2).outputs[0]).shape, (Shape{4}));
  std::remove(path.c_str());
}

TEST(OnnxImportTest, SubgraphReadsBecomeInputsOfTheirNode) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {4});
  SetTensorType(m.mutable_graph()->add_input(), "c", {}, onnx::TensorProto::BOOL);
  auto* node = AddNode(&m, "If", {"c"}, {"y"}, "branch");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = node->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(branch);
    auto* relu = g->add_node();
    relu->set_op_type("Relu");
    relu->add_input("x");
    relu->add_output(std::string(branch) + "_out");
    SetTensorType(g->add_output(), std::string(branch) + "_out", {4});
  }
  const std::string path = WriteModel(m, "if.onnx");
  ::testing::internal::CaptureStderr();
  StatusOr<Graph> g = ImportOnnx(path);
  ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Op* branch = FindOp(*g, "branch");
  ASSERT_NE(branch, nullptr);
  ASSERT_EQ(branch->inputs.size(), 2u);
  EXPECT_EQ(g->tensor(branch->inputs[0]).name, "c");
  EXPECT_EQ(g->tensor(branch->inputs[1]).name, "x");
  EXPECT_EQ(g->tensor(branch->outputs[0]).shape, (Shape{4}));
  std::remove(path.c_str());
}

void ExpectErrorNaming(const StatusOr<Graph>& g, const std::string& path, const std::string& what) {
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.status().message().find(path), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find(what), std::string::npos) << g.status().message();
}

TEST(OnnxImportTest, MissingFileFails) {
  const std::string path = OnnxPath("no_such_model.onnx");
  ExpectErrorNaming(ImportOnnx(path), path, "cannot open");
}

TEST(OnnxImportTest, TruncatedFilesFail) {
  StatusOr<std::string> bytes = ReadFile(OnnxPath("resnet50.onnx"));
  ASSERT_TRUE(bytes.ok());
  const size_t size = bytes->size();
  for (size_t length :
       {size_t{0}, size_t{1}, size_t{7}, size_t{100}, size_t{1000}, size / 3, size / 2, size - 40, size - 1}) {
    const std::string path = TempPath("truncated_" + std::to_string(length) + ".onnx");
    ASSERT_TRUE(WriteFileAtomic(path, bytes->substr(0, length)).ok());
    StatusOr<Graph> g = ImportOnnx(path);
    EXPECT_FALSE(g.ok()) << "length " << length;
    if (!g.ok()) {
      EXPECT_NE(g.status().message().find(path), std::string::npos) << g.status().message();
    }
    std::remove(path.c_str());
  }
}

TEST(OnnxImportTest, RandomBytesFail) {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 20; ++trial) {
    std::string bytes(static_cast<size_t>(1 + rng() % 4096), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    const std::string path = TempPath("random_" + std::to_string(trial) + ".onnx");
    ASSERT_TRUE(WriteFileAtomic(path, bytes).ok());
    StatusOr<Graph> g = ImportOnnx(path);
    EXPECT_FALSE(g.ok()) << "trial " << trial;
    if (!g.ok()) {
      EXPECT_NE(g.status().message().find(path), std::string::npos) << g.status().message();
    }
    std::remove(path.c_str());
  }
}

TEST(OnnxImportTest, ProtobufThatIsNotAModelFails) {
  // A serialized GraphProto parses as a ModelProto (as unknown fields) without a graph.
  onnx::ModelProto model = TinyConvModel();
  std::string bytes;
  ASSERT_TRUE(model.graph().SerializeToString(&bytes));
  const std::string path = TempPath("tensor.onnx");
  ASSERT_TRUE(WriteFileAtomic(path, bytes).ok());
  ExpectErrorNaming(ImportOnnx(path), path, "no graph");
  std::remove(path.c_str());
}

TEST(OnnxImportTest, UndefinedTensorFails) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {4});
  AddNode(&m, "Add", {"x", "ghost"}, {"y"}, "adder");
  const std::string path = WriteModel(m, "undefined.onnx");
  ExpectErrorNaming(ImportOnnx(path), path, "'ghost'");
  std::remove(path.c_str());
}

TEST(OnnxImportTest, CycleFails) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {4});
  AddNode(&m, "Add", {"x", "b"}, {"a"}, "first");
  AddNode(&m, "Relu", {"a"}, {"b"}, "second");
  const std::string path = WriteModel(m, "cycle.onnx");
  ExpectErrorNaming(ImportOnnx(path), path, "cycle");
  std::remove(path.c_str());
}

TEST(OnnxImportTest, TensorWrittenTwiceFails) {
  onnx::ModelProto m = NewModel();
  SetTensorType(m.mutable_graph()->add_input(), "x", {4});
  AddNode(&m, "Relu", {"x"}, {"y"}, "one");
  AddNode(&m, "Neg", {"x"}, {"y"}, "two");
  const std::string path = WriteModel(m, "twice.onnx");
  ExpectErrorNaming(ImportOnnx(path), path, "'y'");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace graphopt
