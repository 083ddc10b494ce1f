#include "sim/fusion_rules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "core/rng.h"
#include "sim/plan_legalizer.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

// An op of `kind` with one output of `elements` float32 elements.
OpId Op1(PaperGraph& g, const std::string& name, OpKind kind, const std::vector<TensorId>& inputs, int64_t elements) {
  return g.Add(name, kind, inputs, {elements * 4}, 0.001, 0, elements * 4);
}

// Flags `ops` (every other op unflagged).
Plan Fused(const Graph& graph, const std::vector<OpId>& ops) {
  Plan plan = DefaultPlan(graph);
  for (OpId o : ops) plan.fuse_with_producer[static_cast<size_t>(o)] = 1;
  return plan;
}

// The rule the first break of `ops` fused breaks, or kOk.
FusionRule FirstBreak(const Graph& graph, const std::vector<OpId>& ops) {
  const std::vector<FusionRules::Break> breaks = FusionRules(graph).FindBreaks(Fused(graph, ops).fuse_with_producer);
  return breaks.empty() ? FusionRule::kOk : breaks.front().rule;
}

// input (1000 elements) -> matmul (1000) as the kernels' usual start.
struct Start {
  PaperGraph g;
  TensorId in, mm;
  Start() {
    in = g.Input("input", 4000);
    mm = g.Compute("mm", {in}, 1, 4000);
  }
};

TEST(FusionRulesTest, ElementwiseChainOfOneSpaceIsOneKernel) {
  Start s;
  const OpId relu = Op1(s.g, "relu", OpKind::kRelu, {s.mm}, 1000);
  const OpId add = Op1(s.g, "add", OpKind::kAdd, {s.g.Out(relu), s.in}, 1000);
  const OpId tanh = Op1(s.g, "tanh", OpKind::kTanh, {s.g.Out(add)}, 1000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {add, tanh}), FusionRule::kOk);
}

TEST(FusionRulesTest, ContractionTakesAnElementwiseEpilogue) {
  Start s;
  const OpId bias = Op1(s.g, "bias", OpKind::kAdd, {s.mm, s.in}, 1000);
  const OpId relu = Op1(s.g, "relu", OpKind::kRelu, {s.g.Out(bias)}, 1000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {bias, relu}), FusionRule::kOk);
}

TEST(FusionRulesTest, ContractionRefusesAReductionInItsKernel) {
  Start s;
  const OpId bn = Op1(s.g, "bn", OpKind::kBatchNorm, {s.mm}, 1000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {bn}), FusionRule::kContractionEpilogue);
}

TEST(FusionRulesTest, ContractionRefusesADataMovementInItsKernel) {
  Start s;
  const OpId concat = Op1(s.g, "concat", OpKind::kConcat, {s.mm, s.in}, 2000);
  const OpId transpose = Op1(s.g, "transpose", OpKind::kTranspose, {s.mm}, 1000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {concat}), FusionRule::kContractionEpilogue);
  EXPECT_EQ(FirstBreak(s.g.graph(), {transpose}), FusionRule::kContractionEpilogue);
}

TEST(FusionRulesTest, ContractionRefusesAnEpilogueOfAnotherSize) {
  Start s;
  const OpId wide = Op1(s.g, "broadcast_add", OpKind::kAdd, {s.mm, s.g.Input("wide", 8000)}, 2000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {wide}), FusionRule::kContractionEpilogue);
}

TEST(FusionRulesTest, ReductionFusesItsProducersAndAnEpilogueOverItsOutput) {
  Start s;
  const OpId exp = Op1(s.g, "exp", OpKind::kExp, {s.in}, 1000);
  const OpId sum = Op1(s.g, "sum", OpKind::kReduceSum, {s.g.Out(exp)}, 10);
  const OpId div = Op1(s.g, "div", OpKind::kDiv, {s.g.Out(sum)}, 10);
  EXPECT_EQ(FirstBreak(s.g.graph(), {sum, div}), FusionRule::kOk);
}

TEST(FusionRulesTest, KernelHoldsOneReduction) {
  Start s;
  const OpId exp = Op1(s.g, "exp", OpKind::kExp, {s.in}, 1000);
  const OpId sum = Op1(s.g, "sum", OpKind::kReduceSum, {s.g.Out(exp)}, 10);
  const OpId max = Op1(s.g, "max", OpKind::kReduceMax, {s.g.Out(exp)}, 10);
  EXPECT_EQ(FirstBreak(s.g.graph(), {sum, max}), FusionRule::kOneReduction);
  EXPECT_EQ(FirstBreak(s.g.graph(), {sum}), FusionRule::kOk);
  EXPECT_EQ(FirstBreak(s.g.graph(), {max}), FusionRule::kOk);
}

