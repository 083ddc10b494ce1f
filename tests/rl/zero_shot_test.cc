// Tests of zero-shot planning (rl/zero_shot.h) with coupled samples and single-device
// plans: they come after the independent samples, so adding them leaves those and the
// greedy plan as they were and can only make the plan faster; the same options give
// the same plan; the single-device plans put every op on the fastest accelerator.
#include "rl/zero_shot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "policy/go_policy.h"
#include "rl_test_util.h"
#include "sim/cluster.h"

namespace graphopt {
namespace {

using testing::ScratchDir;

class ZeroShotCoupledTest : public ::testing::Test {
 protected:
  void SetUp() override {
    GoPolicy policy(*GoPolicyConfig::FromString(testing::kSmallGoPolicy));
    ASSERT_TRUE(SaveGoPolicy(policy, path()).ok());
  }
  std::string path() const { return dir_.Path("policy.pt"); }
  ZeroShotOptions Options(int samples, int coupled) const {
    ZeroShotOptions o;
    o.samples = samples;
    o.coupled_samples = coupled;
    o.single_device_plans = 0;
    o.budgeted_plans = 0;
    o.units_per_device = 0;
    o.threads = 1;
    o.seed = 4;
    return o;
  }
  testing::ChainsToy toy_;
  const ScratchDir dir_{"zero_shot_coupled"};
};

// A group's best as the full simulations score it, or marked stopped and no better
// than the plan chosen.
void ExpectGroupAsFull(const char* group, const PlanScore& score, bool stopped, const PlanScore& full,
                       const PlanScore& chosen) {
  SCOPED_TRACE(group);
  EXPECT_EQ(score.scored(), full.scored());
  if (stopped) {
    EXPECT_FALSE(score.BetterThan(chosen)) << score.ToString() << " vs " << chosen.ToString();
  } else {
    EXPECT_EQ(score.step_time_us, full.step_time_us);
    EXPECT_EQ(score.oom, full.oom);
  }
}

// A run that stops simulations early against the same run with every plan simulated
// in full: the same plan and score, the greedy plan's score the same, and each group's
// best the same or stopped.
void ExpectSameChoiceAsFull(const ZeroShotResult& z, const ZeroShotResult& full) {
  EXPECT_EQ(full.stopped_plans, 0);
  EXPECT_EQ(z.plan.device, full.plan.device);
  EXPECT_EQ(z.plan.priority, full.plan.priority);
  EXPECT_EQ(z.plan.fuse_with_producer, full.plan.fuse_with_producer);
  EXPECT_EQ(z.score.step_time_us, full.score.step_time_us);
  EXPECT_EQ(z.score.oom, full.score.oom);
  EXPECT_EQ(z.num_plans, full.num_plans);
  EXPECT_EQ(z.greedy_score.step_time_us, full.greedy_score.step_time_us);
  ExpectGroupAsFull("samples", z.best_sample_score, z.best_sample_stopped, full.best_sample_score, z.score);
  ExpectGroupAsFull("coupled", z.best_coupled_score, z.best_coupled_stopped, full.best_coupled_score, z.score);
  ExpectGroupAsFull("budgeted", z.best_budgeted_score, z.best_budgeted_stopped, full.best_budgeted_score, z.score);
  ExpectGroupAsFull("single device", z.best_single_device_score, z.best_single_device_stopped,
                    full.best_single_device_score, z.score);
}

ZeroShotOptions InFull(ZeroShotOptions o) {
  o.stop_early = false;
  return o;
}

TEST_F(ZeroShotCoupledTest, CoupledSamplesComeOnTopOfTheOthers) {
  auto plain = ZeroShotPlan(toy_.sim, path(), Options(8, 0));
  auto both = ZeroShotPlan(toy_.sim, path(), Options(8, 8));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_FALSE(plain->best_coupled_score.scored());
  EXPECT_FALSE(plain->from_coupled);
  ASSERT_TRUE(both->best_coupled_score.scored());
  EXPECT_EQ(both->greedy_score.step_time_us, plain->greedy_score.step_time_us);
  EXPECT_EQ(both->best_sample_score.step_time_us, plain->best_sample_score.step_time_us);
  EXPECT_LE(both->score.step_time_us, plain->score.step_time_us);
  EXPECT_EQ(both->from_coupled, both->best_coupled_score.BetterThan(plain->score));
}

TEST_F(ZeroShotCoupledTest, SameOptionsSamePlanAndBadCountsRefused) {
  auto a = ZeroShotPlan(toy_.sim, path(), Options(4, 12));
  auto b = ZeroShotPlan(toy_.sim, path(), Options(4, 12));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->plan.device, b->plan.device);
  EXPECT_EQ(a->score.step_time_us, b->score.step_time_us);
  EXPECT_EQ(a->stopped_plans, b->stopped_plans);  // the stops are the same on every run
  EXPECT_EQ(a->best_coupled_score.step_time_us, b->best_coupled_score.step_time_us);
  // Coupled samples alone (no independent ones) are allowed; a negative count is not.
  EXPECT_TRUE(ZeroShotPlan(toy_.sim, path(), Options(0, 4)).ok());
  auto bad = ZeroShotPlan(toy_.sim, path(), Options(4, -1));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("coupled"), std::string::npos) << bad.status().message();
}

