#include "rl/ppo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>

#include "core/files.h"
#include "policy/features.h"
#include "rl_test_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PerfectCostModel;
using testing::TwoChains;
using testing::SlowAndFastCluster;
using testing::TwoChainsOptimumUs;
using testing::kSmallGoPolicy;
using Toy = testing::ChainsToy;

PpoConfig ToyPpo() {
  PpoConfig c;
  c.samples_per_step = 16;
  c.epochs = 4;
  c.lr = 0.01;
  c.include_best = false;  // the policy must learn from its own samples
  return c;
}

std::unique_ptr<PpoTrainer> MakeTrainer(Toy& toy, BatchSimulator* batch, uint64_t seed, PpoConfig config = ToyPpo()) {
  auto trainer = std::make_unique<PpoTrainer>(toy.sim, batch, toy.input, GoPolicy(*GoPolicyConfig::FromString(kSmallGoPolicy)),
                                              config, seed);
  trainer->set_reference_us(TwoChainsOptimumUs(6));
  return trainer;
}

// A chain of 6 ops on a slow and a fast device: the optimum (everything on the fast
// one) is one of 2^8 placements; PPO must find it and make it the greedy plan.
TEST(PpoTest, LearnsToUseTheFastDevice) {
  ConfigureTorchThreads(1);
  Toy toy = testing::ToyOn(TwoChains(3), SlowAndFastCluster());
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

// A plan to imitate: the ops of the second half of the graph on device 1.
Plan SecondHalfOnDeviceOne(const Graph& graph) {
  Plan plan = DefaultPlan(graph);
  for (OpId o = graph.num_ops() / 2; o < graph.num_ops(); ++o) plan.device[static_cast<size_t>(o)] = 1;
  return plan;
}

TEST(PpoTest, WarmStartImitatesTheOfferedPlan) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  PpoConfig config = ToyPpo();
  config.warm_start_steps = 100;
  config.warm_start_target = 0.95;
  auto trainer = MakeTrainer(toy, &batch, 5, config);
  const Plan target = SecondHalfOnDeviceOne(toy.graph);
  ASSERT_TRUE(trainer->OfferPlan(target, PlanScore::Of(*toy.sim.Simulate(target))));
  EXPECT_GE(trainer->WarmStart(), 0.95);
  EXPECT_EQ(trainer->GreedyPlan().device, target.device);
}

// TrainerStepStats::units_off: the fraction of units a step's samples place
// elsewhere than the best plan: many for an untrained policy on two devices,
// a few percent once the policy imitates the plan.
TEST(PpoTest, SamplesMoveCloserToTheBestPlanAsThePolicyImitatesIt) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  PpoConfig config = ToyPpo();
  config.warm_start_steps = 100;
  config.warm_start_target = 0.95;
  auto fresh = MakeTrainer(toy, &batch, 5, config);
  EXPECT_EQ(fresh->Step().units_off, -1);  // no best plan to compare with yet
  auto trainer = MakeTrainer(toy, &batch, 5, config);
  const Plan target = SecondHalfOnDeviceOne(toy.graph);
  ASSERT_TRUE(trainer->OfferPlan(target, PlanScore::Of(*toy.sim.Simulate(target))));
  const PpoStepStats before = trainer->Step();
  EXPECT_GT(before.units_off, 0.1);
  EXPECT_LE(before.units_off, 1.0);
  ASSERT_GE(trainer->WarmStart(), 0.95);
  const PpoStepStats after = trainer->Step();
  EXPECT_GE(after.units_off, 0.0);
  EXPECT_LT(after.units_off, 0.2);
  EXPECT_LT(after.units_off, before.units_off);
}

// Two units of 60 ops each: the warm start must place the units as the plan does,
// not only schedule and fuse its ops as it does. A mean over all decisions (120
// scheduling, the fusion flags, 2 placements) reached 0.95 with the units still
// placed at random; per task, the samples after the warm start place almost every
// unit where the plan does.
TEST(PpoTest, WarmStartImitatesThePlacementOfFewLargeUnits) {
  ConfigureTorchThreads(1);
  Toy toy;
  toy.graph = TwoChains(60);
  toy.sim = std::move(Simulator::Create(toy.graph, toy.cluster, PerfectCostModel()).value());
  const Plan target = SecondHalfOnDeviceOne(toy.graph);
  PolicyInputOptions options;
  options.max_units = 2;
  options.split_by_device = target.device;
  toy.input = *BuildPolicyInput(toy.graph, toy.cluster, toy.sim.cost_model(), options);
  ASSERT_LE(toy.input.num_units, 4);
  BatchSimulator batch(toy.sim, 1);
  PpoConfig config = ToyPpo();
  config.warm_start_steps = 100;
  config.warm_start_target = 0.95;
  // Every task decided (kSmallGoPolicy places only).
  auto trainer = std::make_unique<PpoTrainer>(
      toy.sim, &batch, toy.input,
      GoPolicy(*GoPolicyConfig::FromString(testing::kSmallGoNetwork)),
      config, 5);
  trainer->set_reference_us(TwoChainsOptimumUs(60));
  ASSERT_TRUE(trainer->OfferPlan(target, PlanScore::Of(*toy.sim.Simulate(target))));
  ASSERT_GE(trainer->WarmStart(), 0.95);
  EXPECT_EQ(trainer->GreedyPlan().device, target.device);
  const PpoStepStats after = trainer->Step();
  EXPECT_GE(after.units_off, 0.0);
  EXPECT_LT(after.units_off, 0.15);
}

