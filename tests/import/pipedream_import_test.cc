#include "import/pipedream_import.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/strings.h"
#include "graph/training.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

// A small profile with numbers checkable on paper: an input (whose 500 ms are data
// loading), a conv with parameters, a relu, an LSTM with three outputs picked apart
// by __getitem__, a residual add and a linear layer.
constexpr const char kSmallProfile[] =
    "node1 -- Input -- forward_compute_time=500.000, backward_compute_time=0.000, activation_size=4096.000, "
    "parameter_size=0.000\n"
    "node2 -- Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1)) -- forward_compute_time=1.500, "
    "backward_compute_time=3.000, activation_size=8192.000, parameter_size=880.000\n"
    "node3 -- ReLU(inplace) -- forward_compute_time=0.250, backward_compute_time=0.125, activation_size=8192.000, "
    "parameter_size=0.000\n"
    "node4 -- LSTM(8, 8) -- forward_compute_time=2.000, backward_compute_time=4.000, "
    "activation_size=[8192.0; 256.0; 128.0], parameter_size=2176.000\n"
    "node5 -- __getitem__(0) -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=8192.0, "
    "parameter_size=0.000\n"
    "node6 -- __getitem__(1) -- forward_compute_time=0.000, backward_compute_time=0.000, activation_size=256.0, "
    "parameter_size=0.000\n"
    "node7 -- Add -- forward_compute_time=0.100, backward_compute_time=0.050, activation_size=8192.0, "
    "parameter_size=0.000\n"
    "node8 -- Linear(in_features=8, out_features=2, bias=True) -- forward_compute_time=0.500, "
    "backward_compute_time=1.000, activation_size=64.000, parameter_size=72.000\n"
    "\tnode1 -- node2\n"
    "\tnode2 -- node3\n"
    "\tnode3 -- node4\n"
    "\tnode4 -- node5\n"
    "\tnode4 -- node6\n"
    "\tnode5 -- node7\n"
    "\tnode3 -- node7\n"
    "\tnode7 -- node8\n";

// Sum of backward_compute_time over the layers of kSmallProfile, in microseconds.
constexpr double kSmallBackwardUs = (3.0 + 0.125 + 4.0 + 0.05 + 1.0) * 1000.0;

std::string DataDir() { return std::string(GRAPHOPT_DATA_DIR) + "/pipedream"; }

std::vector<std::string> ProfileFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(DataDir())) {
    if (entry.path().extension() == ".txt") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Graph Small() {
  StatusOr<Graph> graph = ParsePipeDream(kSmallProfile, "small.txt");
  GO_CHECK_MSG(graph.ok(), graph.status().message());
  return std::move(graph).value();
}

OpId FindOp(const Graph& graph, const std::string& name) {
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    if (graph.op(o).name == name) return o;
  }
  return kNoId;
}

// The error message of parsing `text` as "bad.txt", or "OK".
std::string ErrorOf(const std::string& text) {
  StatusOr<Graph> graph = ParsePipeDream(text, "bad.txt");
  return graph.ok() ? "OK" : graph.status().message();
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A layer line with the given fields.
std::string Layer(const std::string& id, const std::string& description, const std::string& activation = "64.0",
                  const std::string& params = "0.0", const std::string& forward = "1.0",
                  const std::string& backward = "2.0") {
  return id + " -- " + description + " -- forward_compute_time=" + forward + ", backward_compute_time=" + backward +
         ", activation_size=" + activation + ", parameter_size=" + params + "\n";
}

double BackwardMeasuredUs(const Graph& graph) {
  double sum = 0;
  for (const Op& op : graph.ops()) {
    if (op.phase == Phase::kBackward && op.measured_time_us > 0) sum += op.measured_time_us;
  }
  return sum;
}

TEST(PipeDreamImportTest, EveryProfileImportsVerifiesAndExpandsToTraining) {
  const std::vector<std::string> files = ProfileFiles();
  ASSERT_GE(files.size(), 7u);
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    StatusOr<Graph> graph = ImportPipeDream(path);
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    EXPECT_TRUE(VerifyGraph(*graph).ok());
    StatusOr<Graph> training = BuildTrainingGraph(*graph);
    ASSERT_TRUE(training.ok()) << training.status().message();
    EXPECT_TRUE(VerifyGraph(*training).ok()) << VerifyGraph(*training).message();
    EXPECT_GT(training->num_ops(), graph->num_ops());
  }
}

