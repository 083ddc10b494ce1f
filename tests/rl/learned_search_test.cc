#include "rl/learned_search.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/files.h"
#include "rl/ppo.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::kSmallGoPolicy;
using testing::ScratchDir;
using testing::ToySearch;
using testing::TwoChainsOptimumUs;
using Toy = testing::ChainsToy;

TEST(LearnedSearchOptionsTest, UnitsPerDeviceAndImitationAreRouted) {
  auto c = ParseLearnedSearchOptions("units_per_device=2,imitation=0.5", LearnedSearchConfig{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->sampling.units_per_device, 2);
  EXPECT_DOUBLE_EQ(c->ppo.imitation, 0.5);
  EXPECT_EQ(LearnedSearchConfig{}.sampling.units_per_device, 4);
  EXPECT_FALSE(ParseLearnedSearchOptions("units_per_device=-1", LearnedSearchConfig{}).ok());
}

TEST(LearnedSearchTest, ResumedRunMatchesUninterruptedRun) {
  Toy toy;
  const ScratchDir scratch("resume");
  const std::string dir = scratch.path();
  auto first = LearnedSearch::Create(toy.sim, ToySearch(dir, 2));
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto part = (*first)->Run();
  ASSERT_TRUE(part.ok()) << part.status().message();
  EXPECT_EQ(part->steps, 2);
  auto second = LearnedSearch::Create(toy.sim, ToySearch(dir, 4));
  auto resumed = (*second)->Run();
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_TRUE(resumed->resumed);
  EXPECT_EQ(resumed->steps, 4);

  auto whole_search = LearnedSearch::Create(toy.sim, ToySearch("", 4));
  auto whole = (*whole_search)->Run();
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(resumed->score.step_time_us, whole->score.step_time_us);
  EXPECT_EQ(resumed->plan.device, whole->plan.device);
  EXPECT_EQ(resumed->plans_simulated, whole->plans_simulated);
}

// The policy alone (GO-one as the paper defines it): every plan that ever becomes the
// best was sampled from the policy; no baseline, warm start or local search enters.
// So at every exploration fraction: the switch to imitation brings nothing in.
TEST(LearnedSearchTest, PolicyAloneAdmitsOnlyPolicySamples) {
  Toy toy;
  for (const char* explore : {"0", "0.5", "1"}) {
    SCOPED_TRACE(explore);
    auto c = ParseLearnedSearchOptions(std::string("baselines=0,warm_start=0,polish=0,explore=") + explore,
                                       ToySearch("", 4));
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto search = LearnedSearch::Create(toy.sim, *c);
    ASSERT_TRUE(search.ok()) << search.status().message();
    auto r = (*search)->Run();
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_FALSE(r->trace.empty());
    for (const ConvergencePoint& p : r->trace) EXPECT_EQ(p.source, "policy");
    EXPECT_EQ(r->improvements_policy, static_cast<int>(r->trace.size()));
    EXPECT_EQ(r->improvements_polish + r->improvements_sample_polish, 0);
    EXPECT_EQ(r->score.step_time_us, r->trace.back().best_step_us);
    EXPECT_EQ(r->score.step_time_us, r->policy_best_us);
    EXPECT_FALSE(r->units_split);
  }
}

TEST(LearnedSearchTest, TimeLimitStopsCleanlyWithABestPlan) {
  Toy toy;
  LearnedSearchConfig c = ToySearch("", 0);
  c.ingredients.polish = true;
  c.budget.time_limit_s = 0.5;
  auto search = LearnedSearch::Create(toy.sim, c);
  const auto start = std::chrono::steady_clock::now();
  auto r = (*search)->Run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stop_reason, "time limit");
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(r->score.fits());
}

TEST(LearnedSearchTest, StopFlagInterruptsAndKeepsTheBestBaseline) {
  Toy toy;
  std::atomic<bool> stop{true};
  auto search = LearnedSearch::Create(toy.sim, ToySearch("", 100));
  auto r = (*search)->Run(&stop);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stop_reason, "interrupted");
  EXPECT_EQ(r->steps, 0);
  ASSERT_TRUE(r->best_baseline_score.fits());
  EXPECT_LE(r->score.step_time_us, r->best_baseline_score.step_time_us);
}