// With frozen_trunk (the default) the warm start freezes the trunk: later steps
// change the heads' weights and no other; without it, the warm start trains the
// whole network. A checkpoint records the frozen trunk, and the resumed trainer
// (its trunk recomputed from the restored weights) takes the same next step.
// A plan offered from outside whose priorities no actions build (its actions get the
// critical-path priorities back): a resumed trainer has that very plan as its best.
TEST(PpoTest, AnOfferedBestPlanResumesAsItself) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  auto trainer = MakeTrainer(toy, &batch, 5);
  Plan offered = DefaultPlan(toy.graph);
  for (OpId o = 0; o < toy.graph.num_ops(); ++o) offered.priority[static_cast<size_t>(o)] = (o * 7) % 5;
  const PlanScore score = PlanScore::Of(*toy.sim.Simulate(offered));
  ASSERT_TRUE(trainer->OfferPlan(offered, score));
  ASSERT_NE(trainer->GreedyPlan().priority, offered.priority);  // not what actions build
  const testing::ScratchDir scratch("ppo_offered");
  const std::string dir = scratch.path();
  ASSERT_TRUE(trainer->SaveCheckpoint(dir).ok());
  auto resumed = MakeTrainer(toy, &batch, 5);
  const Status loaded = resumed->LoadCheckpoint(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_EQ(resumed->best_plan().priority, offered.priority);
  EXPECT_EQ(resumed->best_plan().device, offered.device);
  EXPECT_EQ(resumed->best_score().step_time_us, score.step_time_us);
  std::remove((dir + "/ppo_best_plan.json").c_str());
  const Status missing = MakeTrainer(toy, &batch, 5)->LoadCheckpoint(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("ppo_best_plan.json"), std::string::npos) << missing.message();
}

// A teacher's plan has no priority levels of its own (PlanToActions reads every op at
// level 0). Offered as it is, the imitation teaches the scheduling head level 0 for
// every op; offered with sampled levels, the plan's copy in each batch takes the
// step's first sample's levels: its placement is imitated as much, and the head goes
// on sampling other levels. The mark survives a checkpoint (the resumed trainer takes
// the same next step) and ends when a plan of the trainer's own becomes the best.
TEST(PpoTest, AnOfferedPlanWithSampledLevelsTeachesItsPlacementNotLevelZero) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  PpoConfig config = ToyPpo();
  config.include_best = true;
  auto make = [&] {
    const std::string scheduling = std::string(testing::kSmallGoNetwork) + ",tasks=placement+scheduling,level_prior=0";
    auto t = std::make_unique<PpoTrainer>(toy.sim, &batch, toy.input, GoPolicy(*GoPolicyConfig::FromString(scheduling)),
                                          config, 5);
    t->set_reference_us(TwoChainsOptimumUs(6));
    return t;
  };
  // Each chain on a device of its own: no plan is faster, so the offered plan stays the best.
  const Plan target = SecondHalfOnDeviceOne(toy.graph);
  const PlanScore score = PlanScore::Of(*toy.sim.Simulate(target));
  ASSERT_DOUBLE_EQ(score.step_time_us, TwoChainsOptimumUs(6));
  auto level0 = make(), sampled = make();
  ASSERT_TRUE(level0->OfferPlan(target, score));
  ASSERT_TRUE(sampled->OfferPlanWithSampledLevels(target, score));
  EXPECT_FALSE(level0->best_levels_sampled());
  PpoStepStats a0, b0, a, b;
  for (int i = 0; i < 20; ++i) {
    a = level0->Step();
    b = sampled->Step();
    if (i == 0) a0 = a, b0 = b;
    if (std::getenv("GRAPHOPT_TEST_VERBOSE")) {
      std::printf("step %d levels off %.3f / %.3f, units off %.3f / %.3f\n", i, a.levels_off, b.levels_off,
                  a.units_off, b.units_off);
    }
  }
  EXPECT_TRUE(sampled->best_levels_sampled());
  EXPECT_EQ(a0.levels_off, b0.levels_off);  // the same first samples
  EXPECT_LT(a.levels_off, 0.5 * a0.levels_off);
  EXPECT_GT(b.levels_off, 0.8 * b0.levels_off);
  EXPECT_LT(b.units_off, 0.5 * b0.units_off);  // the placement is imitated all the same

  const testing::ScratchDir scratch("ppo_sampled_levels");
  const std::string dir = scratch.path();
  ASSERT_TRUE(sampled->SaveCheckpoint(dir).ok());
  auto resumed = make();
  const Status loaded = resumed->LoadCheckpoint(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  EXPECT_TRUE(resumed->best_levels_sampled());
  const PpoStepStats next = sampled->Step(), again = resumed->Step();
  EXPECT_EQ(next.loss, again.loss);
  EXPECT_EQ(next.mean_reward, again.mean_reward);

  // A plan a sample beats: the sample's actions, levels included, become the best.
  auto beaten = make();
  const Plan slow = DefaultPlan(toy.graph);
  ASSERT_TRUE(beaten->OfferPlanWithSampledLevels(slow, PlanScore::Of(*toy.sim.Simulate(slow))));
  bool improved = false;
  for (int i = 0; i < 10 && !improved; ++i) improved = beaten->Step().improved;
  ASSERT_TRUE(improved);
  EXPECT_FALSE(beaten->best_levels_sampled());
}

