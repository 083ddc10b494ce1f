// PpoConfig::unit_bias and fusion_bias: once the trunk is frozen, a learned placement
// logit per unit and device, and a learned fusion logit per op, let the heads fit and
// move each unit's placement and each op's fusion flag on its own.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/files.h"
#include "rl/ppo.h"
#include "rl_test_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace {

using testing::kSmallGoPolicy;
using testing::PaperCluster;
using testing::PerfectCostModel;
using testing::TwoChains;

// Two chains of 48 ops, one unit per op (98 with the inputs), on four devices.
struct ManyUnits {
  Graph graph = TwoChains(48);
  Cluster cluster = PaperCluster(4);
  Simulator sim = std::move(Simulator::Create(graph, cluster, PerfectCostModel()).value());
  PolicyInput input = *BuildPolicyInput(graph, cluster, sim.cost_model());
};

// A placement with no pattern a unit's position explains: neighbours rarely share a
// device.
Plan ScatteredPlan(const Graph& graph) {
  Plan plan = DefaultPlan(graph);
  for (OpId o = 0; o < graph.num_ops(); ++o) plan.device[static_cast<size_t>(o)] = (o * 7 + o / 3) % 4;
  return plan;
}

PpoConfig FrozenConfig(bool unit_bias) {
  PpoConfig c;
  c.samples_per_step = 8;
  c.frozen_trunk = true;
  c.unit_bias = unit_bias;
  c.warm_start_steps = 60;
  c.warm_start_target = 0.95;
  return c;
}

std::unique_ptr<PpoTrainer> MakeTrainer(ManyUnits& toy, BatchSimulator* batch, PpoConfig config) {
  auto trainer = std::make_unique<PpoTrainer>(toy.sim, batch, toy.input,
                                              GoPolicy(*GoPolicyConfig::FromString(kSmallGoPolicy)), config, 7);
  trainer->set_reference_us(1000);
  return trainer;
}

// Warm-starts `trainer` on `target`; returns the fit (mean probability per decision).
double WarmStartOn(PpoTrainer& trainer, const Simulator& sim, const Plan& target) {
  EXPECT_TRUE(trainer.OfferPlan(target, PlanScore::Of(*sim.Simulate(target))));
  return trainer.WarmStart();
}

// Saves `trainer` to `dir`, resumes a new trainer (`make()`) from it and checks that
// the two take the same next two steps; returns the resumed trainer.
template <typename Make>
std::unique_ptr<PpoTrainer> ResumeAndCompare(PpoTrainer& trainer, const std::string& dir, Make make) {
  EXPECT_TRUE(trainer.SaveCheckpoint(dir).ok());
  auto resumed = make();
  const Status loaded = resumed->LoadCheckpoint(dir);
  EXPECT_TRUE(loaded.ok()) << loaded.message();
  for (int i = 0; i < 2; ++i) {
    const PpoStepStats a = trainer.Step();
    const PpoStepStats b = resumed->Step();
    EXPECT_EQ(a.mean_reward, b.mean_reward);
    EXPECT_EQ(a.loss, b.loss);
  }
  return resumed;
}

// The warm start on a frozen trunk: in 60 steps the heads alone fit a scattered
// placement of 98 units to 0.28 mean probability per unit (26 units: 0.96); with the
// unit bias to 0.95, and the greedy plan is that placement.
TEST(PpoBiasTest, FitsAPlacementTheHeadsOnAFrozenTrunkDoNot) {
  ConfigureTorchThreads(1);
  ManyUnits toy;
  ASSERT_GE(toy.input.num_units, 96);
  BatchSimulator batch(toy.sim, 1);
  const Plan target = ScatteredPlan(toy.graph);
  double fit[2] = {0, 0};
  for (const bool bias : {false, true}) {
    auto trainer = MakeTrainer(toy, &batch, FrozenConfig(bias));
    fit[bias] = WarmStartOn(*trainer, toy.sim, target);
    EXPECT_TRUE(trainer->trunk_frozen());
    if (bias) {
      EXPECT_EQ(trainer->GreedyPlan().device, target.device);
    }
  }
  EXPECT_GE(fit[1], 0.95);
  EXPECT_LT(fit[0], 0.5);
}