TEST(LearnedSearchTest, NeverSlowerThanTheBestBaseline) {
  Toy toy;
  LearnedSearchConfig c = ToySearch("", 3);
  c.ingredients.polish = true;
  auto search = LearnedSearch::Create(toy.sim, c);
  auto r = (*search)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LE(r->score.step_time_us, r->best_baseline_score.step_time_us);
  EXPECT_NEAR(r->score.step_time_us, TwoChainsOptimumUs(6), 3.0);
}

// The policy imitating the best plan found by any means (explore=0).
LearnedSearchConfig ImitatingSearch(const std::string& dir, int64_t steps) {
  LearnedSearchConfig c = ToySearch(dir, steps);
  c.ingredients.explore = 0;
  return c;
}

// With a heuristic start the units are split by the polished best baseline (saved
// with the checkpoint, required on resume); with the policy alone they never are.
TEST(LearnedSearchTest, PlanUnitsSplitByTheBestBaselineAndResume) {
  Toy toy;
  const ScratchDir scratch("plan_units");
  const std::string dir = scratch.path();
  auto split = LearnedSearch::Create(toy.sim, ImitatingSearch(dir, 1));
  ASSERT_TRUE(split.ok()) << split.status().message();
  auto r = (*split)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->units_split);
  EXPECT_TRUE(FileExists(dir + "/units_plan.json"));
  auto c = ParseLearnedSearchOptions("plan_units=0", ImitatingSearch("", 1));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto plain = (*LearnedSearch::Create(toy.sim, *c))->Run();
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->units_split);
  EXPECT_GE(r->num_units, plain->num_units);
  auto alone = ParseLearnedSearchOptions("baselines=0,warm_start=0,polish=0", ToySearch("", 1));
  ASSERT_TRUE(alone.ok());
  EXPECT_FALSE((*LearnedSearch::Create(toy.sim, *alone))->Run()->units_split);
  // Resuming needs the plan the units were split by.
  std::remove((dir + "/units_plan.json").c_str());
  auto resumed = (*LearnedSearch::Create(toy.sim, ImitatingSearch(dir, 2)))->Run();
  ASSERT_FALSE(resumed.ok());
  EXPECT_NE(resumed.status().message().find("units_plan.json is missing"), std::string::npos)
      << resumed.status().message();
}

double JsonStepTimeUs(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  return key == "descent" ? j.at("descent").at("score").at("step_time_us").get<double>()
                          : j.at(key).at("step_time_us").get<double>();
}

// Exploring, the policy learns from its own samples only: the trainer's best plan is
// its best sample, not the better baseline; imitating, it is the best plan of the
// whole search.
TEST(LearnedSearchTest, ExploringPolicyKeepsItsOwnBestSample) {
  Toy toy;
  for (const bool explore : {true, false}) {
    const ScratchDir scratch(explore ? "explore_own" : "imitate_own");
    const std::string dir = scratch.path();
    LearnedSearchConfig c = ToySearch(dir, 2);
    c.ingredients.explore = explore ? 1 : 0;
    c.ingredients.polish = true;
    auto r = (*LearnedSearch::Create(toy.sim, c))->Run();
    ASSERT_TRUE(r.ok()) << r.status().message();
    const double trainer_best = JsonStepTimeUs(dir + "/ppo_state.json", "best");
    if (explore) {
      EXPECT_EQ(trainer_best, r->policy_best_us);
      EXPECT_GT(trainer_best, r->score.step_time_us);  // the toy's samples stay worse than the baseline
    } else {
      EXPECT_EQ(trainer_best, r->score.step_time_us);
    }
  }
}