TEST(PpoTest, FrozenTrunkTrainsTheHeadsAloneAndResumesExactly) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  const Plan target = SecondHalfOnDeviceOne(toy.graph);
  auto snapshot = [](GoPolicy& policy) {
    std::map<std::string, torch::Tensor> weights;
    for (const auto& item : policy->named_parameters()) weights[item.key()] = item.value().detach().clone();
    return weights;
  };
  auto is_head = [](GoPolicy& policy, const torch::Tensor& p) {
    for (const torch::Tensor& h : policy->HeadParameters()) {
      if (h.is_same(p)) return true;
    }
    return false;
  };
  for (const bool frozen : {true, false}) {
    PpoConfig config = ToyPpo();
    config.include_best = true;
    config.warm_start_steps = 100;
    config.warm_start_target = 0.95;
    config.frozen_trunk = frozen;
    auto trainer = MakeTrainer(toy, &batch, 5, config);
    ASSERT_TRUE(trainer->OfferPlan(target, PlanScore::Of(*toy.sim.Simulate(target))));
    const auto before = snapshot(trainer->policy());
    ASSERT_GE(trainer->WarmStart(), 0.95);
    EXPECT_EQ(trainer->trunk_frozen(), frozen);
    trainer->Step();
    int trunk_changed = 0, heads_changed = 0;
    for (const auto& item : trainer->policy()->named_parameters()) {
      const bool changed = !torch::equal(before.at(item.key()), item.value());
      (is_head(trainer->policy(), item.value()) ? heads_changed : trunk_changed) += changed;
    }
    EXPECT_GT(heads_changed, 0);
    if (frozen) {
      EXPECT_EQ(trunk_changed, 0);
    } else {
      EXPECT_GT(trunk_changed, 0);
    }
    if (!frozen) continue;
    const testing::ScratchDir scratch("ppo_frozen");
    const std::string dir = scratch.path();
    ASSERT_TRUE(trainer->SaveCheckpoint(dir).ok());
    auto resumed = MakeTrainer(toy, &batch, 5, config);
    const Status loaded = resumed->LoadCheckpoint(dir);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    EXPECT_TRUE(resumed->trunk_frozen());
    const PpoStepStats a = trainer->Step();
    const PpoStepStats b = resumed->Step();
    EXPECT_EQ(a.mean_reward, b.mean_reward);
    EXPECT_EQ(a.loss, b.loss);
    EXPECT_EQ(trainer->GreedyPlan().device, resumed->GreedyPlan().device);
  }
}

