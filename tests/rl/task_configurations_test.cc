// The eight configurations of the multi-task table (rl/task_configurations.h) on a
// small RNNLM: every plan valid, each keeping the defaults it promises.
#include "rl/task_configurations.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "baselines/baseline.h"
#include "eval/results.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using RnnToy = testing::SmallRnnToy;

LearnedSearchConfig Base() {
  LearnedSearchConfig c;
  c.policy = testing::PolicyConfig(testing::kSmallGoNetwork);
  c.ppo = testing::PpoOptions("samples=4,epochs=1");
  c.budget.max_steps = 3;  // the separately trained parts get 1 step each
  c.budget.time_limit_s = 0;
  c.budget.threads = 1;
  return c;
}

bool AllZero(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0; });
}

TEST(TaskConfigurationsTest, TheTableIsTheResultsColumnsInOrder) {
  std::vector<std::string> names;
  for (const TaskConfiguration& c : TaskConfigurations()) names.push_back(c.name);
  EXPECT_EQ(names, TaskConfigurationNames());
  EXPECT_FALSE((*FindTaskConfiguration("hp-only"))->learned);
  EXPECT_TRUE((*FindTaskConfiguration("pl+sch+fu"))->all_tasks);
  auto unknown = FindTaskConfiguration("pl+magic");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("pl|sch|fu"), std::string::npos);
}

TEST(TaskConfigurationsTest, EveryConfigurationKeepsItsDefaults) {
  const RnnToy toy;
  const Plan expert = RunBaseline("expert", toy.graph, toy.cluster, toy.sim.cost_model()).value();
  for (const std::string& name : TaskConfigurationNames()) {
    SCOPED_TRACE(name);
    auto plan = PlanTaskConfiguration(name, toy.sim, Base());
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_TRUE(ValidatePlan(toy.graph, toy.cluster, *plan).ok());
    const bool learns_schedule = name.find("sch") != std::string::npos;
    const bool learns_fusion = name.find("fu") != std::string::npos;
    if (!learns_schedule) {
      EXPECT_TRUE(AllZero(plan->priority));
    }
    if (!learns_fusion) {
      Plan fused = *plan;
      ApplyDefaultFusion(toy.graph, &fused);
      EXPECT_EQ(plan->fuse_with_producer, fused.fuse_with_producer);
    }
    if (name == "hp-only" || name == "sch+fu") {
      EXPECT_EQ(plan->device, expert.device);
    }
    if (name == "tf-default") {
      EXPECT_EQ(plan->device, RunBaseline("tf-default", toy.graph, toy.cluster, toy.sim.cost_model())->device);
    }
  }
}

TEST(TaskConfigurationsTest, BadNamesAndTasksInTheOptionsAreErrors) {
  const RnnToy toy;
  auto unknown = PlanTaskConfiguration("pl+fu", toy.sim, Base());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("known: tf-default, hp-only"), std::string::npos) << unknown.status().message();
  LearnedSearchConfig c = Base();
  c.policy->tasks = kTaskPlacement;
  auto tasks = PlanTaskConfiguration("pl-only", toy.sim, c);
  ASSERT_FALSE(tasks.ok());
  EXPECT_NE(tasks.status().message().find("must not"), std::string::npos) << tasks.status().message();
}

}  // namespace
}  // namespace graphopt