// Once the heuristic plan's polish has converged, the policy's best sample is
// polished; the plan under polish is saved with the checkpoint and required on resume.
TEST(LearnedSearchTest, ExplorationPolishesThePolicysBestSample) {
  // Longer chains on four devices, where the policy's first samples scatter them.
  Toy toy = testing::ToyOn(testing::TwoChains(24), testing::PaperCluster(4));
  const ScratchDir scratch("descent");
  const std::string dir = scratch.path();
  auto config = [&](int64_t steps) {
    LearnedSearchConfig c = ToySearch(dir, steps);
    c.ingredients.polish = true;
    return c;
  };
  auto r = (*LearnedSearch::Create(toy.sim, config(1)))->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(FileExists(dir + "/descent_plan.json"));
  const double polished = JsonStepTimeUs(dir + "/state.json", "descent");
  // The descent starts from the policy's best sample and never ends above it; the
  // trainer keeps its own best sample.
  std::ifstream in(dir + "/state.json");
  const nlohmann::json state = nlohmann::json::parse(in);
  EXPECT_EQ(state.at("descent").at("seen").at("step_time_us").get<double>(), r->policy_best_us);
  EXPECT_LE(polished, r->policy_best_us);
  EXPECT_EQ(JsonStepTimeUs(dir + "/ppo_state.json", "best"), r->policy_best_us);
  EXPECT_LE(r->score.step_time_us, polished);
  auto explore_plan = ReadPlanJson(dir + "/descent_plan.json", toy.graph);
  ASSERT_TRUE(explore_plan.ok()) << explore_plan.status().message();
  EXPECT_EQ(toy.sim.Simulate(*explore_plan)->step_time_us, polished);
  // The polish simulated plans: without it the same run simulates fewer.
  LearnedSearchConfig no_sample_polish = config(1);
  no_sample_polish.checkpoints.dir = "";
  no_sample_polish.ingredients.polish_samples = false;
  auto without = (*LearnedSearch::Create(toy.sim, no_sample_polish))->Run();
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_LT(without->plans_simulated, r->plans_simulated);

  std::remove((dir + "/descent_plan.json").c_str());
  auto resumed = (*LearnedSearch::Create(toy.sim, config(2)))->Run();
  ASSERT_FALSE(resumed.ok());
  EXPECT_NE(resumed.status().message().find("descent_plan.json is missing"), std::string::npos)
      << resumed.status().message();
}

// Imitating, the sample polish descends from a sample of the policy across steps
// (an iterated local search whose perturbations the policy samples): the descent of
// step 1 goes on in step 2 unless a better sample replaced it, never restarted from
// a worse one as a fresh sample every step was; it survives a checkpoint.
TEST(LearnedSearchTest, ImitatingSamplePolishCarriesOneDescentAcrossSteps) {
  Toy toy = testing::ToyOn(testing::TwoChains(24), testing::PaperCluster(4));
  const ScratchDir scratch("imitate_descent");
  const std::string dir = scratch.path();
  auto descent = [&] {
    std::ifstream in(dir + "/state.json");
    const nlohmann::json state = nlohmann::json::parse(in);
    EXPECT_TRUE(state.contains("descent"));
    const nlohmann::json& d = state.at("descent");
    return std::make_pair(d.at("seen").at("step_time_us").get<double>(),
                          d.at("score").at("step_time_us").get<double>());
  };
  LearnedSearchConfig c = ToySearch(dir, 1);
  c.ingredients.polish = true;
  c.ingredients.explore = 0;
  c.polish.evaluations = 1;          // slices of one plan: a descent spans several steps
  c.ingredients.warm_start = false;  // samples spread around the best plan, not all equal to it
  auto r = (*LearnedSearch::Create(toy.sim, c))->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto [seen, score] = descent();
  EXPECT_LE(score, seen);
  auto plan = ReadPlanJson(dir + "/descent_plan.json", toy.graph);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (int64_t steps = 2; steps <= 8; ++steps) {
    SCOPED_TRACE(steps);
    c.budget.max_steps = steps;
    auto resumed = (*LearnedSearch::Create(toy.sim, c))->Run();
    ASSERT_TRUE(resumed.ok()) << resumed.status().message();
    const auto [next_seen, next_score] = descent();
    auto next_plan = ReadPlanJson(dir + "/descent_plan.json", toy.graph);
    ASSERT_TRUE(next_plan.ok()) << next_plan.status().message();
    if (next_seen >= score) {
      // Not restarted: the same descent, one slice further (the same plan or a better one).
      EXPECT_EQ(next_seen, seen);
      EXPECT_LE(next_score, score);
      if (next_score == score) {
        EXPECT_EQ(next_plan->device, plan->device);
      }
    }
    seen = next_seen;
    score = next_score;
    plan = std::move(next_plan);
  }
}