// A checkpoint holds the bias (unit_bias.pt): the resumed trainer takes the same next
// step; a bias of another shape or a missing file is refused, naming the file.
TEST(PpoBiasTest, ResumesExactlyAndRefusesAWrongBias) {
  ConfigureTorchThreads(1);
  ManyUnits toy;
  BatchSimulator batch(toy.sim, 1);
  const Plan target = ScatteredPlan(toy.graph);
  const PpoConfig config = FrozenConfig(true);
  auto trainer = MakeTrainer(toy, &batch, config);
  WarmStartOn(*trainer, toy.sim, target);
  trainer->Step();
  const testing::ScratchDir scratch("ppo_unit_bias");
  const std::string dir = scratch.path();
  auto resumed = ResumeAndCompare(*trainer, dir, [&] { return MakeTrainer(toy, &batch, config); });
  ASSERT_TRUE(FileExists(dir + "/unit_bias.pt"));
  EXPECT_EQ(trainer->GreedyPlan().device, resumed->GreedyPlan().device);

  // A bias saved for another graph: two chains of 6 have fewer units.
  {
    ManyUnits other;
    other.graph = TwoChains(6);
    other.sim = std::move(Simulator::Create(other.graph, other.cluster, PerfectCostModel()).value());
    other.input = *BuildPolicyInput(other.graph, other.cluster, other.sim.cost_model());
    BatchSimulator other_batch(other.sim, 1);
    auto small = MakeTrainer(other, &other_batch, config);
    const Plan small_target = ScatteredPlan(other.graph);
    WarmStartOn(*small, other.sim, small_target);
    const testing::ScratchDir small_dir_scratch("ppo_unit_bias_small");
    const std::string small_dir = small_dir_scratch.path();
    ASSERT_TRUE(small->SaveCheckpoint(small_dir).ok());
    ASSERT_EQ(std::rename((small_dir + "/unit_bias.pt").c_str(), (dir + "/unit_bias.pt").c_str()), 0);
  }
  const Status wrong = MakeTrainer(toy, &batch, config)->LoadCheckpoint(dir);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.message().find("unit_bias.pt: unit_bias has shape"), std::string::npos) << wrong.message();
  std::remove((dir + "/unit_bias.pt").c_str());
  const Status missing = MakeTrainer(toy, &batch, config)->LoadCheckpoint(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("unit_bias.pt"), std::string::npos) << missing.message();
}

// Without a frozen trunk there is no bias: the whole network learns as before, and
// its checkpoint has no bias file.
TEST(PpoBiasTest, OnlyWithAFrozenTrunk) {
  ConfigureTorchThreads(1);
  ManyUnits toy;
  BatchSimulator batch(toy.sim, 1);
  PpoConfig config = FrozenConfig(true);
  config.frozen_trunk = false;
  auto trainer = MakeTrainer(toy, &batch, config);
  WarmStartOn(*trainer, toy.sim, ScatteredPlan(toy.graph));
  EXPECT_FALSE(trainer->trunk_frozen());
  trainer->Step();
  const testing::ScratchDir scratch("ppo_unit_bias_whole");
  const std::string dir = scratch.path();
  ASSERT_TRUE(trainer->SaveCheckpoint(dir).ok());
  EXPECT_FALSE(FileExists(dir + "/unit_bias.pt"));
  auto resumed = MakeTrainer(toy, &batch, config);
  const Status loaded = resumed->LoadCheckpoint(dir);
  EXPECT_TRUE(loaded.ok()) << loaded.message();
}

// Two chains of 48 elementwise ops (each may fuse into the one before it), on one
// device, with a policy deciding fusion alone.
struct ManyFusions {
  Graph graph = ReluChains(48);
  Cluster cluster = PaperCluster(1);
  Simulator sim = std::move(Simulator::Create(graph, cluster, PerfectCostModel()).value());
  PolicyInput input = *BuildPolicyInput(graph, cluster, sim.cost_model());

