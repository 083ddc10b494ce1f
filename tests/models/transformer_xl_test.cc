#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "graph/json_io.h"
#include "graph/training.h"
#include "graph/verifier.h"
#include "models/registry.h"

namespace graphopt {
namespace {

// A config small enough to count by hand: L layers, H heads, G segments.
constexpr int64_t kL = 2, kB = 2, kS = 4, kD = 8, kH = 2, kI = 16, kV = 11, kG = 3;
std::string TinySpec(int64_t memory) {
  return "transformer_xl:layers=" + std::to_string(kL) + ",batch=" + std::to_string(kB) +
         ",segment=" + std::to_string(kS) + ",memory=" + std::to_string(memory) + ",model=" + std::to_string(kD) +
         ",heads=" + std::to_string(kH) + ",inner=" + std::to_string(kI) + ",vocab=" + std::to_string(kV) +
         ",segments=" + std::to_string(kG);
}

int CountOps(const Graph& g, OpKind kind) {
  int n = 0;
  for (const Op& op : g.ops()) n += op.kind == kind;
  return n;
}

bool IsStopGradient(const Op& op) { return op.kind == OpKind::kStopGradient; }

TEST(TransformerXlTest, EightLayerTrainingGraphHasFortyToHundredThousandOps) {
  auto g = BuildBuiltinModel("transformer_xl:layers=8");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_GE(g->num_ops(), 40000);
  EXPECT_LE(g->num_ops(), 100000);
}

TEST(TransformerXlTest, TrainingGraphGrowsWithLayersAndVerifies) {
  int previous = 0;
  for (const char* spec : {"transformer_xl:layers=2", "transformer_xl:layers=4", "transformer_xl:layers=8"}) {
    auto g = BuildBuiltinModel(spec);
    ASSERT_TRUE(g.ok()) << spec << ": " << g.status().message();
    EXPECT_TRUE(VerifyGraph(*g).ok()) << spec;
    EXPECT_GT(g->num_ops(), previous) << spec;
    previous = g->num_ops();
  }
}

TEST(TransformerXlTest, ForwardOpCountMatchesFormula) {
  // Step: 6 embedding sources + softmax bias + (AddN, constant, Mul) for the mean loss.
  // Per layer: 13 variables + the memory input. Per segment: tokens, Gather, Mul,
  // 2 Dropouts; Dropout, Reshape, MatMul, Add, labels, loss. Per layer and segment:
  // 32 ops + 12 per head. Per layer and later segment: the memory's stop-gradient
  // (plus a Slice when memory != segment).
  for (int64_t memory : {kS, kS - 1, kS + 3}) {
    auto g = BuildBuiltinForward(TinySpec(memory));
    ASSERT_TRUE(g.ok()) << g.status().message();
    const int64_t carry = memory == kS ? 1 : 2;
    const int64_t expected = 7 + 3 + 14 * kL + 11 * kG + kL * kG * (32 + 12 * kH) + kL * (kG - 1) * carry;
    EXPECT_EQ(g->num_ops(), expected) << "memory=" << memory;
  }
}

TEST(TransformerXlTest, ParameterBytesMatchHandComputation) {
  auto g = BuildBuiltinForward(TinySpec(kS));
  ASSERT_TRUE(g.ok()) << g.status().message();
  // Tied embedding/softmax table + softmax bias; per layer: QKV, position and output
  // projections, two relative biases, two layer norms, feed-forward kernels and biases.
  const int64_t per_layer = kD * 3 * kD + kD * kD + 2 * kD + kD * kD + 2 * kD + kD * kI + kI + kI * kD + kD + 2 * kD;
  const int64_t elements = kV * kD + kV + kL * per_layer;
  EXPECT_EQ(g->TotalParamBytes(), 4 * elements);
  EXPECT_EQ(CountOps(*g, OpKind::kVariable), 2 + 13 * kL);
}

TEST(TransformerXlTest, LayerTagsNameEmbeddingLayersAndSoftmax) {
  auto g = BuildBuiltinModel(TinySpec(kS));
  ASSERT_TRUE(g.ok()) << g.status().message();
  const std::vector<std::string> expected = {"embedding", "layer0", "layer1", "softmax"};
  EXPECT_EQ(g->layer_names(), expected);
  for (const Op& op : g->ops()) {
    ASSERT_GE(op.layer, 0) << op.name;
    ASSERT_LT(op.layer, static_cast<int32_t>(expected.size())) << op.name;
    if (op.phase != Phase::kForward) continue;
    const std::string& layer = expected[static_cast<size_t>(op.layer)];
    if (op.name.rfind("seg", 0) == 0) {
      EXPECT_NE(op.name.find("/" + layer + "/"), std::string::npos) << op.name << " tagged " << layer;
    } else {
      EXPECT_EQ(op.name.rfind(layer + "/", 0), 0u) << op.name << " tagged " << layer;
    }
  }
}

TEST(TransformerXlTest, BuildIsDeterministic) {
  auto a = BuildBuiltinModel(TinySpec(kS));
  auto b = BuildBuiltinModel(TinySpec(kS));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(GraphToJson(*a), GraphToJson(*b));
}

TEST(TransformerXlTest, RejectsBadParametersNamingThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"transformer_xl:layers=0", "'layers'"},   {"transformer_xl:batch=-3", "'batch'"},
      {"transformer_xl:heads=7", "'heads'"},     {"transformer_xl:segments=0", "'segments'"},
      {"transformer_xl:memory=abc", "'memory'"}, {"transformer_xl:depth=3", "'depth'"},
  };
  for (const auto& [spec, name] : cases) {
    auto g = BuildBuiltinForward(spec);
    ASSERT_FALSE(g.ok()) << spec;
    EXPECT_NE(g.status().message().find(name), std::string::npos) << spec << ": " << g.status().message();
  }
}

