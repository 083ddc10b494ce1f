#include "rl/ppo.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>

#include "core/files.h"
#include "policy/features.h"
#include "rl/go_search.h"
#include "rl_test_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PerfectCostModel;
using testing::TwoChains;
using testing::SlowAndFastCluster;
using testing::TwoChainsOptimumUs;

constexpr const char* kSmallPolicy = "hidden=16,heads=2,sage_layers=1,attention_layers=1,segment=16,memory=16,tasks=placement";

struct Toy {
  Graph graph = TwoChains(6);
  Cluster cluster = PaperCluster(2);
  Simulator sim = std::move(Simulator::Create(graph, cluster, PerfectCostModel()).value());
  PolicyInput input = *BuildPolicyInput(graph, cluster, sim.cost_model());
};

PpoConfig ToyPpo() {
  PpoConfig c;
  c.samples_per_step = 16;
  c.epochs = 4;
  c.lr = 0.01;
  c.include_best = false;  // the policy must learn from its own samples
  return c;
}

std::unique_ptr<PpoTrainer> MakeTrainer(Toy& toy, BatchSimulator* batch, uint64_t seed, PpoConfig config = ToyPpo()) {
  auto trainer = std::make_unique<PpoTrainer>(toy.sim, batch, toy.input, GoPolicy(*GoPolicyConfig::FromString(kSmallPolicy)),
                                              config, seed);
  trainer->set_reference_us(TwoChainsOptimumUs(6));
  return trainer;
}

std::string TempDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + "graphopt_rl_" + name + "_" + std::to_string(::getpid());
  std::system(("rm -rf '" + dir + "'").c_str());
  return dir;
}

// A chain of 6 ops on a slow and a fast device: the optimum (everything on the fast
// one) is one of 2^8 placements; PPO must find it and make it the greedy plan.
TEST(PpoTest, LearnsToUseTheFastDevice) {
  ConfigureTorchThreads(1);
  Toy toy;
  toy.cluster = SlowAndFastCluster();
  toy.graph = TwoChains(3);
  toy.sim = std::move(Simulator::Create(toy.graph, toy.cluster, PerfectCostModel()).value());
  toy.input = *BuildPolicyInput(toy.graph, toy.cluster, toy.sim.cost_model());
  BatchSimulator batch(toy.sim, 1);
  auto trainer = MakeTrainer(toy, &batch, 3);
  const double initial = toy.sim.Simulate(trainer->GreedyPlan())->step_time_us;
  double first_reward = 0, last_reward = 0;
  for (int i = 0; i < 30; ++i) {
    const PpoStepStats s = trainer->Step();
    if (i == 0) first_reward = s.mean_reward;
    if (std::getenv("GRAPHOPT_TEST_VERBOSE")) std::printf("step %d reward %.3f best %.1f entropy %.3f loss %.4f\n", i, s.mean_reward, s.best_step_us_in_batch, s.entropy, s.loss);
    last_reward = s.mean_reward;
  }
  const double optimum = 2 * TwoChainsOptimumUs(3);
  const double greedy = toy.sim.Simulate(trainer->GreedyPlan())->step_time_us;
  EXPECT_GT(last_reward, first_reward);
  EXPECT_LT(greedy, 1.1 * optimum) << "greedy plan before training: " << initial << " us";
  EXPECT_LT(trainer->best_score().step_time_us, 1.02 * optimum);
}

TEST(PpoTest, SameSeedGivesSameRewardsAndPlans) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 2);
  auto a = MakeTrainer(toy, &batch, 11);
  auto b = MakeTrainer(toy, &batch, 11);
  for (int i = 0; i < 3; ++i) {
    const PpoStepStats sa = a->Step();
    const PpoStepStats sb = b->Step();
    EXPECT_EQ(sa.mean_reward, sb.mean_reward) << "step " << i;
    EXPECT_EQ(sa.loss, sb.loss) << "step " << i;
  }
  EXPECT_EQ(a->best_plan().device, b->best_plan().device);
  EXPECT_EQ(a->GreedyPlan().device, b->GreedyPlan().device);
}

