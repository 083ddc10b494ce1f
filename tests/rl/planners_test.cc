// The learned planners of the registry and the presets of the search's options.
#include "rl/planners.h"

#include <gtest/gtest.h>

#include <any>

#include "rl_test_util.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

TEST(LearnedPlannersTest, RegisteredOnceWithTheirBudgets) {
  PlannerRegistry r;
  RegisterLearnedPlanners(&r);
  RegisterLearnedPlanners(&r);  // a second call adds nothing
  ASSERT_EQ(r.Planners().size(), 5u);
  for (const char* name : {"go", "colocrl", "hdp", "finetune", "zero-shot"}) {
    const PlannerInfo* info = r.Find(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->kind, PlannerKind::kLearned);
  }
  EXPECT_EQ(r.Find("go")->budget, PlannerInfo::Budget::kSeconds);
  EXPECT_EQ(r.Find("finetune")->budget, PlannerInfo::Budget::kSteps);
  EXPECT_EQ(r.Find("finetune")->default_steps, kFinetuneDefaultSteps);
  EXPECT_EQ(r.Find("zero-shot")->budget, PlannerInfo::Budget::kNone);
  EXPECT_TRUE(r.Find("zero-shot")->needs_pretrained);
  EXPECT_FALSE(r.Find("colocrl")->needs_pretrained);
}

TEST(LearnedPlannersTest, SettingsAreCheckedWhenThePlannerIsMade) {
  PlannerRegistry r;
  RegisterLearnedPlanners(&r);
  PlannerSettings s;
  auto finetune = r.Find("finetune")->create(s);
  ASSERT_FALSE(finetune.ok());
  EXPECT_NE(finetune.status().message().find("needs a pre-trained policy"), std::string::npos);
}

TEST(LearnedPlannersTest, OptionsAreParsedIntoTheTypedConfigOnce) {
  PlannerRegistry r;
  RegisterLearnedPlanners(&r);
  PlannerSettings s;
  s.seed = 7;
  s.budget.time_limit_s = 30;
  const Status unknown = ConfigurePlanner(*r.Find("go"), "no_such_key=1", &s);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("no_such_key"), std::string::npos) << unknown.message();
  EXPECT_FALSE(s.config.has_value());  // a failed configure leaves the settings as they were
  // A ColocRL key is not one of GO's.
  EXPECT_FALSE(ConfigurePlanner(*r.Find("go"), "max_groups=16", &s).ok());
  PlannerSettings colocrl = s;
  ASSERT_TRUE(ConfigurePlanner(*r.Find("colocrl"), "max_groups=16", &colocrl).ok());
  EXPECT_TRUE(r.Find("colocrl")->create(colocrl).ok());
  // The config is typed, with the settings' seed and budget under the options.
  ASSERT_TRUE(ConfigurePlanner(*r.Find("go"), "polish=0,max_steps=9", &s).ok());
  const auto* c = std::any_cast<LearnedSearchConfig>(&s.config);
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->ingredients.polish);
  EXPECT_EQ(c->budget.max_steps, 9);
  EXPECT_EQ(c->seed, 7u);
  EXPECT_EQ(c->budget.time_limit_s, 30);
  EXPECT_TRUE(r.Find("go")->create(s).ok());
  // Another method's config is refused by name.
  auto wrong = r.Find("hdp")->create(s);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("config of go"), std::string::npos) << wrong.status().message();
}

TEST(LearnedPlannersTest, ColocRlPlansThroughThePipelineAndReportsItsSearch) {
  const testing::SmallRnnToy toy;
  PlannerRegistry r;
  RegisterLearnedPlanners(&r);
  PlannerSettings s;
  s.budget.max_steps = 2;
  s.budget.threads = 1;
  s.seed = 3;
  auto pipeline = ParsePipeline("colocrl", r);
  ASSERT_TRUE(pipeline.ok());
  auto planner = pipeline->planner->create(s);
  ASSERT_TRUE(planner.ok()) << planner.status().message();
  const PlanContext context{toy.graph, toy.cluster, toy.sim.cost_model(), &toy.sim};
  auto plan = RunPipeline(*pipeline, **planner, context);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(toy.graph, toy.cluster, *plan).ok());
  const SearchReport* report = (*planner)->report();
  ASSERT_NE(report, nullptr);
  EXPECT_GT(report->end_plans, 0);
  // Without the simulator a learned planner cannot score a plan.
  auto blind = (*planner)->Run(PlanContext{toy.graph, toy.cluster, toy.sim.cost_model()});
  ASSERT_FALSE(blind.ok());
  EXPECT_NE(blind.status().message().find("simulator"), std::string::npos);
}

TEST(SearchPresetsTest, APresetSetsItsKeysAndTheOthersOverrideIt) {
  const LearnedSearchConfig go = DefaultSearchConfig("go").value();
  auto alone = ParseLearnedSearchOptions("preset=policy-alone", go);
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  EXPECT_FALSE(alone->ingredients.baselines);
  EXPECT_FALSE(alone->ingredients.warm_start);
  EXPECT_FALSE(alone->ingredients.polish);
  auto overridden = ParseLearnedSearchOptions("polish=1,preset=policy-alone", go);
  ASSERT_TRUE(overridden.ok());
  EXPECT_TRUE(overridden->ingredients.polish);
  EXPECT_FALSE(overridden->ingredients.baselines);
  auto one = ParseLearnedSearchOptions("preset=go-one", go);
  ASSERT_TRUE(one.ok());
  ASSERT_TRUE(one->policy.has_value());
  EXPECT_EQ(one->policy->tasks, kTaskPlacement);
  auto unknown = ParseLearnedSearchOptions("preset=fastest", go);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("policy-alone, go-one, search-only, finetune"), std::string::npos)
      << unknown.status().message();
  for (const SearchPreset& p : SearchPresets()) {
    EXPECT_TRUE(ParseLearnedSearchOptions("preset=" + p.name, go).ok()) << p.name;
  }
}

TEST(SearchPresetsTest, TheFinetuneRecipeIsThePreset) {
  LearnedSearchConfig c = DefaultSearchConfig("go").value();
  c.budget.time_limit_s = 120;
  ASSERT_TRUE(ApplyFinetuneRecipe(7, &c).ok());
  EXPECT_EQ(c.budget.max_steps, 7);
  EXPECT_EQ(c.budget.time_limit_s, 0);
  EXPECT_FALSE(c.ingredients.baselines);
  EXPECT_FALSE(c.ingredients.polish);
  EXPECT_TRUE(c.ingredients.warm_start);
  EXPECT_TRUE(c.pretrained.frozen_start);
  EXPECT_EQ(c.sampling.step_ops, kFinetuneMethodStepOps);
  EXPECT_TRUE(c.ppo.unit_bias);
  EXPECT_EQ(c.ppo.ToString(), testing::PpoOptions("unit_bias=1").ToString());
}

}  // namespace
}  // namespace graphopt
