// The defaults of the tasks an optimizer does not decide (rl/task_defaults.h).
#include "rl/task_defaults.h"

#include <gtest/gtest.h>

#include "baselines/baseline.h"
#include "models/load.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

struct Machine {
  Graph graph;
  Cluster cluster;
  CostModel cost_model;
  Machine() {
    auto g = LoadModel("rnnlm:layers=2,steps=2,hidden=64,batch=8,vocab=100");
    auto c = LoadCluster("2xV100");
    GO_CHECK(g.ok() && c.ok());
    graph = std::move(*g);
    cluster = std::move(*c);
  }
  // Blocks of 5 ops alternating between the devices, all fusible ops fused,
  // priorities 1, 2, 3, ...: a plan whose three decisions all differ from the defaults.
  Plan Busy() const {
    Plan plan = DefaultPlan(graph);
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      plan.device[static_cast<size_t>(o)] = (o / 5) % 2;
      plan.priority[static_cast<size_t>(o)] = o + 1;
    }
    RespectColocation(graph, &plan);
    ApplyGreedyFusion(graph, &plan);
    return plan;
  }
};

TEST(TaskDefaultsTest, EveryTaskDecidedChangesNothing) {
  const Machine s;
  const TaskDefaults all;
  Plan plan = s.Busy();
  const Plan before = plan;
  all.Apply(s.graph, &plan);
  EXPECT_EQ(plan.device, before.device);
  EXPECT_EQ(plan.priority, before.priority);
  EXPECT_EQ(plan.fuse_with_producer, before.fuse_with_producer);
  EXPECT_EQ(all.ToString(), "placement+scheduling+fusion");
}

TEST(TaskDefaultsTest, PlacementOnlyGetsReadyOrderAndTheDefaultFusion) {
  const Machine s;
  auto d = TaskDefaults::Create(kTaskPlacement, "", s.graph, s.cluster, s.cost_model);
  ASSERT_TRUE(d.ok()) << d.status().message();
  Plan plan = s.Busy();
  const Plan before = plan;
  d->Apply(s.graph, &plan);
  EXPECT_EQ(plan.device, before.device);
  EXPECT_EQ(plan.priority, std::vector<double>(plan.priority.size(), 0.0));
  Plan fused = before;
  ApplyDefaultFusion(s.graph, &fused);
  EXPECT_EQ(plan.fuse_with_producer, fused.fuse_with_producer);
  EXPECT_NE(plan.fuse_with_producer, before.fuse_with_producer);  // greedy fusion of all kinds is not the default
  EXPECT_TRUE(ValidatePlan(s.graph, s.cluster, plan).ok());
}

TEST(TaskDefaultsTest, AFixedPlacementKeepsTheDecidedScheduleAndLegalFusions) {
  const Machine s;
  auto d = TaskDefaults::Create(kTaskScheduling | kTaskFusion, "expert", s.graph, s.cluster, s.cost_model);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->ToString(), "scheduling+fusion; placement of expert");
  Plan plan = s.Busy();
  const Plan before = plan;
  const PlanLegalizer legalizer(s.graph);
  d->Apply(s.graph, &plan, &legalizer);
  auto expert = RunBaseline("expert", s.graph, s.cluster, s.cost_model);
  ASSERT_TRUE(expert.ok());
  EXPECT_EQ(plan.device, expert->device);
  EXPECT_EQ(plan.priority, before.priority);
  // Every flag kept joins ops on one device; a flag was dropped only where it crossed.
  int dropped = 0;
  for (OpId o = 0; o < s.graph.num_ops(); ++o) {
    const size_t i = static_cast<size_t>(o);
    if (plan.fuse_with_producer[i]) {
      EXPECT_EQ(before.fuse_with_producer[i], 1) << s.graph.op(o).name;
    }
    if (before.fuse_with_producer[i] && !plan.fuse_with_producer[i]) ++dropped;
  }
  EXPECT_GT(dropped, 0);
  EXPECT_TRUE(ValidatePlan(s.graph, s.cluster, plan).ok());
  Plan slow = before;
  d->Apply(s.graph, &slow);  // without the legalizer: the same plan
  EXPECT_EQ(slow.fuse_with_producer, plan.fuse_with_producer);
}

TEST(TaskDefaultsTest, BadTasksAreClearErrors) {
  const Machine s;
  auto error = [&](uint32_t tasks, const std::string& fixed) {
    return TaskDefaults::Create(tasks, fixed, s.graph, s.cluster, s.cost_model).status().message();
  };
  EXPECT_NE(error(0, "").find("non-empty subset"), std::string::npos);
  EXPECT_NE(error(kAllTasks, "expert").find("needs placement left out"), std::string::npos) << error(kAllTasks, "expert");
  EXPECT_NE(error(kTaskFusion, "oracle").find("oracle"), std::string::npos) << error(kTaskFusion, "oracle");
}

}  // namespace
}  // namespace graphopt
