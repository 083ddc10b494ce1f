#include "sim/lower_bound.h"

#include <gtest/gtest.h>

#include "core/rng.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

TEST(LowerBoundTest, ChainBoundIsItsCriticalPath) {
  PaperGraph g;
  TensorId t = g.Input("input", 1000);
  t = g.Compute("a", {t}, 10, 100);
  g.Compute("b", {t}, 20, 100);
  auto lb = ComputeLowerBound(g.graph(), PaperCluster(4), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_DOUBLE_EQ(lb->critical_path_us, 11 + 21);
  EXPECT_DOUBLE_EQ(lb->work_us, (11 + 21) / 4.0);
  EXPECT_DOUBLE_EQ(lb->value_us(), 32);
}

TEST(LowerBoundTest, IndependentOpsAreBoundByWorkOverDevices) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  for (int i = 0; i < 8; ++i) g.Compute("op" + std::to_string(i), {in}, 9, 100);
  auto lb = ComputeLowerBound(g.graph(), PaperCluster(2), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_DOUBLE_EQ(lb->critical_path_us, 10);
  EXPECT_DOUBLE_EQ(lb->work_us, 8 * 10 / 2.0);
}

TEST(LowerBoundTest, FusibleOpsCountOnlyTheirCompute) {
  // a (MatMul) -> r (Relu, memory-bound 2 us alone): fused, r adds no launch and no bytes.
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 1000);
  g.Add("r", OpKind::kRelu, {a}, {1000}, 0, 1000, 1000);
  const std::vector<double> lb = LeastOpContributions(g.graph(), PaperCluster(1), PerfectCostModel());
  EXPECT_DOUBLE_EQ(lb[2], 0);   // r: compute part only
  EXPECT_DOUBLE_EQ(lb[1], 11);  // a: launch + compute, as root or alone
  auto sim = Simulator::Create(g.graph(), PaperCluster(1), PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  auto fused = sim->Simulate(Plan{{}, {}, {0, 0, 1}});
  ASSERT_TRUE(fused.ok());
  EXPECT_GE(fused->step_time_us, fused->lower_bound_us);
  EXPECT_DOUBLE_EQ(fused->step_time_us, 11);  // compute-bound: the fused Relu is free
  EXPECT_DOUBLE_EQ(fused->lower_bound_us, 11);
}

TEST(LowerBoundTest, HeterogeneousDevicesWeighWorkBySpeed) {
  // Two devices, the second 3x faster: 12 ops of 30 MFLOP (31 us / 11 us).
  Cluster c = PaperCluster(2);
  std::vector<Device> devices = c.devices();
  devices[1].peak_flops = 3e12;
  Cluster mixed("mixed", devices);
  mixed.SetAllLinks(Link{1e9, 2});
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  for (int i = 0; i < 12; ++i) g.Compute("op" + std::to_string(i), {in}, 30, 100);
  auto lb = ComputeLowerBound(g.graph(), mixed, PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  // Fractional optimum: x ops on the slow device, 12 - x on the fast one, 31 x = 11 (12 - x).
  const double x = 12 * 11.0 / 42;
  EXPECT_NEAR(lb->work_us, 31 * x, 1e-6);
  // No plan beats it: the best split puts 3 ops on the slow device (93 us vs 99 us).
  auto sim = Simulator::Create(g.graph(), mixed, PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  Plan plan;
  plan.device.assign(13, 1);
  for (int i = 1; i <= 3; ++i) plan.device[static_cast<size_t>(i)] = 0;
  auto r = sim->Simulate(plan);
  ASSERT_TRUE(r.ok());
  EXPECT_GE(r->step_time_us, lb->value_us());
}

TEST(LowerBoundTest, HoldsForMeasuredGraphsOnMixedClusters) {
  RandomGraphOptions o;
  o.num_ops = 300;
  Graph g = RandomLayeredGraph(o, 21);
  Rng rng(4);
  for (OpId op = 0; op < g.num_ops(); ++op) {
    if (!IsFree(g.op(op).kind) && rng.Bernoulli(0.5)) g.mutable_op(op).measured_time_us = 50 * rng.UniformDouble();
  }
  const Cluster cluster = *ClusterPreset("4xK40+cpu");
  auto sim = Simulator::Create(g, cluster);
  ASSERT_TRUE(sim.ok());
  for (int i = 0; i < 20; ++i) {
    RandomPlanOptions po;
    po.accelerators_only = false;
    po.fuse_probability = 0.7;
    auto r = sim->Simulate(RandomPlan(g, cluster, po, rng));
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_GE(r->step_time_us, r->lower_bound_us * (1 - 1e-12));
  }
}

TEST(LowerBoundTest, CyclicGraphIsAnError) {
  Graph g("cyclic");
  const TensorId x = g.AddTensor("x", {1});
  const TensorId y = g.AddTensor("y", {1});
  Op a;
  a.name = "a";
  a.kind = OpKind::kRelu;
  a.inputs = {y};
  a.outputs = {x};
  g.AddOp(a, false);
  Op b;
  b.name = "b";
  b.kind = OpKind::kRelu;
  b.inputs = {x};
  b.outputs = {y};
  g.AddOp(b, false);
  EXPECT_FALSE(ComputeLowerBound(g, PaperCluster(1), PerfectCostModel()).ok());
  EXPECT_FALSE(Simulator::Create(g, PaperCluster(1)).ok());
}

}  // namespace
}  // namespace graphopt
