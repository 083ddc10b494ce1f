// What a plan's fusion and schedule are worth (eval/task_effects.h), on a graph small
// enough to count by hand (tests/sim's paper machine: 1000 bytes = 1 us, 1 us launch).
#include "eval/task_effects.h"

#include <gtest/gtest.h>

#include "../sim/sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

// in (1000 B) -> a = relu(in) (writes 3000 B) -> r = reduce_sum(a) (writes 1000 B).
// The plan fuses r into a, which the default fusion (elementwise ops only) does not:
// one kernel of 1 + 2 us against two of 1 + 4 us; a's 3000 B never written; peak 2000
// B (in, r) against 4000 B (a with in, then with r).
TEST(TaskEffectsTest, AReductionFusedIsOneLaunchAndTheBytesKept) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const OpId a = g.Add("a", OpKind::kRelu, {in}, {3000}, 0, 1000, 3000);
  g.Add("r", OpKind::kReduceSum, {g.Out(a)}, {1000}, 0, 3000, 1000);
  auto sim = Simulator::Create(g.graph(), PaperCluster(1), PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  Plan plan = DefaultPlan(g.graph());
  plan.fuse_with_producer = {0, 0, 1};
  plan.priority = {0, 2, 1};
  auto e = MeasureTaskEffects(*sim, plan);
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->plan.fused_kernels, 1);
  EXPECT_EQ(e->default_fusion.fused_kernels, 0);
  EXPECT_EQ(e->plan.kernels, 1);
  EXPECT_EQ(e->default_fusion.kernels, 2);
  EXPECT_EQ(e->plan.bytes_kept, 3000);
  EXPECT_EQ(e->default_fusion.bytes_kept, 0);
  EXPECT_DOUBLE_EQ(e->plan.step_time_us, 3);
  EXPECT_DOUBLE_EQ(e->default_fusion.step_time_us, 10);
  EXPECT_DOUBLE_EQ(e->default_schedule.step_time_us, 3);  // a chain: the order is forced
  EXPECT_DOUBLE_EQ(e->defaults.step_time_us, 10);
  EXPECT_EQ(e->plan.peak_memory, 2000);
  EXPECT_EQ(e->default_fusion.peak_memory, 4000);
  const std::string text = TaskEffectsText(*e);
  EXPECT_NE(text.find("1 fused kernels (default 0), 1 launches (default 2)"), std::string::npos) << text;
}

}  // namespace
}  // namespace graphopt
