// Greedy fusion: which ops fuse on hand graphs, and that the result is always legal.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "baselines/baseline.h"
#include "baselines/fusion.h"
#include "graph/builder.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

OpId Producer(const Graph& g, TensorId t) { return g.tensor(t).producer; }
uint8_t Flag(const Plan& plan, OpId o) { return plan.fuse_with_producer[static_cast<size_t>(o)]; }

TEST(FusionTest, ElementwiseChainFusesIntoOneGroup) {
  GraphBuilder b("chain");
  const TensorId m = b.MatMul(b.Input("x", {64, 64}), b.Variable("w", {64, 64}));
  const TensorId r = b.Relu(m);
  const TensorId t = b.Tanh(r);
  const TensorId s = b.Sigmoid(t);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 3);
  EXPECT_EQ(Flag(plan, Producer(g, m)), 0);
  EXPECT_EQ(Flag(plan, Producer(g, r)), 1);
  EXPECT_EQ(Flag(plan, Producer(g, t)), 1);
  EXPECT_EQ(Flag(plan, Producer(g, s)), 1);
}

TEST(FusionTest, OpReadingOnlyASourceHasNoProducerToFuseInto) {
  GraphBuilder b("source");
  const TensorId r = b.Relu(b.Input("x", {64}));
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 0);
  EXPECT_EQ(Flag(plan, Producer(g, r)), 0);
}

TEST(FusionTest, ContractionDoesNotFuse) {
  GraphBuilder b("contraction");
  const TensorId r = b.Relu(b.Input("x", {64, 64}));
  const TensorId m = b.MatMul(r, b.Variable("w", {64, 64}));
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 0);
  EXPECT_EQ(Flag(plan, Producer(g, m)), 0);
}

TEST(FusionTest, OpsOnDifferentDevicesDoNotFuse) {
  GraphBuilder b("devices");
  const TensorId m = b.MatMul(b.Input("x", {64, 64}), b.Variable("w", {64, 64}));
  const TensorId r = b.Relu(m);
  const TensorId t = b.Tanh(r);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  plan.device[static_cast<size_t>(Producer(g, t))] = 1;
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 1);
  EXPECT_EQ(Flag(plan, Producer(g, r)), 1);
  EXPECT_EQ(Flag(plan, Producer(g, t)), 0);
}

TEST(FusionTest, DiamondThatWouldCloseACycleIsRefused) {
  // a = relu(x); m = matmul(a, w); v = a + m. Fusing v into a's group would make
  // the path a -> m -> v leave the group and come back.
  GraphBuilder b("diamond");
  const TensorId a = b.Relu(b.Input("x", {64, 64}));
  const TensorId m = b.MatMul(a, b.Variable("w", {64, 64}));
  const TensorId v = b.Add(a, m);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 0);
  EXPECT_EQ(Flag(plan, Producer(g, v)), 0);
  EXPECT_EQ(DropIllegalFusions(g, &plan), 0);
}

TEST(FusionTest, DiamondThroughTheOtherProducerFuses) {
  // v = m + a: v's fusion producer is m, and a's group cannot be reached from m's.
  GraphBuilder b("diamond");
  const TensorId a = b.Relu(b.Input("x", {64, 64}));
  const TensorId m = b.MatMul(a, b.Variable("w", {64, 64}));
  const TensorId v = b.Add(m, a);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 1);
  EXPECT_EQ(Flag(plan, Producer(g, v)), 1);
  EXPECT_TRUE(ValidatePlan(g, *ClusterPreset("1xV100"), plan).ok());
}

TEST(FusionTest, CycleThroughAnotherFusedGroupIsRefused) {
  // G = {g}, H = {h0, h1 = h0 + g}, y = matmul(h0, w), v = g + y. No op path leads
  // from g to y, but the groups do: G -> H (g feeds h1) and H -> y (h0 feeds y).
  GraphBuilder b("groups");
  const TensorId g = b.Relu(b.Input("x1", {64, 64}));
  const TensorId h0 = b.Relu(b.Input("x2", {64, 64}));
  const TensorId h1 = b.Add(h0, g);
  const TensorId y = b.MatMul(h0, b.Variable("w", {64, 64}));
  const TensorId v = b.Add(g, y);
  const Graph graph = b.Finish();
  Plan plan = DefaultPlan(graph);
  EXPECT_EQ(ApplyGreedyFusion(graph, &plan), 1);
  EXPECT_EQ(Flag(plan, Producer(graph, h1)), 1);
  EXPECT_EQ(Flag(plan, Producer(graph, v)), 0);
  EXPECT_EQ(DropIllegalFusions(graph, &plan), 0);
}