TEST(PipeDreamImportTest, EveryProfileKeepsItsBackwardTimeAfterExpansion) {
  for (const std::string& path : ProfileFiles()) {
    SCOPED_TRACE(path);
    StatusOr<Graph> graph = ImportPipeDream(path);
    ASSERT_TRUE(graph.ok()) << graph.status().message();
    double layers_us = 0;
    for (const Op& op : graph->ops()) layers_us += std::max(op.measured_backward_us, 0.0);
    StatusOr<Graph> training = BuildTrainingGraph(*graph);
    ASSERT_TRUE(training.ok()) << training.status().message();
    EXPECT_NEAR(BackwardMeasuredUs(*training), layers_us, 1e-6 * layers_us);
  }
}

TEST(PipeDreamImportTest, GnmtLayerCountMatchesTheFile) {
  StatusOr<Graph> graph = ImportPipeDream(DataDir() + "/gnmt.txt");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  int layers = 0, variables = 0;
  for (const Op& op : graph->ops()) (op.kind == OpKind::kVariable ? variables : layers)++;
  EXPECT_EQ(layers, 48);
  EXPECT_EQ(variables, 11);
}

TEST(PipeDreamImportTest, GraphNameAndMetadataComeFromTheFile) {
  const std::string path = DataDir() + "/gnmt.txt";
  StatusOr<Graph> graph = ImportPipeDream(path);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->name(), "gnmt");
  EXPECT_EQ(graph->metadata().at("source"), path);
  EXPECT_EQ(graph->metadata().at("profile"), "pipedream");
}

TEST(PipeDreamImportTest, SmallProfileHasOneOpPerLayerPlusOnePerParameter) { EXPECT_EQ(Small().num_ops(), 8 + 3); }

TEST(PipeDreamImportTest, OpNamesJoinNodeIdAndLayerName) {
  const Graph graph = Small();
  EXPECT_NE(FindOp(graph, "node2/Conv2d"), kNoId);
  EXPECT_NE(FindOp(graph, "node2/Conv2d/params"), kNoId);
  EXPECT_NE(FindOp(graph, "node5/__getitem__"), kNoId);
}

TEST(PipeDreamImportTest, MeasuredTimesAreInMicroseconds) {
  const Graph graph = Small();
  const Op& conv = graph.op(FindOp(graph, "node2/Conv2d"));
  EXPECT_DOUBLE_EQ(conv.measured_time_us, 1500.0);
  EXPECT_DOUBLE_EQ(conv.measured_backward_us, 3000.0);
  const Op& relu = graph.op(FindOp(graph, "node3/ReLU"));
  EXPECT_DOUBLE_EQ(relu.measured_time_us, 250.0);
  EXPECT_DOUBLE_EQ(relu.measured_backward_us, 125.0);
}

TEST(PipeDreamImportTest, InputForwardTimeIsNotCompute) {
  const Graph graph = Small();
  const Op& input = graph.op(FindOp(graph, "node1/Input"));
  EXPECT_EQ(input.kind, OpKind::kInput);
  EXPECT_LT(input.measured_time_us, 0);
  EXPECT_LT(input.measured_backward_us, 0);
  EXPECT_EQ(input.cost.bytes_read + input.cost.bytes_written, 0);
  EXPECT_DOUBLE_EQ(GetFloatAttr(input.attrs, "data_loading_us", 0), 500000.0);
}

TEST(PipeDreamImportTest, NumberedInputsAreInputs) {
  StatusOr<Graph> graph = ImportPipeDream(DataDir() + "/gnmt.txt");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  int inputs = 0;
  for (const Op& op : graph->ops()) inputs += op.kind == OpKind::kInput;
  EXPECT_EQ(inputs, 3);
}