TEST(PpoTest, WarmStartImitatesTheOfferedPlan) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  PpoConfig config = ToyPpo();
  config.warm_start_steps = 100;
  config.warm_start_target = 0.95;
  auto trainer = MakeTrainer(toy, &batch, 5, config);
  Plan target = DefaultPlan(toy.graph);
  for (OpId o = toy.graph.num_ops() / 2; o < toy.graph.num_ops(); ++o) target.device[static_cast<size_t>(o)] = 1;
  ASSERT_TRUE(trainer->OfferPlan(target, PlanScore::Of(*toy.sim.Simulate(target))));
  EXPECT_GE(trainer->WarmStart(), 0.95);
  EXPECT_EQ(trainer->GreedyPlan().device, target.device);
}

TEST(PpoConfigTest, ParsesOverridesAndRejectsUnknownKeys) {
  auto c = PpoConfig::FromString("samples=4,lr=0.5,include_best=0,imitation=0.25");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_DOUBLE_EQ(c->imitation, 0.25);
  EXPECT_FALSE(PpoConfig::FromString("imitation=-1").ok());
  EXPECT_EQ(c->samples_per_step, 4);
  EXPECT_DOUBLE_EQ(c->lr, 0.5);
  EXPECT_FALSE(c->include_best);
  EXPECT_FALSE(PpoConfig::FromString("bogus=1").ok());
  EXPECT_FALSE(PpoConfig::FromString("epochs=0").ok());
}

TEST(GoSearchOptionsTest, UnitsPerDeviceAndImitationAreRouted) {
  auto c = ParseGoSearchOptions("units_per_device=2,imitation=0.5", GoSearchConfig{});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->units_per_device, 2);
  auto ppo = PpoConfig::FromString(c->ppo);
  ASSERT_TRUE(ppo.ok()) << ppo.status().message();
  EXPECT_DOUBLE_EQ(ppo->imitation, 0.5);
  EXPECT_EQ(GoSearchConfig{}.units_per_device, 4);
  EXPECT_FALSE(ParseGoSearchOptions("units_per_device=-1", GoSearchConfig{}).ok());
}

GoSearchConfig ToySearch(const std::string& dir, int64_t steps) {
  GoSearchConfig c;
  c.policy = kSmallPolicy;
  c.ppo = "samples=8,epochs=2";
  c.polish = false;  // exact resume needs no time-sliced state
  c.max_steps = steps;
  c.time_limit_s = 0;
  c.threads = 1;
  c.seed = 2;
  c.checkpoint_dir = dir;
  c.checkpoint_every = 1;
  return c;
}

TEST(GoSearchTest, ResumedRunMatchesUninterruptedRun) {
  Toy toy;
  const std::string dir = TempDir("resume");
  auto first = GoSearch::Create(toy.sim, ToySearch(dir, 2));
  ASSERT_TRUE(first.ok()) << first.status().message();
  auto part = (*first)->Run();
  ASSERT_TRUE(part.ok()) << part.status().message();
  EXPECT_EQ(part->steps, 2);
  auto second = GoSearch::Create(toy.sim, ToySearch(dir, 4));
  auto resumed = (*second)->Run();
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_TRUE(resumed->resumed);
  EXPECT_EQ(resumed->steps, 4);

  auto whole_search = GoSearch::Create(toy.sim, ToySearch("", 4));
  auto whole = (*whole_search)->Run();
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(resumed->score.step_time_us, whole->score.step_time_us);
  EXPECT_EQ(resumed->plan.device, whole->plan.device);
  EXPECT_EQ(resumed->plans_simulated, whole->plans_simulated);
  std::system(("rm -rf '" + dir + "'").c_str());
}