TEST(FusionTest, IndependentProducerOrderedLaterStillFuses) {
  // v = m1 + m2 with m2 after m1: joining m1's group needs m2's group moved before it.
  GraphBuilder b("late");
  const TensorId m1 = b.MatMul(b.Input("x", {64, 64}), b.Variable("w1", {64, 64}));
  const TensorId m2 = b.MatMul(b.Input("h", {64, 64}), b.Variable("w2", {64, 64}));
  const TensorId v = b.Add(m1, m2);
  const TensorId r = b.Relu(v);
  const TensorId z = b.Add(r, m2);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 3);
  EXPECT_EQ(Flag(plan, Producer(g, v)), 1);
  EXPECT_EQ(Flag(plan, Producer(g, r)), 1);
  EXPECT_EQ(Flag(plan, Producer(g, z)), 1);
  EXPECT_EQ(DropIllegalFusions(g, &plan), 0);
}

TEST(FusionTest, ReplacesExistingFlags) {
  GraphBuilder b("replace");
  const TensorId m = b.MatMul(b.Input("x", {64, 64}), b.Variable("w", {64, 64}));
  const TensorId r = b.Relu(m);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  plan.fuse_with_producer.assign(static_cast<size_t>(g.num_ops()), 1);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 1);
  EXPECT_EQ(Flag(plan, Producer(g, m)), 0);
  EXPECT_EQ(Flag(plan, Producer(g, r)), 1);
}

TEST(FusionTest, CountEqualsFlagsSet) {
  RandomGraphOptions options;
  options.num_ops = 1000;
  const Graph g = RandomLayeredGraph(options, 1);
  Plan plan = DefaultPlan(g);
  const int fused = ApplyGreedyFusion(g, &plan);
  int flags = 0;
  for (uint8_t f : plan.fuse_with_producer) flags += f;
  EXPECT_EQ(fused, flags);
  EXPECT_GT(fused, 0);
}

TEST(FusionTest, RandomGraphsNeedNoDropsAfterGreedyFusion) {
  const Cluster cluster = *ClusterPreset("4xV100");
  for (uint64_t seed = 0; seed < 20; ++seed) {
    RandomGraphOptions options;
    options.num_ops = 800;
    options.width = 2 + static_cast<int>(seed % 6);
    options.lookback = 1 + static_cast<int>(seed % 4);
    options.max_inputs = 2 + static_cast<int>(seed % 3);
    const Graph g = RandomLayeredGraph(options, seed);
    Rng rng(seed);
    RandomPlanOptions plan_options;
    plan_options.fuse_probability = 0;
    // Half the seeds on one device (most fusion, most cycle candidates), half spread.
    Plan plan = seed % 2 == 0 ? DefaultPlan(g) : RandomPlan(g, cluster, plan_options, rng);
    ApplyGreedyFusion(g, &plan);
    Plan copy = plan;
    EXPECT_EQ(DropIllegalFusions(g, &copy), 0) << "seed " << seed;
    EXPECT_TRUE(ValidatePlan(g, cluster, plan).ok())
        << "seed " << seed << ": " << ValidatePlan(g, cluster, plan).message();
  }
}

// A scalar kernel s read by three large products y_i = s * x_i: the products stay
// kernels of their own (one kernel would wait for every x_i); a scalar with one
// reader still takes it in.
TEST(FusionTest, ReadersOfASharedScalarStayApart) {
  GraphBuilder b("scalar");
  const TensorId s = b.Mul(b.Input("a", {}), b.Input("b", {}));
  std::vector<OpId> products;
  for (int i = 0; i < 3; ++i) products.push_back(Producer(b.graph(), b.Mul(s, b.Input("x" + std::to_string(i), {1024, 1024}))));
  const TensorId lone = b.Mul(b.Input("c", {}), b.Input("d", {}));
  const OpId relu = Producer(b.graph(), b.Relu(lone));
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 1);
  for (OpId p : products) EXPECT_EQ(Flag(plan, p), 0) << g.op(p).name;
  EXPECT_EQ(Flag(plan, relu), 1);
}

// s_0 = matmul(x, w), s_i = s_{i-1} + x_i for i = 1..80: the group of the matmul reads
// x, w and x_1..x_k and writes s_k (3 + k tensors), so it takes adds 1..61 (64); add
// 62 starts a group of its own (s_61, x_62, s_62), which takes the remaining 18.
TEST(FusionTest, AKernelReadsAndWritesAtMost64Tensors) {
  GraphBuilder b("accumulation");
  TensorId s = b.MatMul(b.Input("x", {64, 64}), b.Variable("w", {64, 64}));
  std::vector<OpId> adds;
  for (int i = 1; i <= 80; ++i) {
    s = b.Add(s, b.Input("x" + std::to_string(i), {64, 64}));
    adds.push_back(Producer(b.graph(), s));
  }
  const Graph g = b.Finish();
  ASSERT_EQ(kMaxFusionOperandsAndOutputs, 64);
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 79);
  for (int i = 1; i <= 80; ++i) EXPECT_EQ(Flag(plan, adds[static_cast<size_t>(i - 1)]), i == 62 ? 0 : 1) << "add " << i;
  EXPECT_EQ(DropIllegalFusions(g, &plan), 0);
}