TEST(PipeDreamImportTest, ActivationSizesAreTensorBytes) {
  const Graph graph = Small();
  const Op& conv = graph.op(FindOp(graph, "node2/Conv2d"));
  ASSERT_EQ(conv.outputs.size(), 1u);
  EXPECT_EQ(graph.tensor(conv.outputs[0]).bytes(), 8192);
  EXPECT_EQ(graph.tensor(conv.outputs[0]).shape.size(), 1u);
  EXPECT_EQ(conv.cost.flops, 0);
  EXPECT_EQ(conv.cost.bytes_read, 4096 + 880);
  EXPECT_EQ(conv.cost.bytes_written, 8192);
}

TEST(PipeDreamImportTest, ActivationListGivesOneOutputPerEntry) {
  const Graph graph = Small();
  const Op& lstm = graph.op(FindOp(graph, "node4/LSTM"));
  EXPECT_EQ(lstm.kind, OpKind::kLSTM);
  ASSERT_EQ(lstm.outputs.size(), 3u);
  EXPECT_EQ(graph.tensor(lstm.outputs[0]).bytes(), 8192);
  EXPECT_EQ(graph.tensor(lstm.outputs[1]).bytes(), 256);
  EXPECT_EQ(graph.tensor(lstm.outputs[2]).bytes(), 128);
  EXPECT_EQ(lstm.cost.bytes_written, 8192 + 256 + 128);
}

TEST(PipeDreamImportTest, ParametersBecomeVariablesInTheirOwnGroups) {
  const Graph graph = Small();
  const Op& conv_params = graph.op(FindOp(graph, "node2/Conv2d/params"));
  const Op& lstm_params = graph.op(FindOp(graph, "node4/LSTM/params"));
  EXPECT_EQ(conv_params.kind, OpKind::kVariable);
  EXPECT_EQ(conv_params.param_bytes, 880);
  EXPECT_EQ(lstm_params.param_bytes, 2176);
  EXPECT_EQ(graph.tensor(conv_params.outputs[0]).bytes(), 880);
  EXPECT_NE(conv_params.colocation_group, kNoId);
  EXPECT_NE(conv_params.colocation_group, lstm_params.colocation_group);
  EXPECT_EQ(graph.TotalParamBytes(), 880 + 2176 + 72);
  const Op& conv = graph.op(FindOp(graph, "node2/Conv2d"));
  ASSERT_EQ(conv.inputs.size(), 2u);
  EXPECT_EQ(conv.inputs[1], conv_params.outputs[0]);
}

TEST(PipeDreamImportTest, OddParameterBytesRoundUpToWholeFloats) {
  const Graph graph = *ParsePipeDream(Layer("node1", "Linear(1, 1)", "4.0", "6.0"), "odd.txt");
  const Op& params = graph.op(FindOp(graph, "node1/Linear/params"));
  EXPECT_EQ(params.param_bytes, 6);
  EXPECT_EQ(graph.tensor(params.outputs[0]).num_elements(), 2);
}

TEST(PipeDreamImportTest, ConsumerInputsFollowEdgeOrder) {
  const Graph graph = Small();
  const Op& add = graph.op(FindOp(graph, "node7/Add"));
  ASSERT_EQ(add.inputs.size(), 2u);
  EXPECT_EQ(add.inputs[0], graph.op(FindOp(graph, "node5/__getitem__")).outputs[0]);
  EXPECT_EQ(add.inputs[1], graph.op(FindOp(graph, "node3/ReLU")).outputs[0]);
}

TEST(PipeDreamImportTest, GetItemPicksTheIndexedOutput) {
  const Graph graph = Small();
  const Op& lstm = graph.op(FindOp(graph, "node4/LSTM"));
  const Op& item0 = graph.op(FindOp(graph, "node5/__getitem__"));
  const Op& item1 = graph.op(FindOp(graph, "node6/__getitem__"));
  ASSERT_EQ(item0.inputs.size(), 1u);
  ASSERT_EQ(item1.inputs.size(), 1u);
  EXPECT_EQ(item0.inputs[0], lstm.outputs[0]);
  EXPECT_EQ(item1.inputs[0], lstm.outputs[1]);
  EXPECT_EQ(item1.kind, OpKind::kIdentity);
}