// Two chains on a K40 and an H100 (the host CPU last): the H100 is the fastest
// accelerator, and a plan of it alone beats every plan that uses the K40.
TEST_F(ZeroShotCoupledTest, SingleDevicePlansRunEveryOpOnTheFastestAccelerator) {
  const Cluster mixed = *ClusterFromSpec("1xK40+1xH100");
  auto sim = Simulator::Create(toy_.graph, mixed, testing::PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  EXPECT_EQ(FastestAccelerator(*sim), 1);
  EXPECT_EQ(FastestAccelerator(toy_.sim), 0);  // two equal GPUs: the first
  EXPECT_EQ(FastestAccelerator(*Simulator::Create(toy_.graph, *ClusterFromSpec("1xV100"))), kNoId);
  ZeroShotOptions o = Options(0, 0);
  auto plain = ZeroShotPlan(*sim, path(), o);
  o.single_device_plans = 4;
  auto single = ZeroShotPlan(*sim, path(), o);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(single.ok()) << single.status().message();
  EXPECT_FALSE(plain->best_single_device_score.scored());
  EXPECT_EQ(plain->num_plans, 1);
  EXPECT_EQ(single->num_plans, 5);
  EXPECT_EQ(single->greedy_score.step_time_us, plain->greedy_score.step_time_us);
  ASSERT_TRUE(single->from_single_device) << "greedy " << plain->score.ToString() << ", single-device "
                                          << single->best_single_device_score.ToString();
  EXPECT_LT(single->score.step_time_us, plain->score.step_time_us);
  for (DeviceId d : single->plan.device) EXPECT_EQ(d, 1);
  // The plan returned (made again after the simulations) is the one scored.
  auto again = sim->Simulate(single->plan);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(PlanScore::Of(*again).step_time_us, single->score.step_time_us);
  // On a machine of one accelerator there is no second pass.
  auto one = ZeroShotPlan(*Simulator::Create(toy_.graph, *ClusterFromSpec("1xV100")), path(), o);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->num_plans, 1);
  o.single_device_plans = -1;
  EXPECT_FALSE(ZeroShotPlan(*sim, path(), o).ok());
}