TEST(TransformerXlTest, LossIsTheOnlySink) {
  auto g = BuildBuiltinForward(TinySpec(kS + 3));
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::vector<std::string> sinks;
  for (const Op& op : g->ops()) {
    bool consumed = false;
    for (TensorId t : op.outputs) consumed |= !g->tensor(t).consumers.empty();
    if (!consumed) sinks.push_back(op.name);
  }
  ASSERT_EQ(sinks.size(), 1u);
  EXPECT_EQ(sinks[0], "softmax/mul");
}

TEST(TransformerXlTest, MemoryIsCarriedBetweenSegmentsWithoutGradient) {
  auto fwd = BuildBuiltinForward(TinySpec(kS));
  ASSERT_TRUE(fwd.ok()) << fwd.status().message();
  std::vector<OpId> stops;
  for (OpId o = 0; o < fwd->num_ops(); ++o) {
    if (IsStopGradient(fwd->op(o))) stops.push_back(o);
  }
  ASSERT_EQ(static_cast<int64_t>(stops.size()), kL * (kG - 1));
  for (OpId o : stops) {
    // Carries a layer input of one segment into the next segment's key/value concat.
    const Op& stop = fwd->op(o);
    const Tensor& out = fwd->tensor(stop.outputs[0]);
    EXPECT_EQ(out.shape, (Shape{kB, kS, kD})) << stop.name;
    ASSERT_EQ(out.consumers.size(), 1u) << stop.name;
    EXPECT_EQ(fwd->op(out.consumers[0]).kind, OpKind::kConcat) << stop.name;
    EXPECT_EQ(fwd->op(out.consumers[0]).layer, stop.layer) << stop.name;
  }
  auto train = BuildTrainingGraph(*fwd);
  ASSERT_TRUE(train.ok()) << train.status().message();
  for (const Op& op : train->ops()) {
    if (op.phase != Phase::kBackward) continue;
    ASSERT_NE(op.forward_op, kNoId) << op.name;
    EXPECT_FALSE(IsStopGradient(fwd->op(op.forward_op))) << op.name;
    // The first segment's memory is an input: no gradient reaches it either.
    EXPECT_NE(fwd->op(op.forward_op).kind, OpKind::kInput) << op.name;
  }
}

TEST(TransformerXlTest, AttentionHasPerHeadScoresWithRelativeShift) {
  auto g = BuildBuiltinForward(TinySpec(kS));
  ASSERT_TRUE(g.ok()) << g.status().message();
  // Per head and layer and segment: one Softmax and one relative-shift Pad.
  EXPECT_EQ(CountOps(*g, OpKind::kSoftmax), kL * kG * kH);
  EXPECT_EQ(CountOps(*g, OpKind::kPad), kL * kG * kH);
  EXPECT_EQ(CountOps(*g, OpKind::kLayerNorm), 2 * kL * kG);
  EXPECT_EQ(CountOps(*g, OpKind::kSoftmaxCrossEntropy), kG);
}

}  // namespace
}  // namespace graphopt