TEST(PipeDreamImportTest, NonGetItemConsumerReadsTheFirstOutput) {
  const std::string text =
      Layer("node1", "LSTM(4, 4)", "[64.0; 32.0]") + Layer("node2", "Dropout(p=0.2)") + "\tnode1 -- node2\n";
  const Graph graph = *ParsePipeDream(text, "first.txt");
  EXPECT_EQ(graph.op(FindOp(graph, "node2/Dropout")).inputs[0], graph.op(FindOp(graph, "node1/LSTM")).outputs[0]);
}

TEST(PipeDreamImportTest, KindsFollowLayerNames) {
  const Graph graph = Small();
  EXPECT_EQ(graph.op(FindOp(graph, "node2/Conv2d")).kind, OpKind::kConv);
  EXPECT_EQ(graph.op(FindOp(graph, "node3/ReLU")).kind, OpKind::kRelu);
  EXPECT_EQ(graph.op(FindOp(graph, "node7/Add")).kind, OpKind::kAdd);
  EXPECT_EQ(graph.op(FindOp(graph, "node8/Linear")).kind, OpKind::kMatMul);
}

TEST(PipeDreamImportTest, UnknownLayersAreGenericAndKeepTheirDescription) {
  StatusOr<Graph> graph = ImportPipeDream(DataDir() + "/gnmt.txt");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  const Op& attention = graph->op(FindOp(*graph, "node23/RecurrentAttention"));
  EXPECT_EQ(attention.kind, OpKind::kGeneric);
  EXPECT_EQ(GetStringAttr(attention.attrs, "layer", ""), "RecurrentAttention");
  EXPECT_TRUE(
      StartsWith(GetStringAttr(attention.attrs, "description", ""), "RecurrentAttention(  (rnn): LSTM(1024, 1024)"));
  EXPECT_EQ(attention.outputs.size(), 5u);
  EXPECT_EQ(graph->op(FindOp(*graph, "node5/EmuBidirLSTM")).kind, OpKind::kLSTM);
  EXPECT_EQ(graph->op(FindOp(*graph, "node4/Embedding")).kind, OpKind::kGather);
}

TEST(PipeDreamImportTest, DescriptionsMayContainSeparatorsAndEquals) {
  const std::string text = Layer("node1", "Input") + Layer("node2", "Odd(a=1, b -- c, [x; y])") + "\tnode1 -- node2\n";
  StatusOr<Graph> graph = ParsePipeDream(text, "odd.txt");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(GetStringAttr(graph->op(FindOp(*graph, "node2/Odd")).attrs, "description", ""), "Odd(a=1, b -- c, [x; y])");
}

TEST(PipeDreamImportTest, AddOfDifferentSizesBecomesGeneric) {
  const std::string text = Layer("node1", "Input", "64.0") + Layer("node2", "ReLU", "32.0") +
                           Layer("node3", "Add", "64.0") + "\tnode1 -- node2\n\tnode1 -- node3\n\tnode2 -- node3\n";
  StatusOr<Graph> graph = ParsePipeDream(text, "add.txt");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->op(FindOp(*graph, "node3/Add")).kind, OpKind::kGeneric);
}

TEST(PipeDreamImportTest, BackwardTimesSurviveTrainingExpansion) {
  StatusOr<Graph> training = BuildTrainingGraph(Small());
  ASSERT_TRUE(training.ok()) << training.status().message();
  EXPECT_NEAR(BackwardMeasuredUs(*training), kSmallBackwardUs, 1e-6);
}

TEST(PipeDreamImportTest, EveryParameterGetsAnUpdate) {
  StatusOr<Graph> training = BuildTrainingGraph(Small());
  ASSERT_TRUE(training.ok()) << training.status().message();
  int updates = 0;
  for (const Op& op : training->ops()) updates += op.kind == OpKind::kApplyGradient;
  EXPECT_EQ(updates, 3);
}