// A machine of CPUs alone (the local cluster) has its CPUs as accelerators: the
// single-device plans run every op on the fastest of them, not on it and the others.
TEST_F(ZeroShotCoupledTest, SingleDevicePlansOnAMachineOfCpusAlone) {
  Device a = ClusterPreset("cpu")->device(0);
  Device b = a;
  a.name = "cpu:0";
  b.name = "cpu:1";
  b.peak_flops *= 2;
  Cluster cpus("two cpus", {a, b});
  Link link;
  link.bandwidth = 10e9;
  link.latency_us = 1;
  cpus.SetAllLinks(link);
  ASSERT_TRUE(cpus.Validate().ok()) << cpus.Validate().message();
  auto sim = Simulator::Create(toy_.graph, cpus, testing::PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  EXPECT_EQ(FastestAccelerator(*sim), 1);
  ZeroShotOptions o = Options(0, 0);
  o.single_device_plans = 4;
  auto single = ZeroShotPlan(*sim, path(), o);
  ASSERT_TRUE(single.ok()) << single.status().message();
  EXPECT_EQ(single->num_plans, 5);
  ASSERT_TRUE(single->best_single_device_score.scored());
  if (single->from_single_device) {
    for (DeviceId d : single->plan.device) EXPECT_EQ(d, 1);
  }
}

// Memory-budgeted plans come after the others like the coupled ones; the toy fits
// easily, so the greedy budgeted placement is the greedy one and only the budgeted
// samples can differ.
TEST_F(ZeroShotCoupledTest, BudgetedPlansComeOnTopOfTheOthers) {
  ZeroShotOptions o = Options(8, 8);
  auto plain = ZeroShotPlan(toy_.sim, path(), o);
  o.budgeted_plans = 8;
  auto budgeted = ZeroShotPlan(toy_.sim, path(), o);
  auto again = ZeroShotPlan(toy_.sim, path(), o);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  ASSERT_TRUE(budgeted.ok() && again.ok()) << budgeted.status().message();
  EXPECT_FALSE(plain->best_budgeted_score.scored());
  ASSERT_TRUE(budgeted->best_budgeted_score.scored());
  EXPECT_EQ(budgeted->num_plans, plain->num_plans + 8);
  EXPECT_EQ(budgeted->greedy_score.step_time_us, plain->greedy_score.step_time_us);
  // The budgeted plans run first, so the samples may stop where they did not.
  auto full = ZeroShotPlan(toy_.sim, path(), InFull(o));
  ASSERT_TRUE(full.ok()) << full.status().message();
  ExpectSameChoiceAsFull(*budgeted, *full);
  EXPECT_LE(budgeted->score.step_time_us, plain->score.step_time_us);
  EXPECT_EQ(budgeted->from_budgeted, budgeted->best_budgeted_score.BetterThan(plain->score));
  // The greedy budgeted plan is among them and is the greedy plan here.
  EXPECT_FALSE(budgeted->greedy_score.BetterThan(budgeted->best_budgeted_score));
  EXPECT_EQ(again->plan.device, budgeted->plan.device);
  EXPECT_EQ(again->score.step_time_us, budgeted->score.step_time_us);
  for (double bad : {0.0, 1.5}) {
    o.memory_budget = bad;
    auto refused = ZeroShotPlan(toy_.sim, path(), o);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.status().message().find("memory budget"), std::string::npos) << refused.status().message();
  }
}

// The toy fits, so the plans after the first that fits stop at their overflow or
// past its time, and the plan chosen is scored as a full simulation scores it. With
// too little memory for any plan, plans stop once they overflow by more than the
// least overflow so far, and the choice is still the full simulations'.
TEST_F(ZeroShotCoupledTest, LaterPlansStopOnlyOnceAPlanFits) {
  auto z = ZeroShotPlan(toy_.sim, path(), Options(4, 12));
  auto z_full = ZeroShotPlan(toy_.sim, path(), InFull(Options(4, 12)));
  ASSERT_TRUE(z.ok() && z_full.ok()) << z.status().message();
  EXPECT_GT(z->stop_after_us, 0);
  ExpectSameChoiceAsFull(*z, *z_full);
  auto full = toy_.sim.Simulate(z->plan);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(PlanScore::Of(*full).step_time_us, z->score.step_time_us);
  // A chain whose weights (resident on their ops' devices) overflow any placement by
  // as much as it leaves on its fullest device.
  testing::PaperGraph g("weights");
  TensorId t = g.Input("in", 100);
  for (int i = 0; i < 8; ++i) {
    t = g.Compute("c" + std::to_string(i), {t, g.Variable("w" + std::to_string(i), 1000)}, 10, 100);
  }
  testing::ChainsToy heavy = testing::ToyOn(std::move(g.graph()), testing::PaperCluster(2, /*memory_bytes=*/1));
  auto oom = ZeroShotPlan(heavy.sim, path(), Options(4, 28));  // two chunks after the greedy plan
  auto oom_full = ZeroShotPlan(heavy.sim, path(), InFull(Options(4, 28)));
  ASSERT_TRUE(oom.ok() && oom_full.ok()) << oom.status().message();
  EXPECT_EQ(oom->stop_after_us, 0);
  EXPECT_GT(oom->stopped_plans, 0);
  EXPECT_TRUE(oom->score.oom);
  EXPECT_EQ(oom->score.overflow_bytes, oom_full->score.overflow_bytes);
  ExpectSameChoiceAsFull(*oom, *oom_full);
}

