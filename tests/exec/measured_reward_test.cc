// Measured reward (exec/measured_reward.h): a plan that fits is executed and its step
// time measured; one that does not fit is not run and keeps the simulator's verdict.
#include "exec/measured_reward.h"

#include <gtest/gtest.h>

#include "../testing/clusters.h"
#include "exec/local_cluster.h"
#include "models/load.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

std::vector<std::vector<int>> CoreSets() {
  auto cores = LocalCoreSets(0);
  EXPECT_TRUE(cores.ok());
  return {(*cores)[0], (*cores)[1 % cores->size()]};
}

TEST(MeasuredRewardTest, APlanThatFitsIsExecutedAndTimed) {
  auto graph = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  ASSERT_TRUE(graph.ok());
  auto sim = Simulator::Create(*graph, testing::TwoInstantCores(int64_t{8} << 30));
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  const Plan plan = DefaultPlan(*graph);
  auto simulated = sim->Simulate(plan);
  ASSERT_TRUE(simulated.ok());
  MeasuredRewardOptions options;
  options.steps = 2;
  const PlanMeasure measure = MeasuredReward(*sim, CoreSets(), options);
  auto measured = measure(plan);
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  EXPECT_FALSE(measured->oom);
  // A step of real kernels takes far longer than the simulated petaflop machine says.
  EXPECT_GT(measured->step_time_us, 10 * simulated->step_time_us);
  EXPECT_EQ(measured->device_peak_memory, simulated->device_peak_memory);
}

TEST(MeasuredRewardTest, APlanThatDoesNotFitIsNotRun) {
  auto graph = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  ASSERT_TRUE(graph.ok());
  auto sim = Simulator::Create(*graph, testing::TwoInstantCores(1024));
  ASSERT_TRUE(sim.ok());
  const Plan plan = DefaultPlan(*graph);
  auto simulated = sim->Simulate(plan);
  ASSERT_TRUE(simulated.ok());
  ASSERT_TRUE(simulated->oom);
  auto measured = MeasuredReward(*sim, CoreSets())(plan);
  ASSERT_TRUE(measured.ok()) << measured.status().message();
  EXPECT_TRUE(measured->oom);
  EXPECT_EQ(measured->step_time_us, simulated->step_time_us);
}

TEST(MeasuredRewardTest, AnInvalidPlanIsAnError) {
  auto graph = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  ASSERT_TRUE(graph.ok());
  auto sim = Simulator::Create(*graph, testing::TwoInstantCores(int64_t{8} << 30));
  ASSERT_TRUE(sim.ok());
  Plan plan = DefaultPlan(*graph);
  plan.device[3] = 7;
  EXPECT_FALSE(MeasuredReward(*sim, CoreSets())(plan).ok());
}

}  // namespace
}  // namespace graphopt