TEST(PipeDreamImportTest, LayersMayBeListedInAnyOrder) {
  const std::string text = Layer("node2", "ReLU") + "\tnode1 -- node2\n" + Layer("node1", "Input");
  StatusOr<Graph> graph = ParsePipeDream(text, "order.txt");
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  EXPECT_EQ(graph->op(0).name, "node1/Input");
}

TEST(PipeDreamImportTest, CarriageReturnsAndBlankLinesAreAccepted) {
  const std::string text = Layer("node1", "Input") + "\r\n\n" +
                           "node2 -- ReLU -- forward_compute_time=1, "
                           "backward_compute_time=1, activation_size=64, parameter_size=0\r\n\tnode1 -- node2\r\n";
  EXPECT_EQ(ErrorOf(text), "OK");
}

TEST(PipeDreamImportTest, EmptyFileFails) {
  const std::string error = ErrorOf("");
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "empty")) << error;
}

TEST(PipeDreamImportTest, BlankFileFails) { EXPECT_TRUE(Contains(ErrorOf("\n\n  \n"), "bad.txt:3:")); }

TEST(PipeDreamImportTest, MissingFieldFails) {
  const std::string text =
      Layer("node1", "Input") + "node2 -- ReLU -- forward_compute_time=1.0, activation_size=4.0, parameter_size=0.0\n";
  const std::string error = ErrorOf(text);
  EXPECT_TRUE(Contains(error, "bad.txt:2:")) << error;
  EXPECT_TRUE(Contains(error, "missing backward_compute_time")) << error;
}

TEST(PipeDreamImportTest, NonNumericTimeFails) {
  const std::string error = ErrorOf(Layer("node1", "Input") + Layer("node2", "ReLU", "64.0", "0.0", "fast"));
  EXPECT_TRUE(Contains(error, "bad.txt:2:")) << error;
  EXPECT_TRUE(Contains(error, "forward_compute_time 'fast' is not a number")) << error;
}

TEST(PipeDreamImportTest, NotFiniteTimeFails) {
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "ReLU", "64.0", "0.0", "1.0", "nan")), "bad.txt:1:"));
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "ReLU", "64.0", "0.0", "inf")), "bad.txt:1:"));
}

TEST(PipeDreamImportTest, NegativeTimeFails) {
  const std::string error = ErrorOf(Layer("node1", "ReLU", "64.0", "0.0", "-1.0"));
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "negative")) << error;
}

TEST(PipeDreamImportTest, NegativeActivationSizeFails) {
  const std::string error = ErrorOf(Layer("node1", "Input") + Layer("node2", "ReLU", "-64.0"));
  EXPECT_TRUE(Contains(error, "bad.txt:2:")) << error;
  EXPECT_TRUE(Contains(error, "activation_size is negative")) << error;
}

TEST(PipeDreamImportTest, NegativeParameterSizeFails) {
  const std::string error = ErrorOf(Layer("node1", "Linear(2, 2)", "64.0", "-16.0"));
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "parameter_size is negative")) << error;
}

// Issue 14: strtod reads "0x10" as 16; a profile's numbers are decimal only.
TEST(PipeDreamImportTest, HexadecimalNumbersFail) {
  const std::string error = ErrorOf(Layer("node1", "ReLU", "64.0", "0.0", "0x10"));
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "forward_compute_time '0x10' is not a number")) << error;
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "ReLU", "0x40")), "activation_size")) << ErrorOf(Layer("node1", "ReLU", "0x40"));
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "Linear(2, 2)", "64.0", "0X10")), "parameter_size"));
}

// Issue 14: a measured time of 1e308 ms is an error, not "inf s".
TEST(PipeDreamImportTest, ImplausiblyLongTimeFails) {
  const std::string error = ErrorOf(Layer("node1", "ReLU", "64.0", "0.0", "1e308"));
  EXPECT_TRUE(Contains(error, "forward_compute_time 1e308 is implausibly long")) << error;
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "ReLU", "64.0", "0.0", "1.0", "1e300")), "backward_compute_time"));
}

