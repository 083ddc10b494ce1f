// Tests of zero-shot planning (rl/zero_shot.h) with coupled samples: they come after
// the independent ones, so adding them leaves those and the greedy plan as they were
// and can only make the plan faster; the same options give the same plan.
#include "rl/zero_shot.h"

#include <gtest/gtest.h>

#include <string>

#include "policy/go_policy.h"
#include "rl_test_util.h"

namespace graphopt {
namespace {

using testing::RemoveDir;
using testing::ScratchDir;

class ZeroShotCoupledTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir("zero_shot_coupled");
    GoPolicy policy(*GoPolicyConfig::FromString(testing::kSmallGoPolicy));
    ASSERT_TRUE(SaveGoPolicy(policy, path()).ok());
  }
  void TearDown() override { RemoveDir(dir_); }
  std::string path() const { return dir_ + "/policy.pt"; }
  ZeroShotOptions Options(int samples, int coupled) const {
    ZeroShotOptions o;
    o.samples = samples;
    o.coupled_samples = coupled;
    o.units_per_device = 0;
    o.threads = 1;
    o.seed = 4;
    return o;
  }
  testing::ChainsToy toy_;
  std::string dir_;
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

}  // namespace
}  // namespace graphopt
