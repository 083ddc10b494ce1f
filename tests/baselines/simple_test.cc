// Single device, TensorFlow default, and dispatch by name.
#include <gtest/gtest.h>

#include "baselines/baseline.h"
#include "graph/builder.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

// relu(transpose(matmul(x, w))) -> reduce_sum: one elementwise op and one reduction
// that could fuse into the transpose's kernel (a matmul takes neither a transpose nor
// a reduction).
Graph SmallGraph() {
  GraphBuilder b("small");
  const TensorId m = b.MatMul(b.Input("x", {64, 64}), b.Variable("w", {64, 64}));
  const TensorId r = b.Relu(b.Transpose(m, {1, 0}));
  b.Reduce(OpKind::kReduceSum, r, {1}, false);
  return b.Finish();
}

Graph RandomGraph(uint64_t seed, int num_ops = 600) {
  RandomGraphOptions options;
  options.num_ops = num_ops;
  return RandomLayeredGraph(options, seed);
}

// A CPU listed before the GPU: the first accelerator is device 1.
Cluster CpuFirst() {
  const Cluster preset = *ClusterPreset("1xV100");
  Cluster c("cpu-first", {preset.device(1), preset.device(0)});
  c.SetAllLinks(Link{15.75e9, 10});
  return c;
}

TEST(SingleTest, EverythingOnDeviceZeroInReadyOrder) {
  const Graph g = RandomGraph(1);
  const Plan plan = SingleDevicePlan(g, *ClusterPreset("4xV100"));
  EXPECT_EQ(plan.device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 0));
  EXPECT_EQ(plan.priority, std::vector<double>(static_cast<size_t>(g.num_ops()), 0.0));
  EXPECT_EQ(plan.fuse_with_producer, std::vector<uint8_t>(static_cast<size_t>(g.num_ops()), 0));
}

TEST(SingleTest, UsesTheFirstAccelerator) {
  const Graph g = SmallGraph();
  const Plan plan = SingleDevicePlan(g, CpuFirst());
  EXPECT_EQ(plan.device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 1));
}

TEST(TfDefaultTest, EverythingOnDeviceZeroInReadyOrder) {
  const Graph g = RandomGraph(2);
  const Plan plan = TfDefaultPlan(g, *ClusterPreset("4xV100"));
  EXPECT_EQ(plan.device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 0));
  EXPECT_EQ(plan.priority, std::vector<double>(static_cast<size_t>(g.num_ops()), 0.0));
}

TEST(TfDefaultTest, UsesTheFirstAccelerator) {
  const Graph g = SmallGraph();
  const Plan plan = TfDefaultPlan(g, CpuFirst());
  EXPECT_EQ(plan.device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 1));
}

TEST(TfDefaultTest, FusesOnlyElementwiseKinds) {
  const Graph g = SmallGraph();
  const Plan plan = TfDefaultPlan(g, *ClusterPreset("1xV100"));
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const bool elementwise = CategoryOf(g.op(o).kind) == OpCategory::kElementwise;
    EXPECT_EQ(plan.fuse_with_producer[static_cast<size_t>(o)], elementwise ? 1 : 0) << g.op(o).name;
  }
  // Full greedy fusion would also take the reduction.
  Plan greedy = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &greedy), 2);
}

TEST(TfDefaultTest, RandomGraphPlanIsValidAndFusesOnlyElementwise) {
  const Cluster cluster = *ClusterPreset("2xP100");
  const Graph g = RandomGraph(3, 2000);
  const Plan plan = TfDefaultPlan(g, cluster);
  EXPECT_TRUE(ValidatePlan(g, cluster, plan).ok()) << ValidatePlan(g, cluster, plan).message();
  int fused = 0;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (!plan.fuse_with_producer[static_cast<size_t>(o)]) continue;
    ++fused;
    EXPECT_EQ(CategoryOf(g.op(o).kind), OpCategory::kElementwise) << g.op(o).name;
  }
  EXPECT_GT(fused, 0);
}

TEST(RunBaselineTest, NamesAreTheSixMethods) {
  EXPECT_EQ(BaselineNames(), (std::vector<std::string>{"single", "tf-default", "expert", "metis", "scotch", "heft"}));
}

TEST(RunBaselineTest, RejectsUnknownNamesListingTheKnownOnes) {
  const Graph g = SmallGraph();
  StatusOr<Plan> plan = RunBaseline("no-such", g, *ClusterPreset("2xP100"), CostModel());
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("\"no-such\""), std::string::npos) << plan.status().message();
  for (const std::string& name : BaselineNames()) {
    EXPECT_NE(plan.status().message().find(name), std::string::npos) << plan.status().message();
  }
}

TEST(RunBaselineTest, SingleTfDefaultAndHeftGiveValidPlans) {
  const Cluster cluster = *ClusterPreset("4xV100");
  const Graph g = RandomGraph(4, 1500);
  for (const char* method : {"single", "tf-default", "heft"}) {
    for (bool fusion : {false, true}) {
      BaselineOptions options;
      options.fusion = fusion;
      StatusOr<Plan> plan = RunBaseline(method, g, cluster, CostModel(), options);
      ASSERT_TRUE(plan.ok()) << method << ": " << plan.status().message();
      EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok()) << method;
    }
  }
}

TEST(RunBaselineTest, HeftMatchesHeftPlan) {
  const Cluster cluster = *ClusterPreset("8xV100-nvlink");
  const Graph g = RandomGraph(5);
  StatusOr<Plan> run = RunBaseline("heft", g, cluster, CostModel());
  StatusOr<Plan> direct = HeftPlan(g, cluster, CostModel());
  ASSERT_TRUE(run.ok() && direct.ok());
  EXPECT_EQ(run->device, direct->device);
  EXPECT_EQ(run->priority, direct->priority);
}

TEST(RunBaselineTest, FusionOptionAppliesGreedyFusion) {
  const Cluster cluster = *ClusterPreset("1xV100");
  const Graph g = SmallGraph();
  BaselineOptions options;
  options.fusion = true;
  StatusOr<Plan> plan = RunBaseline("single", g, cluster, CostModel(), options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  Plan expected = SingleDevicePlan(g, cluster);
  ApplyGreedyFusion(g, &expected);
  EXPECT_EQ(plan->fuse_with_producer, expected.fuse_with_producer);
}

TEST(RunBaselineTest, TfDefaultKeepsItsOwnFusionUnderTheFusionOption) {
  const Cluster cluster = *ClusterPreset("1xV100");
  const Graph g = SmallGraph();
  BaselineOptions options;
  options.fusion = true;
  StatusOr<Plan> plan = RunBaseline("tf-default", g, cluster, CostModel(), options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->fuse_with_producer, TfDefaultPlan(g, cluster).fuse_with_producer);
}

TEST(RunBaselineTest, DispatchesEveryKnownName) {
  const Cluster cluster = *ClusterPreset("2xP100");
  const Graph g = RandomGraph(6, 300);
  for (const std::string& name : BaselineNames()) {
    StatusOr<Plan> plan = RunBaseline(name, g, cluster, CostModel());
    if (!plan.ok()) {
      EXPECT_EQ(plan.status().message().find("unknown baseline"), std::string::npos) << plan.status().message();
    }
  }
}

}  // namespace
}  // namespace graphopt