// The policy alone (GO-one as the paper defines it): every plan that ever becomes the
// best was sampled from the policy; no baseline, warm start or local search enters.
TEST(GoSearchTest, PolicyAloneAdmitsOnlyPolicySamples) {
  Toy toy;
  auto c = ParseGoSearchOptions("baselines=0,warm_start=0,polish=0", ToySearch("", 3));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto search = GoSearch::Create(toy.sim, *c);
  ASSERT_TRUE(search.ok()) << search.status().message();
  auto r = (*search)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->trace.empty());
  for (const ConvergencePoint& p : r->trace) EXPECT_EQ(p.source, "ppo");
  EXPECT_EQ(r->improvements_ppo, static_cast<int>(r->trace.size()));
  EXPECT_EQ(r->improvements_polish + r->improvements_sample_polish, 0);
  EXPECT_EQ(r->score.step_time_us, r->trace.back().best_step_us);
  EXPECT_EQ(r->score.step_time_us, r->ppo_best_us);
}

TEST(GoSearchTest, TimeLimitStopsCleanlyWithABestPlan) {
  Toy toy;
  GoSearchConfig c = ToySearch("", 0);
  c.polish = true;
  c.time_limit_s = 0.5;
  auto search = GoSearch::Create(toy.sim, c);
  const auto start = std::chrono::steady_clock::now();
  auto r = (*search)->Run();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stop_reason, "time limit");
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(r->score.fits());
}

TEST(GoSearchTest, StopFlagInterruptsAndKeepsTheBestBaseline) {
  Toy toy;
  std::atomic<bool> stop{true};
  auto search = GoSearch::Create(toy.sim, ToySearch("", 100));
  auto r = (*search)->Run(&stop);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stop_reason, "interrupted");
  EXPECT_EQ(r->steps, 0);
  ASSERT_TRUE(r->best_baseline_score.fits());
  EXPECT_LE(r->score.step_time_us, r->best_baseline_score.step_time_us);
}

TEST(GoSearchTest, NeverSlowerThanTheBestBaseline) {
  Toy toy;
  GoSearchConfig c = ToySearch("", 3);
  c.polish = true;
  auto search = GoSearch::Create(toy.sim, c);
  auto r = (*search)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_LE(r->score.step_time_us, r->best_baseline_score.step_time_us);
  EXPECT_NEAR(r->score.step_time_us, TwoChainsOptimumUs(6), 3.0);
}

// With a heuristic start the units are split by the polished best baseline (saved
// with the checkpoint, required on resume); with the policy alone they never are.
TEST(GoSearchTest, PlanUnitsSplitByTheBestBaselineAndResume) {
  Toy toy;
  const std::string dir = TempDir("plan_units");
  auto split = GoSearch::Create(toy.sim, ToySearch(dir, 1));
  ASSERT_TRUE(split.ok()) << split.status().message();
  auto r = (*split)->Run();
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->units_split);
  EXPECT_TRUE(FileExists(dir + "/units_plan.json"));
  auto c = ParseGoSearchOptions("plan_units=0", ToySearch("", 1));
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto plain = (*GoSearch::Create(toy.sim, *c))->Run();
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_FALSE(plain->units_split);
  EXPECT_GE(r->num_units, plain->num_units);
  auto alone = ParseGoSearchOptions("baselines=0,warm_start=0,polish=0", ToySearch("", 1));
  ASSERT_TRUE(alone.ok());
  EXPECT_FALSE((*GoSearch::Create(toy.sim, *alone))->Run()->units_split);
  // Resuming needs the plan the units were split by.
  std::remove((dir + "/units_plan.json").c_str());
  auto resumed = (*GoSearch::Create(toy.sim, ToySearch(dir, 2)))->Run();
  ASSERT_FALSE(resumed.ok());
  EXPECT_NE(resumed.status().message().find("units_plan.json is missing"), std::string::npos)
      << resumed.status().message();
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace graphopt