TEST(PpoTest, TrunkEveryTrainsTheTrunkAtEveryKthStepAndResumesExactly) {
  ConfigureTorchThreads(1);
  Toy toy;
  BatchSimulator batch(toy.sim, 1);
  auto snapshot = [](GoPolicy& policy) {
    std::map<std::string, torch::Tensor> weights;
    for (const auto& item : policy->named_parameters()) weights[item.key()] = item.value().detach().clone();
    return weights;
  };
  // The parameters a step changed: {trunk, heads}.
  auto changed = [](PpoTrainer& trainer, const std::map<std::string, torch::Tensor>& before) {
    const std::vector<torch::Tensor> heads = trainer.policy()->HeadParameters();
    std::pair<int, int> n{0, 0};
    for (const auto& item : trainer.policy()->named_parameters()) {
      if (torch::equal(before.at(item.key()), item.value())) continue;
      const bool head = std::any_of(heads.begin(), heads.end(), [&](const torch::Tensor& h) { return h.is_same(item.value()); });
      ++(head ? n.second : n.first);
    }
    return n;
  };
  PpoConfig config = ToyPpo();
  config.trunk_every = 3;
  auto trainer = MakeTrainer(toy, &batch, 5, config);
  const testing::ScratchDir scratch("ppo_trunk_every");
  const std::string dir = scratch.path();
  for (int step = 0; step < 7; ++step) {
    const auto before = snapshot(trainer->policy());
    trainer->Step();
    const auto [trunk, heads] = changed(*trainer, before);
    EXPECT_GT(heads, 0) << "step " << step;
    if (step % 3 == 0) {
      EXPECT_GT(trunk, 0) << "step " << step;
    } else {
      EXPECT_EQ(trunk, 0) << "step " << step << " is the heads' alone";
    }
    if (step == 3) {
      ASSERT_TRUE(trainer->SaveCheckpoint(dir).ok());
    }
  }
  EXPECT_TRUE(FileExists(dir + "/trunk.pt"));

  // Resumed after step 3 (a trunk step), the two heads-only steps that follow use the
  // saved trunk output and continue exactly.
  auto again = MakeTrainer(toy, &batch, 5, config);
  auto resumed = MakeTrainer(toy, &batch, 5, config);
  for (int step = 0; step < 4; ++step) again->Step();
  const Status loaded = resumed->LoadCheckpoint(dir);
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  for (int step = 4; step < 7; ++step) {
    const PpoStepStats a = again->Step();
    const PpoStepStats b = resumed->Step();
    EXPECT_EQ(a.mean_reward, b.mean_reward) << "step " << step;
    EXPECT_EQ(a.loss, b.loss) << "step " << step;
  }
  for (const auto& item : again->policy()->named_parameters()) {
    EXPECT_TRUE(torch::equal(item.value(), resumed->policy()->named_parameters()[item.key()])) << item.key();
  }

  // A state that says the trunk output was saved needs trunk.pt, of this graph's shape.
  std::remove((dir + "/trunk.pt").c_str());
  Status missing = MakeTrainer(toy, &batch, 5, config)->LoadCheckpoint(dir);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("trunk.pt"), std::string::npos) << missing.message();
  {
    torch::serialize::OutputArchive archive;
    archive.write("node_states", torch::zeros({toy.input.num_ops + 1, trainer->policy()->config().hidden}));
    archive.save_to(dir + "/trunk.pt");
  }
  Status wrong = MakeTrainer(toy, &batch, 5, config)->LoadCheckpoint(dir);
  EXPECT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("node_states has shape"), std::string::npos) << wrong.message();
}

// set_coupled_fraction: an untrained policy's independent samples of 13 units almost
// never put them all on one device; its coupled samples (one shared quantile) mostly
// do, so the first batch holds the consolidated plan. The fraction is not state: the
// same seed and fraction give the same batch.
TEST(PpoTest, CoupledSamplesMoveTheUnitsTogether) {
  ConfigureTorchThreads(1);
  Toy toy = testing::CostlyCutsToy();
  ASSERT_EQ(toy.input.num_units, 13);  // the input op among them
  BatchSimulator batch(toy.sim, 1);
  const double consolidated = toy.sim.Simulate(DefaultPlan(toy.graph))->step_time_us;
  ASSERT_EQ(toy.sim.Simulate(DefaultPlan(toy.graph, 1))->step_time_us, consolidated);
  auto first_step = [&](double fraction) {
    auto trainer = MakeTrainer(toy, &batch, 5);
    trainer->set_coupled_fraction(fraction);
    return trainer->Step();
  };
  const PpoStepStats independent = first_step(0), coupled = first_step(1), half = first_step(0.5);
  EXPECT_GT(independent.best_step_us_in_batch, consolidated + 50);
  EXPECT_EQ(coupled.best_step_us_in_batch, consolidated);
  EXPECT_EQ(half.best_step_us_in_batch, consolidated);
  EXPECT_EQ(first_step(0.5).mean_reward, half.mean_reward);
  EXPECT_NE(half.mean_reward, coupled.mean_reward);
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

}  // namespace
}  // namespace graphopt