TEST(FusionRulesTest, PoolsAndNormalizationsAreReductions) {
  Start s;
  const OpId relu = Op1(s.g, "relu", OpKind::kRelu, {s.in}, 1000);
  const OpId bn = Op1(s.g, "bn", OpKind::kBatchNorm, {s.g.Out(relu)}, 1000);
  const OpId pool = Op1(s.g, "pool", OpKind::kMaxPool, {s.g.Out(bn)}, 250);
  EXPECT_EQ(FirstBreak(s.g.graph(), {bn}), FusionRule::kOk);
  EXPECT_EQ(FirstBreak(s.g.graph(), {bn, pool}), FusionRule::kOneReduction);
}

TEST(FusionRulesTest, LoopOpsKeepOneIterationSpace) {
  Start s;
  const OpId relu = Op1(s.g, "relu", OpKind::kRelu, {s.in}, 1000);
  const OpId concat = Op1(s.g, "concat", OpKind::kConcat, {s.g.Out(relu), s.in}, 2000);
  const OpId slice = Op1(s.g, "slice", OpKind::kSlice, {s.g.Out(relu)}, 500);
  const OpId expand = Op1(s.g, "expand", OpKind::kExpand, {s.g.Out(relu)}, 4000);
  const OpId transpose = Op1(s.g, "transpose", OpKind::kTranspose, {s.g.Out(relu)}, 1000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {concat}), FusionRule::kIterationSpace);
  EXPECT_EQ(FirstBreak(s.g.graph(), {slice}), FusionRule::kIterationSpace);
  EXPECT_EQ(FirstBreak(s.g.graph(), {expand}), FusionRule::kIterationSpace);
  EXPECT_EQ(FirstBreak(s.g.graph(), {transpose}), FusionRule::kOk);
}

TEST(FusionRulesTest, ElementwiseAfterAReductionIteratesOverItsOutput) {
  Start s;
  const OpId sum = Op1(s.g, "sum", OpKind::kReduceSum, {s.in}, 10);
  const OpId wide = Op1(s.g, "wide", OpKind::kAdd, {s.g.Out(sum), s.in}, 1000);  // broadcasts sum over 1000
  EXPECT_EQ(FirstBreak(s.g.graph(), {wide}), FusionRule::kIterationSpace);
}

TEST(FusionRulesTest, UpdateFusesOnlyWithSameSizeElementwiseOps) {
  Start s;
  const TensorId w = s.g.Variable("w", 4000);
  const OpId grad = Op1(s.g, "grad", OpKind::kAddN, {s.mm, s.in}, 1000);
  const OpId scaled = Op1(s.g, "scaled", OpKind::kMul, {s.g.Out(grad)}, 1000);
  const OpId update = s.g.Add("update", OpKind::kApplyGradient, {w, s.g.Out(scaled)}, {}, 0.001, 8000, 4000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {scaled, update}), FusionRule::kOk);

  const OpId sum = Op1(s.g, "sum", OpKind::kReduceSum, {s.in}, 1000);
  const OpId update2 = s.g.Add("update2", OpKind::kApplyGradient, {w, s.g.Out(sum)}, {}, 0.001, 8000, 4000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {update2}), FusionRule::kUpdate);  // rooted at a reduction

  const OpId t = Op1(s.g, "t", OpKind::kTranspose, {s.in}, 1000);
  const OpId m = Op1(s.g, "m", OpKind::kMul, {s.g.Out(t)}, 1000);
  const OpId update3 = s.g.Add("update3", OpKind::kApplyGradient, {w, s.g.Out(m)}, {}, 0.001, 8000, 4000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {m, update3}), FusionRule::kUpdate);  // a data movement in the kernel
  EXPECT_EQ(FirstBreak(s.g.graph(), {update3}), FusionRule::kOk);
}

TEST(FusionRulesTest, OpaqueKernelTakesNoOtherOp) {
  Start s;
  const OpId generic = Op1(s.g, "generic", OpKind::kGeneric, {s.in}, 1000);
  const OpId relu = Op1(s.g, "relu", OpKind::kRelu, {s.g.Out(generic)}, 1000);
  const OpId scatter = Op1(s.g, "scatter", OpKind::kScatterAdd, {s.g.Out(relu)}, 1000);
  EXPECT_EQ(FirstBreak(s.g.graph(), {relu}), FusionRule::kOpaqueRoot);
  EXPECT_FALSE(CanFuseKind(OpKind::kScatterAdd));
  EXPECT_FALSE(CanFuseIntoProducer(s.g.graph(), scatter));
}