  static Graph ReluChains(int length) {
    testing::PaperGraph g("relu-chains");
    for (int c = 0; c < 2; ++c) {
      TensorId t = g.Input("in" + std::to_string(c), 1000);
      for (int i = 0; i < length; ++i) {
        t = g.Out(g.Add("c" + std::to_string(c) + "_" + std::to_string(i), OpKind::kRelu, {t}, {1000}, 0, 1000, 1000));
      }
    }
    return std::move(g.graph());
  }
};

// Fusion flags with no pattern an op's position explains (the first op of a chain has
// no producer that runs a kernel: never flagged).
Plan ScatteredFusion(const Graph& graph) {
  Plan plan = DefaultPlan(graph);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    plan.fuse_with_producer[static_cast<size_t>(o)] = CanFuseIntoProducer(graph, o).ok && (o * 7 + o / 3) % 2 == 0;
  }
  return plan;
}

std::unique_ptr<PpoTrainer> MakeFusionTrainer(ManyFusions& toy, BatchSimulator* batch, PpoConfig config) {
  auto trainer = std::make_unique<PpoTrainer>(
      toy.sim, batch, toy.input,
      GoPolicy(*GoPolicyConfig::FromString(std::string(testing::kSmallGoNetwork) + ",tasks=fusion")),
      config, 7);
  trainer->set_reference_us(1000);
  return trainer;
}

PpoConfig FusionConfig(bool fusion_bias) {
  PpoConfig c = FrozenConfig(false);
  c.fusion_bias = fusion_bias;
  return c;
}

// The warm start on a frozen trunk: the fusion head alone fits scattered flags on 94
// fusable ops to 0.55 mean probability per decision; with the fusion bias to
// 0.95, and the greedy plan has those flags.
TEST(PpoBiasTest, FitsFusionFlagsTheHeadsOnAFrozenTrunkDoNot) {
  ConfigureTorchThreads(1);
  ManyFusions toy;
  BatchSimulator batch(toy.sim, 1);
  const Plan target = ScatteredFusion(toy.graph);
  ASSERT_TRUE(ValidatePlan(toy.graph, toy.cluster, target).ok());
  double fit[2] = {0, 0};
  for (const bool bias : {false, true}) {
    auto trainer = MakeFusionTrainer(toy, &batch, FusionConfig(bias));
    fit[bias] = WarmStartOn(*trainer, toy.sim, target);
    EXPECT_TRUE(trainer->trunk_frozen());
    if (bias) {
      EXPECT_EQ(trainer->GreedyPlan().fuse_with_producer, target.fuse_with_producer);
    }
  }
  EXPECT_GE(fit[1], 0.95);
  EXPECT_LT(fit[0], 0.75);
}

// A checkpoint holds the fusion bias (fusion_bias.pt): the resumed trainer takes the
// same next steps; a missing file is refused, naming it.
TEST(PpoBiasTest, ResumesTheFusionBiasExactly) {
  ConfigureTorchThreads(1);
  ManyFusions toy;
  BatchSimulator batch(toy.sim, 1);
  const Plan target = ScatteredFusion(toy.graph);
  const PpoConfig config = FusionConfig(true);
  auto trainer = MakeFusionTrainer(toy, &batch, config);
  WarmStartOn(*trainer, toy.sim, target);
  trainer->Step();
  const testing::ScratchDir scratch("ppo_fusion_bias");
  const std::string dir = scratch.path();
  auto resumed = ResumeAndCompare(*trainer, dir, [&] { return MakeFusionTrainer(toy, &batch, config); });
  ASSERT_TRUE(FileExists(dir + "/fusion_bias.pt"));
  EXPECT_FALSE(FileExists(dir + "/unit_bias.pt"));
  EXPECT_EQ(trainer->GreedyPlan().fuse_with_producer, resumed->GreedyPlan().fuse_with_producer);
  // A trainer without the fusion bias refuses the state that has one.
  const Status other = MakeFusionTrainer(toy, &batch, FusionConfig(false))->LoadCheckpoint(dir);
  EXPECT_FALSE(other.ok());
  std::remove((dir + "/fusion_bias.pt").c_str());
  const Status missing = MakeFusionTrainer(toy, &batch, config)->LoadCheckpoint(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("fusion_bias.pt"), std::string::npos) << missing.message();
}

}  // namespace
}  // namespace graphopt
