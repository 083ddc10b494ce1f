#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/json_io.h"
#include "graph/verifier.h"
#include "models/registry.h"

namespace graphopt {
namespace {

// A config small enough to count by hand: N residual layers in 3 stacks.
constexpr int64_t kStacks = 3, kN = 12, kB = 2, kLen = 64, kC = 4, kSkip = 6, kQ = 5, kK = 2;
std::string TinySpec() {
  return "wavenet:stacks=" + std::to_string(kStacks) + ",layers=" + std::to_string(kN) +
         ",batch=" + std::to_string(kB) + ",length=" + std::to_string(kLen) + ",channels=" + std::to_string(kC) +
         ",skip=" + std::to_string(kSkip) + ",quantization=" + std::to_string(kQ) + ",kernel=" + std::to_string(kK);
}

// The layer tag name of an op.
const std::string& LayerOf(const Graph& g, const Op& op) { return g.layer_names()[static_cast<size_t>(op.layer)]; }

TEST(WaveNetTest, DefaultTrainingGraphVerifies) {
  auto g = BuildBuiltinModel("wavenet");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_TRUE(VerifyGraph(*g).ok());
  EXPECT_EQ(g->layer_names().size(), 1u + 18u + 1u);
}

TEST(WaveNetTest, FourStackThirtySixLayerBuilds) {
  auto g = BuildBuiltinModel("wavenet:stacks=4,layers=36");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_TRUE(VerifyGraph(*g).ok());
  EXPECT_EQ(g->layer_names().size(), 1u + 36u + 1u);
  EXPECT_EQ(g->layer_names()[36], "stack3/layer8");
}

TEST(WaveNetTest, DilationsDoubleWithinAStackAndResetPerStack) {
  auto g = BuildBuiltinForward(TinySpec());
  ASSERT_TRUE(g.ok()) << g.status().message();
  const int64_t per_stack = kN / kStacks;
  int dilated = 0;
  for (const Op& op : g->ops()) {
    if (op.kind != OpKind::kConv) continue;
    const std::string& layer = LayerOf(*g, op);
    const std::vector<int64_t> kernel = GetIntsAttr(op.attrs, "kernel");
    const std::vector<int64_t> dilations = GetIntsAttr(op.attrs, "dilations");
    ASSERT_EQ(dilations.size(), 1u) << op.name;
    if (kernel != std::vector<int64_t>{kK} || layer == "input") {
      EXPECT_EQ(dilations[0], 1) << op.name;
      continue;
    }
    // Filter and gate convolutions of "stack<s>/layer<i>": dilation 2^i.
    const size_t slash = layer.find("/layer");
    ASSERT_NE(slash, std::string::npos) << op.name;
    const int64_t i = std::stoll(layer.substr(slash + 6));
    ASSERT_LT(i, per_stack);
    EXPECT_EQ(dilations[0], int64_t{1} << i) << op.name;
    // Causal: the input is padded on the left by (kernel-1) x dilation, the length kept.
    const Op& pad = g->op(g->tensor(op.inputs[0]).producer);
    ASSERT_EQ(pad.kind, OpKind::kPad) << op.name;
    EXPECT_EQ(GetIntAttr(pad.attrs, "before", -1), (kK - 1) * dilations[0]) << op.name;
    EXPECT_EQ(GetIntAttr(pad.attrs, "after", -1), 0) << op.name;
    EXPECT_EQ(g->tensor(op.outputs[0]).shape, (Shape{kB, kC, kLen})) << op.name;
    ++dilated;
  }
  EXPECT_EQ(dilated, 2 * kN);  // a filter and a gate convolution per layer
}

TEST(WaveNetTest, ForwardOpCountMatchesFormula) {
  auto g = BuildBuiltinForward(TinySpec());
  ASSERT_TRUE(g.ok()) << g.status().message();
  // Input: 2 inputs + causal conv (2 variables, Pad, Conv, bias Add). Per layer: filter
  // and gate convs (5 each), Tanh, Sigmoid, Mul, skip conv (4); all but the last also
  // a residual conv (4) and Add. Output: AddN, Relu, conv (4), Relu, conv (4),
  // Transpose, Reshape, loss.
  EXPECT_EQ(g->num_ops(), 7 + 22 * (kN - 1) + 17 + 14);
}

TEST(WaveNetTest, ParameterBytesMatchHandComputation) {
  auto g = BuildBuiltinForward(TinySpec());
  ASSERT_TRUE(g.ok()) << g.status().message();
  const int64_t input = kC * kQ * kK + kC;
  const int64_t gated = 2 * (kC * kC * kK + kC);
  const int64_t skip = kSkip * kC + kSkip;
  const int64_t residual = kC * kC + kC;
  const int64_t output = kSkip * kSkip + kSkip + kQ * kSkip + kQ;
  const int64_t elements = input + kN * (gated + skip) + (kN - 1) * residual + output;
  EXPECT_EQ(g->TotalParamBytes(), 4 * elements);
}

TEST(WaveNetTest, LayerTagsNameInputStackLayersAndOutput) {
  auto g = BuildBuiltinModel(TinySpec());
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::vector<std::string> expected = {"input"};
  for (int s = 0; s < kStacks; ++s) {
    for (int i = 0; i < kN / kStacks; ++i) {
      expected.push_back("stack" + std::to_string(s) + "/layer" + std::to_string(i));
    }
  }
  expected.push_back("output");
  EXPECT_EQ(g->layer_names(), expected);
  for (const Op& op : g->ops()) {
    ASSERT_GE(op.layer, 0) << op.name;
    ASSERT_LT(op.layer, static_cast<int32_t>(expected.size())) << op.name;
    if (op.phase == Phase::kForward) {
      EXPECT_EQ(op.name.rfind(LayerOf(*g, op) + "/", 0), 0u) << op.name << " tagged " << LayerOf(*g, op);
    }
  }
}

TEST(WaveNetTest, LossIsTheOnlySink) {
  auto g = BuildBuiltinForward(TinySpec());
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::vector<OpId> sinks;
  for (OpId o = 0; o < g->num_ops(); ++o) {
    bool consumed = false;
    for (TensorId t : g->op(o).outputs) consumed |= !g->tensor(t).consumers.empty();
    if (!consumed) sinks.push_back(o);
  }
  ASSERT_EQ(sinks.size(), 1u);
  EXPECT_EQ(g->op(sinks[0]).kind, OpKind::kSoftmaxCrossEntropy);
}

TEST(WaveNetTest, BuildIsDeterministic) {
  auto a = BuildBuiltinModel(TinySpec());
  auto b = BuildBuiltinModel(TinySpec());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(GraphToJson(*a), GraphToJson(*b));
}

TEST(WaveNetTest, RejectsBadParametersNamingThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"wavenet:layers=0", "'layers'"},           {"wavenet:batch=-3", "'batch'"},
      {"wavenet:stacks=2,layers=17", "'layers'"}, {"wavenet:stacks=0", "'stacks'"},
      {"wavenet:channels=x", "'channels'"},       {"wavenet:stacks=1,layers=50", "'layers'"},
  };
  for (const auto& [spec, name] : cases) {
    auto g = BuildBuiltinForward(spec);
    ASSERT_FALSE(g.ok()) << spec;
    EXPECT_NE(g.status().message().find(name), std::string::npos) << spec << ": " << g.status().message();
  }
}

}  // namespace
}  // namespace graphopt