TEST(FusionTest, EveryRefusalWouldBreakARuleOrCloseACycle) {
  // The check is exact: an op left unfused though its kind, producer and device allow
  // it would break a kernel rule (sim/fusion_rules.h) or put a group on a cycle if
  // flagged on top of the greedy result (these graphs never reach the operand cap).
  int refusals = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    RandomGraphOptions options;
    options.num_ops = 300;
    options.width = 3 + static_cast<int>(seed % 4);
    const Graph g = RandomLayeredGraph(options, 100 + seed);
    Plan plan = DefaultPlan(g);
    ApplyGreedyFusion(g, &plan);
    for (OpId o = 0; o < g.num_ops(); ++o) {
      if (plan.fuse_with_producer[static_cast<size_t>(o)] || !CanFuseIntoProducer(g, o)) continue;
      ++refusals;
      Plan more = plan;
      more.fuse_with_producer[static_cast<size_t>(o)] = 1;
      EXPECT_GT(DropIllegalFusions(g, &more), 0) << "seed " << seed << ", op " << g.op(o).name;
    }
  }
  EXPECT_GT(refusals, 0);
}

// matmul -> batch norm -> relu -> softmax: the norm starts a kernel of its own (a
// contraction takes only an elementwise epilogue), the relu joins it, the softmax
// would be its second reduction.
TEST(FusionTest, GreedyFusionFollowsTheKernelRules) {
  GraphBuilder b("rules");
  const TensorId m = b.MatMul(b.Input("x", {64, 64}), b.Variable("w", {64, 64}));
  const TensorId n = b.BatchNorm(m, b.Variable("scale", {64}), b.Variable("bias", {64}));
  const TensorId r = b.Relu(n);
  const TensorId s = b.Softmax(r);
  const Graph g = b.Finish();
  Plan plan = DefaultPlan(g);
  EXPECT_EQ(ApplyGreedyFusion(g, &plan), 1);
  EXPECT_EQ(Flag(plan, Producer(g, n)), 0);
  EXPECT_EQ(Flag(plan, Producer(g, r)), 1);
  EXPECT_EQ(Flag(plan, Producer(g, s)), 0);
}

// One fusion built for a graph and applied to many plans, from two threads at once,
// gives each plan the flags of a fusion built for that plan alone: nothing of one
// plan's pass leaks into the next.
TEST(FusionTest, OneFusionForManyPlansFusesEachAsAFreshOne) {
  const Cluster cluster = *ClusterPreset("4xV100");
  RandomGraphOptions options;
  options.num_ops = 600;
  options.width = 4;
  const Graph g = RandomLayeredGraph(options, 3);
  const GreedyFusion every(g, [](OpKind) { return true; });
  const GreedyFusion elementwise = GreedyFusion::Default(g);
  std::vector<Plan> plans;
  Rng rng(5);
  RandomPlanOptions plan_options;
  plan_options.fuse_probability = 0.5;  // flags the fusion must clear first
  for (int i = 0; i < 16; ++i) plans.push_back(i % 4 == 0 ? DefaultPlan(g) : RandomPlan(g, cluster, plan_options, rng));
  std::vector<Plan> shared = plans, shared_default = plans;
  std::vector<int> counts(plans.size()), default_counts(plans.size());
  auto work = [&](size_t first) {
    for (size_t i = first; i < plans.size(); i += 2) {
      counts[i] = every.Apply(&shared[i]);
      default_counts[i] = elementwise.Apply(&shared_default[i]);
    }
  };
  std::thread other(work, 1);
  work(0);
  other.join();
  int fused = 0;
  for (size_t i = 0; i < plans.size(); ++i) {
    Plan fresh = plans[i], fresh_default = plans[i];
    EXPECT_EQ(counts[i], ApplyGreedyFusion(g, &fresh)) << "plan " << i;
    EXPECT_EQ(shared[i].fuse_with_producer, fresh.fuse_with_producer) << "plan " << i;
    EXPECT_EQ(default_counts[i], ApplyDefaultFusion(g, &fresh_default)) << "plan " << i;
    EXPECT_EQ(shared_default[i].fuse_with_producer, fresh_default.fuse_with_producer) << "plan " << i;
    fused += counts[i];
  }
  EXPECT_GT(fused, 0);
}

TEST(FusionTest, LargeGraphFusesLegally) {
  RandomGraphOptions options;
  options.num_ops = 60000;
  options.width = 16;
  const Graph g = RandomLayeredGraph(options, 9);
  Plan plan = DefaultPlan(g);
  EXPECT_GT(ApplyGreedyFusion(g, &plan), 0);
  EXPECT_EQ(DropIllegalFusions(g, &plan), 0);
}

}  // namespace
}  // namespace graphopt