// The lower rungs are decoded only when no plan fits: none on the toy that fits, eight
// more plans on a machine too small for any, whose verdict can only improve.
TEST_F(ZeroShotCoupledTest, LowerBudgetRungsOnlyWhenNoPlanFits) {
  ZeroShotOptions o = Options(4, 4);
  o.budgeted_plans = 4;
  auto fits = ZeroShotPlan(toy_.sim, path(), o);
  ASSERT_TRUE(fits.ok()) << fits.status().message();
  EXPECT_FALSE(fits->score.oom);
  EXPECT_EQ(fits->lower_rung_plans, 0);
  EXPECT_EQ(fits->num_plans, 1 + 4 + 4 + 4);
  auto tiny = Simulator::Create(toy_.graph, testing::PaperCluster(2, /*memory_bytes=*/1), testing::PerfectCostModel());
  ASSERT_TRUE(tiny.ok()) << tiny.status().message();
  auto none = ZeroShotPlan(*tiny, path(), o);
  o.budgeted_plans = 0;
  auto unbudgeted = ZeroShotPlan(*tiny, path(), o);
  ASSERT_TRUE(none.ok() && unbudgeted.ok()) << none.status().message();
  EXPECT_TRUE(none->score.oom);
  EXPECT_EQ(none->lower_rung_plans, 8);
  EXPECT_EQ(none->num_plans, 1 + 4 + 4 + 4 + 8);
  EXPECT_EQ(unbudgeted->lower_rung_plans, 0);  // no budgeted plans asked for: no lower rungs
  EXPECT_FALSE(unbudgeted->score.BetterThan(none->score));
}

// Stopping plans once they run past the best time so far changes no choice: the same
// plan and score as simulating every plan in full, and each group's best either the
// same or stopped. Budgeted plans among them: they run first, and the best of them is
// the best plan here, so the others stop past its time.
TEST_F(ZeroShotCoupledTest, StoppingSlowerPlansChoosesWhatFullSimulationsChoose) {
  auto stopped = ZeroShotPlan(toy_.sim, path(), Options(4, 24));
  auto full = ZeroShotPlan(toy_.sim, path(), InFull(Options(4, 24)));
  ASSERT_TRUE(full.ok() && stopped.ok());
  EXPECT_EQ(full->stop_after_us, 0);
  EXPECT_GT(stopped->stopped_plans, 0);
  ASSERT_GT(stopped->stop_after_us, 0);
  EXPECT_GE(stopped->stop_after_us, stopped->score.step_time_us);  // a fitting plan's time
  ExpectSameChoiceAsFull(*stopped, *full);
}

TEST_F(ZeroShotCoupledTest, BudgetedPlansAreAmongTheFirstPlans) {
  ZeroShotOptions o = Options(4, 24);
  o.budgeted_plans = 8;
  auto z = ZeroShotPlan(toy_.sim, path(), o);
  auto full = ZeroShotPlan(toy_.sim, path(), InFull(o));
  ASSERT_TRUE(z.ok() && full.ok());
  const double budgeted = z->best_budgeted_score.step_time_us;
  // The case of interest: a budgeted plan beats the others.
  ASSERT_LT(budgeted, std::min(z->greedy_score.step_time_us, full->best_sample_score.step_time_us));
  EXPECT_TRUE(z->from_budgeted);
  EXPECT_GT(z->stopped_plans, 0);
  ExpectSameChoiceAsFull(*z, *full);
}

}  // namespace
}  // namespace graphopt