// The local search's improvements of the best plan continue the plan before them:
// the origin is the last other source.
TEST(LearnedSearchTest, PlanOriginSkipsThePolishOfTheBestPlan) {
  auto trace = [](std::vector<std::string> sources) {
    std::vector<ConvergencePoint> t;
    for (std::string& s : sources) t.push_back(ConvergencePoint{0, 0, 0, 1, true, std::move(s)});
    return t;
  };
  EXPECT_EQ(PlanOrigin(trace({})), "");
  EXPECT_EQ(PlanOrigin(trace({"baseline:expert", "polish", "polish"})), "baseline:expert");
  EXPECT_EQ(PlanOrigin(trace({"baseline:expert", "polish", "sample-polish", "polish", "polish"})), "sample-polish");
  EXPECT_EQ(PlanOrigin(trace({"baseline:expert", "policy"})), "policy");
  EXPECT_EQ(PlanOrigin(trace({"polish"})), "polish");
}

// With explore=0.5 and 4 steps, the policy explores for 2, then imitates: the units
// are split by the best plan, which joins the batches; a resumed run past the switch
// does not explore again.
TEST(LearnedSearchTest, ExplorationHandsOverToImitation) {
  Toy toy;
  const ScratchDir scratch("handover");
  const std::string dir = scratch.path();
  LearnedSearchConfig c = ToySearch(dir, 4);
  c.ingredients.polish = true;
  c.ingredients.explore = 0.5;
  auto r = (*LearnedSearch::Create(toy.sim, c))->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GT(r->explore_seconds, 0);
  EXPECT_TRUE(r->units_split);
  EXPECT_EQ(JsonStepTimeUs(dir + "/ppo_state.json", "best"), r->score.step_time_us);
  {
    std::ifstream in(dir + "/state.json");
    const nlohmann::json state = nlohmann::json::parse(in);
    EXPECT_FALSE(state.at("exploring").get<bool>());
  }
  c.budget.max_steps = 6;
  auto resumed = (*LearnedSearch::Create(toy.sim, c))->Run();
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_TRUE(resumed->resumed);
  EXPECT_TRUE(resumed->units_split);
  EXPECT_EQ(resumed->explore_seconds, 0);  // no second switch in this run
  EXPECT_EQ(resumed->steps, 6);
}

// With a step and a time limit, exploration ends at the fraction of whichever binds
// first: here the time limit, long before half of the steps.
TEST(LearnedSearchTest, ExplorationEndsAtTheLimitThatBindsFirst) {
  Toy toy;
  LearnedSearchConfig c = ToySearch("", 1000000);
  c.ingredients.explore = 0.5;
  c.budget.time_limit_s = 0.6;
  auto r = (*LearnedSearch::Create(toy.sim, c))->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LT(r->steps, 500000);
  EXPECT_GE(r->explore_seconds, 0.3);
  EXPECT_LT(r->explore_seconds, 0.6);
  EXPECT_TRUE(r->units_split);
}

