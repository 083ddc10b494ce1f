// The GO search deciding a subset of placement, scheduling and fusion: every plan it
// returns carries the defaults of the others (rl/task_defaults.h), the baselines it
// starts from and its local search's moves included.
#include <gtest/gtest.h>

#include "baselines/baseline.h"
#include "policy/go_policy.h"
#include "rl/learned_search.h"
#include "rl/task_defaults.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using RnnToy = testing::SmallRnnToy;

// Baselines, local search and PPO all on, 2 steps, one thread.
LearnedSearchConfig Search(const std::string& tasks) {
  LearnedSearchConfig c;
  c.policy = testing::PolicyConfig(std::string(testing::kSmallGoNetwork) + ",tasks=" + tasks);
  c.ppo = testing::PpoOptions("samples=4,epochs=1");
  c.budget.max_steps = 2;
  c.budget.time_limit_s = 0;
  c.budget.threads = 1;
  return c;
}

LearnedSearchResult MustRun(const Simulator& sim, const LearnedSearchConfig& c) {
  auto search = LearnedSearch::Create(sim, c);
  EXPECT_TRUE(search.ok()) << search.status().message();
  if (!search.ok()) return {};
  auto r = (*search)->Run();
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : LearnedSearchResult{};
}

TEST(LearnedSearchTasksTest, PlacementAloneKeepsReadyOrderAndTheDefaultFusion) {
  const RnnToy toy;
  const LearnedSearchResult r = MustRun(toy.sim, Search("placement"));
  ASSERT_TRUE(r.score.scored());
  EXPECT_EQ(r.plan.priority, std::vector<double>(r.plan.priority.size(), 0.0));
  Plan fused = r.plan;
  ApplyDefaultFusion(toy.graph, &fused);
  EXPECT_EQ(r.plan.fuse_with_producer, fused.fuse_with_producer);
  // Never slower than a baseline's placement under the same defaults (what it starts from).
  auto defaults = TaskDefaults::Create(kTaskPlacement, "", toy.graph, toy.cluster, toy.sim.cost_model());
  ASSERT_TRUE(defaults.ok());
  for (const std::string& name : BaselineNames()) {
    auto plan = RunBaseline(name, toy.graph, toy.cluster, toy.sim.cost_model());
    ASSERT_TRUE(plan.ok()) << name;
    defaults->Apply(toy.graph, &*plan);
    auto simulated = toy.sim.Simulate(*plan);
    ASSERT_TRUE(simulated.ok()) << name;
    if (!simulated->oom) {
      EXPECT_LE(r.score.step_time_us, simulated->step_time_us) << name;
    }
  }
}

// A pre-trained policy of every task, searched with tasks=placement, learns placement
// alone (its plans keep the defaults of the others); a policy of placement alone
// cannot be asked for more, and the other network keys stay its file's.
TEST(LearnedSearchTasksTest, APretrainedPolicyCanBeRestrictedToPlacement) {
  const RnnToy toy;
  const testing::ScratchDir scratch("search_restricted_tasks");
  GoPolicy every(*GoPolicyConfig::FromString(testing::kSmallGoNetwork));
  ASSERT_EQ(every->config().tasks, kAllTasks);
  ASSERT_TRUE(SaveGoPolicy(every, scratch.Path("every.pt")).ok());
  LearnedSearchConfig c = Search("placement");
  c.pretrained.file = scratch.Path("every.pt");
  c.policy = testing::PolicyConfig("tasks=placement");
  c.ingredients.baselines = false;
  c.ingredients.warm_start = false;
  c.ingredients.polish = false;
  const LearnedSearchResult r = MustRun(toy.sim, c);
  ASSERT_TRUE(r.score.scored());
  EXPECT_EQ(r.plan.priority, std::vector<double>(r.plan.priority.size(), 0.0));
  Plan fused = r.plan;
  ApplyDefaultFusion(toy.graph, &fused);
  EXPECT_EQ(r.plan.fuse_with_producer, fused.fuse_with_producer);

  GoPolicy placement(*GoPolicyConfig::FromString(testing::kSmallGoPolicy));
  ASSERT_TRUE(SaveGoPolicy(placement, scratch.Path("placement.pt")).ok());
  c.pretrained.file = scratch.Path("placement.pt");
  c.policy = testing::PolicyConfig("tasks=all");
  auto more = LearnedSearch::Create(toy.sim, c);
  ASSERT_FALSE(more.ok());
  EXPECT_NE(more.status().message().find("can be restricted to a non-empty part of that only"), std::string::npos)
      << more.status().message();
  c.policy = testing::PolicyConfig("tasks=placement,hidden=32");
  auto other = LearnedSearch::Create(toy.sim, c);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("only tasks"), std::string::npos) << other.status().message();
}

TEST(LearnedSearchTasksTest, ScheduleAndFusionOnTheExpertsPlacement) {
  const RnnToy toy;
  LearnedSearchConfig c = Search("scheduling+fusion");
  c.fixed_placement = "expert";
  const LearnedSearchResult r = MustRun(toy.sim, c);
  ASSERT_TRUE(r.score.scored());
  auto expert = RunBaseline("expert", toy.graph, toy.cluster, toy.sim.cost_model());
  ASSERT_TRUE(expert.ok());
  EXPECT_EQ(r.plan.device, expert->device);
  EXPECT_TRUE(ValidatePlan(toy.graph, toy.cluster, r.plan).ok());
}

TEST(LearnedSearchTasksTest, AFixedPlacementNeedsPlacementLeftOut) {
  const RnnToy toy;
  LearnedSearchConfig c = Search("all");
  c.fixed_placement = "expert";
  auto search = LearnedSearch::Create(toy.sim, c);
  ASSERT_FALSE(search.ok());
  EXPECT_NE(search.status().message().find("needs placement left out"), std::string::npos) << search.status().message();
}

}  // namespace
}  // namespace graphopt
