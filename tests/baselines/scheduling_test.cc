// Critical-path-first priorities on hand graphs whose bottom levels are computed on paper.
#include <gtest/gtest.h>

#include "../testing/clusters.h"
#include "baselines/baseline.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

// An op with a measured time (taken as is on GPUs) and one output of 1000 floats
// (4000 bytes: 4 us on the test links).
OpId AddTimed(Graph* g, const std::string& name, OpKind kind, const std::vector<OpId>& inputs, double time_us) {
  Op op;
  op.name = name;
  op.kind = kind;
  for (OpId i : inputs) op.inputs.push_back(g->op(i).outputs[0]);
  op.outputs.push_back(g->AddTensor(name, {1000}));
  if (kind != OpKind::kInput) op.measured_time_us = time_us;
  return g->AddOp(std::move(op), false);
}

// x -> a(10) -> b(20) -> d(7), a -> c(5) -> d.
struct Diamond {
  Graph graph{"diamond"};
  OpId x, a, b, c, d;
  Diamond() {
    x = AddTimed(&graph, "x", OpKind::kInput, {}, 0);
    a = AddTimed(&graph, "a", OpKind::kGeneric, {x}, 10);
    b = AddTimed(&graph, "b", OpKind::kGeneric, {a}, 20);
    c = AddTimed(&graph, "c", OpKind::kGeneric, {a}, 5);
    d = AddTimed(&graph, "d", OpKind::kGeneric, {b, c}, 7);
  }
};

TEST(CriticalPathTest, BottomLevelsOnOneDevice) {
  Diamond g;
  Plan plan = DefaultPlan(g.graph, 0);
  SetCriticalPathPriorities(g.graph, testing::TwoGpusOnSlowLinks(), CostModel(), &plan);
  // d 7; b 20 + 7; c 5 + 7; a 10 + max(27, 12); x 0 + 37.
  EXPECT_EQ(plan.priority, (std::vector<double>{37, 37, 27, 12, 7}));
}

TEST(CriticalPathTest, CrossDeviceEdgesAddTransferTime) {
  Diamond g;
  Plan plan = DefaultPlan(g.graph, 0);
  plan.device[static_cast<size_t>(g.c)] = 1;
  SetCriticalPathPriorities(g.graph, testing::TwoGpusOnSlowLinks(), CostModel(), &plan);
  // Transfer of 4000 bytes: 10 + 4 = 14 us. c: 5 + 14 + 7 = 26; a: 10 + max(27, 14 + 26) = 50.
  EXPECT_EQ(plan.priority, (std::vector<double>{50, 50, 27, 26, 7}));
}

TEST(CriticalPathTest, FillsAnEmptyPlanWithDefaults) {
  Diamond g;
  Plan plan;
  SetCriticalPathPriorities(g.graph, testing::TwoGpusOnSlowLinks(), CostModel(), &plan);
  EXPECT_EQ(plan.device, std::vector<DeviceId>(5, 0));
  EXPECT_EQ(plan.priority, (std::vector<double>{37, 37, 27, 12, 7}));
}

TEST(CriticalPathTest, KeepsDevicesAndFusion) {
  const Cluster cluster = *ClusterPreset("4xV100");
  RandomGraphOptions options;
  options.num_ops = 500;
  const Graph graph = RandomLayeredGraph(options, 2);
  Rng rng(2);
  Plan plan = RandomPlan(graph, cluster, RandomPlanOptions{}, rng);
  const Plan before = plan;
  SetCriticalPathPriorities(graph, cluster, CostModel(), &plan);
  EXPECT_EQ(plan.device, before.device);
  EXPECT_EQ(plan.fuse_with_producer, before.fuse_with_producer);
  EXPECT_TRUE(ValidatePlan(graph, cluster, plan).ok());
}

TEST(CriticalPathTest, IsDeterministic) {
  const Cluster cluster = *ClusterPreset("8xV100-nvlink");
  RandomGraphOptions options;
  options.num_ops = 500;
  const Graph graph = RandomLayeredGraph(options, 4);
  Rng rng(4);
  Plan first = RandomPlan(graph, cluster, RandomPlanOptions{}, rng);
  Plan second = first;
  SetCriticalPathPriorities(graph, cluster, CostModel(), &first);
  SetCriticalPathPriorities(graph, cluster, CostModel(), &second);
  EXPECT_EQ(first.priority, second.priority);
}

}  // namespace
}  // namespace graphopt