TEST(LearnedSearchOptionsTest, StepOpsGrowTheSamplesOnSmallGraphs) {
  EXPECT_EQ(StepSamples(32, 0, 10), 32);
  EXPECT_EQ(StepSamples(32, 1000, 100), 32);  // 32 x 100 ops hold 1,000 already
  EXPECT_EQ(StepSamples(32, 1000, 10), 100);
  EXPECT_EQ(StepSamples(32, 1001, 10), 101);                 // rounded up
  EXPECT_EQ(StepSamples(32, int64_t{1} << 40, 1), 1 << 30);  // capped as an int option is
  EXPECT_EQ(LearnedSearchConfig{}.sampling.step_ops, 0);
  auto c = ParseLearnedSearchOptions("step_ops=4096", LearnedSearchConfig{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->sampling.step_ops, 4096);
  EXPECT_FALSE(ParseLearnedSearchOptions("step_ops=-1", LearnedSearchConfig{}).ok());
}

// A run with step_ops samples step_ops / ops plans a step where samples_per_step
// would hold fewer ops: the toy's 8 samples a step become 20.
TEST(LearnedSearchTest, StepOpsSampleMorePlansPerStep) {
  Toy toy;
  auto plans_of = [&](int64_t step_ops) {
    LearnedSearchConfig c = ToySearch("", 3);
    c.ingredients.baselines = c.ingredients.warm_start = false;
    c.sampling.step_ops = step_ops;
    auto search = LearnedSearch::Create(toy.sim, c);
    EXPECT_TRUE(search.ok()) << search.status().message();
    auto r = (*search)->Run();
    EXPECT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->steps, 3);
    return r->plans_simulated;
  };
  const int ops = toy.graph.num_ops();
  EXPECT_EQ(plans_of(int64_t{20} * ops) - plans_of(0), 3 * (20 - 8));
  EXPECT_EQ(plans_of(int64_t{4} * ops), plans_of(0));  // 8 samples hold 4 x ops already
}

// explore_coupled: the exploring steps draw that fraction of their samples with
// coupled placement. On a chain whose every cut costs a transfer, the policy alone
// finds the consolidated plan in two exploring steps with it and not without; the
// same seed gives the same plan, and a run interrupted and resumed the uninterrupted
// one's.
TEST(LearnedSearchTest, ExploreCoupledFindsTheConsolidatedPlan) {
  Toy toy = testing::CostlyCutsToy();
  const double consolidated = toy.sim.Simulate(DefaultPlan(toy.graph))->step_time_us;
  const ScratchDir scratch("explore_coupled");
  const std::string dir = scratch.path();
  LearnedSearchConfig c = ToySearch("", 2);
  c.ingredients.baselines = c.ingredients.warm_start = false;
  auto run = [&](double fraction) {
    c.sampling.explore_coupled = fraction;
    auto search = LearnedSearch::Create(toy.sim, c);
    EXPECT_TRUE(search.ok()) << search.status().message();
    auto r = (*search)->Run();
    EXPECT_TRUE(r.ok()) << r.status().message();
    return *r;
  };
  const LearnedSearchResult independent = run(0), coupled = run(1), half = run(0.5), again = run(0.5);
  EXPECT_GT(independent.score.step_time_us, consolidated + 50);
  EXPECT_EQ(coupled.score.step_time_us, consolidated);
  EXPECT_EQ(half.score.step_time_us, consolidated);
  EXPECT_EQ(half.plan.device, again.plan.device);
  c.checkpoints.dir = dir;
  c.budget.max_steps = 1;
  run(0.5);
  c.budget.max_steps = 2;
  const LearnedSearchResult resumed = run(0.5);
  EXPECT_TRUE(resumed.resumed);
  EXPECT_EQ(resumed.plan.device, half.plan.device);
  EXPECT_EQ(resumed.plans_simulated, half.plans_simulated);
  EXPECT_FALSE(ParseLearnedSearchOptions("explore_coupled=1.5", LearnedSearchConfig{}).ok());
}

TEST(LearnedSearchOptionsTest, ExploreIsAFraction) {
  EXPECT_DOUBLE_EQ(LearnedSearchConfig{}.ingredients.explore, 0.5);
  auto c = ParseLearnedSearchOptions("explore=0.25", LearnedSearchConfig{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_DOUBLE_EQ(c->ingredients.explore, 0.25);
  EXPECT_FALSE(ParseLearnedSearchOptions("explore=1.5", LearnedSearchConfig{}).ok());
  EXPECT_FALSE(ParseLearnedSearchOptions("explore=-0.1", LearnedSearchConfig{}).ok());
  EXPECT_FALSE(ParseLearnedSearchOptions("explore=nan", LearnedSearchConfig{}).ok());
}

}  // namespace
}  // namespace graphopt