// The kernel of the DenseNet plan that no compiler emits: a convolution with concats,
// a training-mode batch norm and a weight update after it.
struct DenseNetKernel {
  PaperGraph g;
  std::vector<OpId> flagged;
  OpId conv, concat, bn, relu, update;
  DenseNetKernel() {
    const TensorId in = g.Input("input", 4000);
    const TensorId w = g.Variable("conv.weight", 4000);
    conv = Op1(g, "conv", OpKind::kConv, {in, w}, 1000);
    concat = Op1(g, "concat", OpKind::kConcat, {g.Out(conv), in}, 2000);
    bn = Op1(g, "bn", OpKind::kBatchNorm, {g.Out(concat)}, 2000);
    relu = Op1(g, "relu", OpKind::kRelu, {g.Out(bn)}, 2000);
    update = g.Add("update", OpKind::kApplyGradient, {w, g.Out(relu)}, {}, 0.001, 8000, 4000);
    flagged = {concat, bn, relu, update};
  }
};

TEST(FusionRulesTest, DenseNetStyleKernelIsRefusedNamingTheRule) {
  DenseNetKernel k;
  const Graph& graph = k.g.graph();
  const Plan plan = Fused(graph, k.flagged);
  const Status status = ValidatePlan(graph, PaperCluster(1), plan);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("contraction-epilogue"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("'concat'"), std::string::npos) << status.message();
  const Status rules = CheckFusionRules(graph, plan);
  ASSERT_FALSE(rules.ok());
  EXPECT_NE(rules.message().find("contraction-epilogue"), std::string::npos) << rules.message();
}

TEST(FusionRulesTest, SimulatorRefusesAKernelNoCompilerEmits) {
  DenseNetKernel k;
  auto sim = Simulator::Create(k.g.graph(), PaperCluster(1), PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  const auto result = sim->Simulate(Fused(k.g.graph(), k.flagged));
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("contraction-epilogue"), std::string::npos);
}

TEST(FusionRulesTest, WritePlanJsonRefusesAKernelNoCompilerEmits) {
  DenseNetKernel k;
  const std::string path = (std::filesystem::temp_directory_path() / "fusion_rules_test_plan.json").string();
  std::filesystem::remove(path);
  const Status status = WritePlanJson(k.g.graph(), Fused(k.g.graph(), k.flagged), path);
  EXPECT_FALSE(status.ok());
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(FusionRulesTest, LegalizerKeepsTheFirstLegalKernels) {
  DenseNetKernel k;
  Plan plan = Fused(k.g.graph(), k.flagged);
  EXPECT_EQ(DropIllegalFusions(k.g.graph(), &plan), 2);
  // The concat starts a kernel of its own (a convolution takes only an elementwise
  // epilogue); the norm joins it (a reduction over the concat's whole output), the
  // relu joins as the norm's epilogue; the update would join a kernel with a
  // reduction and a data movement.
  EXPECT_EQ(plan.fuse_with_producer[static_cast<size_t>(k.concat)], 0);
  EXPECT_EQ(plan.fuse_with_producer[static_cast<size_t>(k.bn)], 1);
  EXPECT_EQ(plan.fuse_with_producer[static_cast<size_t>(k.relu)], 1);
  EXPECT_EQ(plan.fuse_with_producer[static_cast<size_t>(k.update)], 0);
  EXPECT_TRUE(ValidatePlan(k.g.graph(), PaperCluster(1), plan).ok());
}

TEST(FusionRulesTest, ExplainNamesTheRuleAndTheOps) {
  DenseNetKernel k;
  const FusionRules rules(k.g.graph());
  const FusionDecision d = rules.Explain(rules.Start(k.conv), k.conv, k.concat);
  EXPECT_FALSE(d);
  EXPECT_EQ(d.rule, FusionRule::kContractionEpilogue);
  EXPECT_EQ(d.reason.rfind("contraction-epilogue: ", 0), 0u) << d.reason;
  EXPECT_NE(d.reason.find("'conv'"), std::string::npos) << d.reason;
}

// Random graphs, random flags: the legalizer's plans break no rule, and a legal plan
// passes it unchanged.
TEST(FusionRulesTest, LegalizedPlansBreakNoRule) {
  for (uint64_t seed = 0; seed < 6; ++seed) {
    RandomGraphOptions o;
    o.num_ops = 300;
    o.width = 6;
    o.max_inputs = 3;
    const Graph graph = RandomLayeredGraph(o, seed);
    const FusionRules rules(graph);
    Rng rng(seed);
    Plan plan = DefaultPlan(graph);
    for (auto& f : plan.fuse_with_producer) f = rng.Bernoulli(0.8) ? 1 : 0;
    DropIllegalFusions(graph, &plan);
    EXPECT_TRUE(rules.FindBreaks(plan.fuse_with_producer).empty()) << "seed " << seed;
    Plan again = plan;
    EXPECT_EQ(DropIllegalFusions(graph, &again), 0) << "seed " << seed;
  }
}

}  // namespace
}  // namespace graphopt