TEST(PipeDreamImportTest, HugeSizeFails) {
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "ReLU", "1e300")), "implausibly large"));
}

TEST(PipeDreamImportTest, BadActivationListFails) {
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "LSTM(1, 1)", "[]")), "bad.txt:1:"));
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "LSTM(1, 1)", "[64.0; x]")), "bad.txt:1:"));
  EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "LSTM(1, 1)", "[64.0; 32.0")), "bad.txt:1:"));
}

TEST(PipeDreamImportTest, DuplicateFieldFails) {
  const std::string error = ErrorOf(
      "node1 -- ReLU -- forward_compute_time=1, forward_compute_time=2, backward_compute_time=1, activation_size=4, "
      "parameter_size=0\n");
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "given twice")) << error;
}

TEST(PipeDreamImportTest, EmptyDescriptionFails) { EXPECT_TRUE(Contains(ErrorOf(Layer("node1", "")), "bad.txt:1:")); }

TEST(PipeDreamImportTest, BadLayerIdFails) {
  const std::string error = ErrorOf(Layer("layer1", "ReLU"));
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "nodeK")) << error;
}

TEST(PipeDreamImportTest, UnknownNodeInEdgeFails) {
  const std::string error =
      ErrorOf(Layer("node1", "Input") + Layer("node2", "ReLU") + "\tnode1 -- node2\n\tnode2 -- node9\n");
  EXPECT_TRUE(Contains(error, "bad.txt:4:")) << error;
  EXPECT_TRUE(Contains(error, "node9")) << error;
}

TEST(PipeDreamImportTest, DuplicateNodeIdFails) {
  const std::string error = ErrorOf(Layer("node1", "Input") + Layer("node2", "ReLU") + Layer("node2", "ReLU"));
  EXPECT_TRUE(Contains(error, "bad.txt:3:")) << error;
  EXPECT_TRUE(Contains(error, "first on line 2")) << error;
}

TEST(PipeDreamImportTest, DuplicateEdgeFails) {
  const std::string error =
      ErrorOf(Layer("node1", "Input") + Layer("node2", "ReLU") + "\tnode1 -- node2\n\tnode1 -- node2\n");
  EXPECT_TRUE(Contains(error, "bad.txt:4:")) << error;
  EXPECT_TRUE(Contains(error, "given twice")) << error;
}

TEST(PipeDreamImportTest, SelfLoopFails) {
  const std::string error = ErrorOf(Layer("node1", "ReLU") + "\tnode1 -- node1\n");
  EXPECT_TRUE(Contains(error, "bad.txt:2:")) << error;
  EXPECT_TRUE(Contains(error, "itself")) << error;
}

TEST(PipeDreamImportTest, CycleFails) {
  const std::string text = Layer("node1", "Input") + Layer("node2", "ReLU") + Layer("node3", "ReLU") +
                           Layer("node4", "ReLU") +
                           "\tnode1 -- node2\n\tnode2 -- node3\n\tnode3 -- node4\n\tnode4 -- node2\n";
  const std::string error = ErrorOf(text);
  EXPECT_TRUE(Contains(error, "bad.txt:8:")) << error;
  EXPECT_TRUE(Contains(error, "cycle")) << error;
  EXPECT_TRUE(Contains(error, "node2 -> node3 -> node4 -> node2")) << error;
}

TEST(PipeDreamImportTest, EdgeIntoInputFails) {
  const std::string error = ErrorOf(Layer("node1", "ReLU") + Layer("node2", "Input") + "\tnode1 -- node2\n");
  EXPECT_TRUE(Contains(error, "bad.txt:3:")) << error;
}

TEST(PipeDreamImportTest, DisconnectedLayerFails) {
  const std::string error =
      ErrorOf(Layer("node1", "Input") + Layer("node2", "ReLU") + Layer("node3", "ReLU") + "\tnode1 -- node2\n");
  EXPECT_TRUE(Contains(error, "bad.txt:3:")) << error;
  EXPECT_TRUE(Contains(error, "not connected")) << error;
}

