// The learned planners of the registry and the presets of the search's options.
#include "rl/planners.h"

#include <gtest/gtest.h>

#include <any>

#include "rl/task_configurations.h"
#include "rl_test_util.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

TEST(LearnedPlannersTest, RegisteredOnceWithTheirKindsAndBudgets) {
  PlannerRegistry r;
  RegisterLearnedPlanners(&r);
  RegisterLearnedPlanners(&r);  // a second call adds nothing
  // 4 learned methods, 4 presets and the 8 task configurations (tf-default among them
  // here: this registry has no baseline of that name).
  ASSERT_EQ(r.Planners().size(), 16u);
  for (const char* name : {"go", "colocrl", "hdp", "zero-shot"}) {
    const PlannerInfo* info = r.Find(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_EQ(info->kind, PlannerKind::kLearned);
  }
  for (const SearchPreset& preset : SearchPresets()) {
    const PlannerInfo* info = r.Find(preset.name);
    ASSERT_NE(info, nullptr) << preset.name;
    EXPECT_EQ(info->kind, PlannerKind::kPreset);
    EXPECT_TRUE(info->takes_tasks);
  }
  for (const TaskConfiguration& configuration : TaskConfigurations()) {
    const PlannerInfo* info = r.Find(configuration.name);
    ASSERT_NE(info, nullptr) << configuration.name;
    EXPECT_EQ(info->kind, PlannerKind::kTaskConfiguration);
    EXPECT_EQ(info->budget, configuration.learned ? PlannerInfo::Budget::kSeconds : PlannerInfo::Budget::kNone);
  }
  EXPECT_EQ(r.Find("go")->budget, PlannerInfo::Budget::kSeconds);
  EXPECT_EQ(r.Find("go-one")->budget, PlannerInfo::Budget::kSeconds);
  EXPECT_EQ(r.Find("finetune")->budget, PlannerInfo::Budget::kSteps);
  EXPECT_EQ(r.Find("finetune")->default_steps, kFinetuneDefaultSteps);
  EXPECT_TRUE(r.Find("finetune")->needs_pretrained);
  EXPECT_EQ(r.Find("zero-shot")->budget, PlannerInfo::Budget::kNone);
  EXPECT_TRUE(r.Find("zero-shot")->needs_pretrained);
  EXPECT_FALSE(r.Find("zero-shot")->takes_tasks);
  EXPECT_FALSE(r.Find("colocrl")->needs_pretrained);
  EXPECT_TRUE(r.Find("colocrl")->takes_tasks);
}

// In the process's registry tf-default is the baseline, and a task configuration's name
// with '+' is one planner, stages after it.
TEST(LearnedPlannersTest, TaskConfigurationsParseAsOnePlanner) {
  RegisterLearnedPlanners();
  const PlannerRegistry& r = PlannerRegistry::Global();
  EXPECT_EQ(r.Find("tf-default")->kind, PlannerKind::kBaseline);
  auto joint = ParsePipeline("pl+sch+fu");
  ASSERT_TRUE(joint.ok()) << joint.status().message();
  EXPECT_EQ(joint->planner->name, "pl+sch+fu");
  EXPECT_TRUE(joint->stages.empty());
  auto staged = ParsePipeline("pl+sch+cp");
  ASSERT_TRUE(staged.ok()) << staged.status().message();
  EXPECT_EQ(staged->planner->name, "pl+sch");
  ASSERT_EQ(staged->stages.size(), 1u);
  EXPECT_EQ(staged->stages[0]->name, "cp");
  auto plain = ParsePipeline("metis+fusion+cp");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->planner->name, "metis");
  EXPECT_EQ(plain->stages.size(), 2u);
}

// A preset planner is go with the preset's options first, then the keys given.
TEST(LearnedPlannersTest, APresetIsGoWithItsOptions) {
  PlannerRegistry r;
  RegisterLearnedPlanners(&r);
  PlannerSettings s;
  s.budget.time_limit_s = 20;
  ASSERT_TRUE(ConfigurePlanner(*r.Find("go-one"), "lr=0.01", &s).ok());
  const auto* c = std::any_cast<LearnedSearchConfig>(&s.config);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->method, "go");
  EXPECT_FALSE(c->ingredients.baselines);
  EXPECT_FALSE(c->ingredients.warm_start);
  EXPECT_FALSE(c->ingredients.polish);
  EXPECT_EQ(c->ppo.lr, 0.01);
  EXPECT_EQ(c->budget.time_limit_s, 20);
  EXPECT_EQ(c->sampling.explore_coupled, 0.5);
  EXPECT_TRUE(c->sampling.coupled_layers);
  ASSERT_TRUE(c->policy.has_value());
  EXPECT_EQ(c->policy->tasks, kTaskPlacement);
  EXPECT_TRUE(r.Find("go-one")->create(s).ok());
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
