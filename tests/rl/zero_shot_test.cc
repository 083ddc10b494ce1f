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
  EXPECT_EQ(budgeted->best_sample_score.step_time_us, plain->best_sample_score.step_time_us);
  // The coupled samples stop once past the best first plan, budgeted ones included:
  // the same best, or one stopped past that time (a lower bound of its own).
  const double stop = budgeted->later_plans_stop_after_us;
  if (plain->best_coupled_score.step_time_us <= stop) {
    EXPECT_EQ(budgeted->best_coupled_score.step_time_us, plain->best_coupled_score.step_time_us);
  } else {
    EXPECT_GT(budgeted->best_coupled_score.step_time_us, stop);
    EXPECT_LE(budgeted->best_coupled_score.step_time_us, plain->best_coupled_score.step_time_us);
  }
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

// The toy fits, so the plans after the independent samples stop at their overflow;
// the plan chosen is scored as a full simulation scores it. With too little memory
// for any plan, every plan runs in full.
TEST_F(ZeroShotCoupledTest, LaterPlansStopAtTheirOverflowOnlyOnceAPlanFits) {
  auto z = ZeroShotPlan(toy_.sim, path(), Options(4, 12));
  ASSERT_TRUE(z.ok()) << z.status().message();
  EXPECT_TRUE(z->later_plans_stop_at_oom);
  auto full = toy_.sim.Simulate(z->plan);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ(PlanScore::Of(*full).step_time_us, z->score.step_time_us);
  auto tiny = Simulator::Create(toy_.graph, testing::PaperCluster(2, /*memory_bytes=*/1), testing::PerfectCostModel());
  ASSERT_TRUE(tiny.ok()) << tiny.status().message();
  auto oom = ZeroShotPlan(*tiny, path(), Options(4, 12));
  ASSERT_TRUE(oom.ok()) << oom.status().message();
  EXPECT_FALSE(oom->later_plans_stop_at_oom);
  EXPECT_TRUE(oom->score.oom);
  ASSERT_TRUE(oom->best_coupled_score.scored());
  EXPECT_GT(oom->best_coupled_score.step_time_us, 0);
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

// Stopping the later plans once they run past the best first plan's time changes no
// choice: the same plan and score as simulating every plan in full, the first plans'
// scores unchanged, and a later group's best either the same or stopped past that time.
TEST_F(ZeroShotCoupledTest, StoppingSlowerPlansChoosesWhatFullSimulationsChoose) {
  ZeroShotOptions full_options = Options(4, 24);
  full_options.stop_slower = false;
  auto full = ZeroShotPlan(toy_.sim, path(), full_options);
  auto stopped = ZeroShotPlan(toy_.sim, path(), Options(4, 24));
  ASSERT_TRUE(full.ok() && stopped.ok());
  EXPECT_EQ(full->later_plans_stop_after_us, 0);
  ASSERT_GT(stopped->later_plans_stop_after_us, 0);
  const double first_best = std::min(stopped->greedy_score.step_time_us, stopped->best_sample_score.step_time_us);
  EXPECT_EQ(stopped->later_plans_stop_after_us, first_best);
  EXPECT_EQ(stopped->plan.device, full->plan.device);
  EXPECT_EQ(stopped->score.step_time_us, full->score.step_time_us);
  EXPECT_EQ(stopped->greedy_score.step_time_us, full->greedy_score.step_time_us);
  EXPECT_EQ(stopped->best_sample_score.step_time_us, full->best_sample_score.step_time_us);
  const double full_coupled = full->best_coupled_score.step_time_us;
  const double stopped_coupled = stopped->best_coupled_score.step_time_us;
  if (full_coupled <= first_best) {
    EXPECT_EQ(stopped_coupled, full_coupled);
  } else {
    EXPECT_GT(stopped_coupled, first_best);
    EXPECT_LE(stopped_coupled, full_coupled);
  }
}

// The memory-budgeted plans count among the first plans: the later ones (coupled,
// single-device) stop past the best of the greedy plan, the samples and the budgeted
// plans (on Transformer-XL-8 only budgeted plans fit, and every other plan ran in full
// before), and the plan chosen is still the one full simulations choose.
TEST_F(ZeroShotCoupledTest, BudgetedPlansAreAmongTheFirstPlans) {
  ZeroShotOptions o = Options(4, 24);
  o.budgeted_plans = 8;
  ZeroShotOptions full_options = o;
  full_options.stop_slower = false;
  auto z = ZeroShotPlan(toy_.sim, path(), o);
  auto full = ZeroShotPlan(toy_.sim, path(), full_options);
  ASSERT_TRUE(z.ok() && full.ok());
  const double budgeted = z->best_budgeted_score.step_time_us;
  ASSERT_LT(budgeted, std::min(z->greedy_score.step_time_us, z->best_sample_score.step_time_us));  // the case of interest
  EXPECT_TRUE(z->later_plans_stop_at_oom);
  EXPECT_EQ(z->later_plans_stop_after_us, budgeted);
  EXPECT_TRUE(z->from_budgeted);
  EXPECT_EQ(z->plan.device, full->plan.device);
  EXPECT_EQ(z->score.step_time_us, full->score.step_time_us);
  EXPECT_EQ(z->best_coupled_score.step_time_us > budgeted, full->best_coupled_score.step_time_us > budgeted);
}

}  // namespace
}  // namespace graphopt