TEST(PipeDreamImportTest, GarbageLineFails) {
  const std::string error = ErrorOf(Layer("node1", "Input") + "hello world\n");
  EXPECT_TRUE(Contains(error, "bad.txt:2:")) << error;
  EXPECT_TRUE(Contains(error, "'hello world'")) << error;
}

TEST(PipeDreamImportTest, BinaryBytesAreEscapedInMessages) {
  const std::string error = ErrorOf(std::string("node1 -- ReLU -- \x01\xff\0", 20));
  EXPECT_TRUE(Contains(error, "bad.txt:1:")) << error;
  EXPECT_TRUE(Contains(error, "\\x01\\xff\\x00")) << error;
}

TEST(PipeDreamImportTest, MissingFileFails) {
  StatusOr<Graph> graph = ImportPipeDream(DataDir() + "/no_such_profile.txt");
  ASSERT_FALSE(graph.ok());
  EXPECT_TRUE(Contains(graph.status().message(), "no_such_profile.txt")) << graph.status().message();
}

TEST(PipeDreamImportTest, DirectoryFails) { EXPECT_FALSE(ImportPipeDream(DataDir()).ok()); }

// A cut-off file either still describes a graph (cut at a line end with all layers
// connected) or fails naming the file and a line.
TEST(PipeDreamImportTest, TruncatedFilesFailWithALineOrStillVerify) {
  for (const char* file : {"gnmt.txt", "resnet18.txt", "alexnet.txt"}) {
    const std::string text = ReadFile(DataDir() + "/" + file);
    ASSERT_FALSE(text.empty());
    int failures = 0;
    for (size_t length : {size_t{0}, size_t{1}, size_t{10}, size_t{57}, text.size() / 7, text.size() / 3,
                          text.size() / 2, text.size() - 200, text.size() - 30, text.size() - 3}) {
      SCOPED_TRACE(std::string(file) + " cut at " + std::to_string(length));
      StatusOr<Graph> graph = ParsePipeDream(text.substr(0, length), file);
      if (graph.ok()) {
        EXPECT_TRUE(VerifyGraph(*graph).ok());
        EXPECT_TRUE(BuildTrainingGraph(*graph).ok());
      } else {
        ++failures;
        EXPECT_TRUE(StartsWith(graph.status().message(), std::string(file) + ":")) << graph.status().message();
      }
    }
    EXPECT_GE(failures, 8) << file;
  }
}

TEST(PipeDreamImportTest, TruncationInsideTheLayerLinesFails) {
  const std::string text = ReadFile(DataDir() + "/alexnet.txt");
  const size_t second_line = text.find('\n') + 1;
  const std::string error = ErrorOf(text.substr(0, second_line + 40));
  EXPECT_TRUE(Contains(error, "bad.txt:2:")) << error;
}

TEST(PipeDreamImportTest, RandomBytesFailWithoutCrashing) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bytes(static_cast<size_t>(1 + rng() % 2000), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
    const std::string error = ErrorOf(bytes);
    EXPECT_TRUE(StartsWith(error, "bad.txt:")) << error;
  }
}

// Random byte edits of a real profile: each result is a verified graph or an error
// that names the file and a line.
TEST(PipeDreamImportTest, CorruptedRealFileNeverCrashes) {
  const std::string text = ReadFile(DataDir() + "/gnmt.txt");
  std::mt19937 rng(99);
  const std::string alphabet = "node0123456789-- =,;[]()\n\t.x";
  int failures = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string corrupted = text;
    for (int edit = 0; edit < 3; ++edit) {
      corrupted[rng() % corrupted.size()] = alphabet[rng() % alphabet.size()];
    }
    StatusOr<Graph> graph = ParsePipeDream(corrupted, "gnmt.txt");
    if (graph.ok()) {
      EXPECT_TRUE(VerifyGraph(*graph).ok());
    } else {
      ++failures;
      EXPECT_TRUE(StartsWith(graph.status().message(), "gnmt.txt:")) << graph.status().message();
    }
  }
  EXPECT_GT(failures, 0);
}

}  // namespace
}  // namespace graphopt
