// A shared machine (sim/simulator.h, "Shared machine"; sim/simulator_slowdowns.h): a
// kernel is stretched while other devices run kernels, by its memory share of the
// memory slowdown and the rest of the compute slowdown, re-timed at every start and end.
#include <gtest/gtest.h>

#include "sim/cluster.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

// 1 us of launch and 100 us of memory traffic (1e5 bytes at 1 GB/s), no FLOPs.
OpId Streaming(PaperGraph& g, const std::string& name, TensorId in) {
  return g.Add(name, OpKind::kAdd, {in}, {4}, 0, 100000, 0);
}

Cluster Shared(double compute, double memory) {
  Cluster c = PaperCluster(2);
  c.set_contention(Contention{compute, memory});
  return c;
}

double StepUs(const Graph& g, const Cluster& c, const Plan& plan, SimResult* out = nullptr) {
  auto sim = Simulator::Create(g, c, PerfectCostModel());
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  SimOptions options;
  options.record_timeline = out != nullptr;
  auto r = sim->Simulate(plan, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (out != nullptr && r.ok()) *out = *r;
  return r.ok() ? r->step_time_us : -1;
}

// Two streaming kernels, one per device, from inputs of their own.
struct TwoStreams {
  PaperGraph g;
  Plan plan;
  TwoStreams() {
    const TensorId x = g.Input("x", 4), y = g.Input("y", 4);
    Streaming(g, "a", x);
    Streaming(g, "b", y);
    plan = DefaultPlan(g.graph());
    plan.device = {0, 1, 0, 1};
  }
};

TEST(SharedMachine, KernelsThatRunTogetherAreStretchedByTheirMemoryShare) {
  TwoStreams t;
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), PaperCluster(2), t.plan), 101);
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), Shared(1, 2), t.plan), 202);  // all memory: 2x
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), Shared(3, 1), t.plan), 101);  // no compute to slow
  // On one device they run one after the other: nothing to share.
  Plan one = t.plan;
  one.device = {0, 0, 0, 0};
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), Shared(1, 2), one), 202);
}

TEST(SharedMachine, ComputeBoundKernelsTakeTheComputeSlowdown) {
  PaperGraph g;
  const TensorId x = g.Input("x", 4), y = g.Input("y", 4);
  g.Compute("a", {x}, 100, 4);
  g.Compute("b", {y}, 100, 4);
  Plan plan = DefaultPlan(g.graph());
  plan.device = {0, 1, 0, 1};
  EXPECT_DOUBLE_EQ(StepUs(g.graph(), Shared(1.5, 4), plan), 1.5 * 101);
}

TEST(SharedMachine, OverlapIsStretchedOnlyWhileItLasts) {
  // Device 0: a (streaming, 101 us alone). Device 1: c (compute, 51 us), then b
  // (streaming, 101 us alone). Memory slowdown 2, compute none.
  //   0-51:   a at half speed (c busy) does 25.5 us of work; c does all of its 51.
  //   51-202: a and b both at half speed; a's 75.5 us left end at 202, b does 75.5.
  //   202-:   b alone, its 25.5 us left end at 227.5.
  PaperGraph g;
  const TensorId x = g.Input("x", 4), y = g.Input("y", 4);
  Streaming(g, "a", x);
  const TensorId c = g.Compute("c", {y}, 50, 4);
  Streaming(g, "b", c);
  Plan plan = DefaultPlan(g.graph());
  plan.device = {0, 1, 0, 1, 1};
  SimResult r;
  EXPECT_DOUBLE_EQ(StepUs(g.graph(), Shared(1, 2), plan, &r), 227.5);
  EXPECT_DOUBLE_EQ(r.device_busy_us[0], 202);
  EXPECT_DOUBLE_EQ(r.device_busy_us[1], 51 + 176.5);
  // The timeline's kernels end where they ended, not where they were first scheduled.
  double a_end = 0;
  for (const TimelineEvent& e : r.timeline) {
    if (e.kind == TimelineEvent::Kind::kKernel && e.op == 2) a_end = e.end_us;
  }
  EXPECT_DOUBLE_EQ(a_end, 202);
}

TEST(SharedMachine, TheClusterFileKeepsItAndPresetsHaveNone) {
  const Cluster c = Shared(1.05, 1.3);
  auto back = ClusterFromJson(ClusterToJson(c), "shared.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_DOUBLE_EQ(back->contention().compute, 1.05);
  EXPECT_DOUBLE_EQ(back->contention().memory, 1.3);
  for (const std::string& name : ClusterPresetNames()) {
    EXPECT_FALSE(ClusterPreset(name)->contention().any()) << name;
  }
  EXPECT_EQ(ClusterToJson(PaperCluster(2)).find("contention"), std::string::npos);
  std::string text = ClusterToJson(c);
  text.replace(text.find("1.3"), 3, "0.5");
  auto bad = ClusterFromJson(text, "shared.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("shared.json: contention: \"memory_slowdown\""), std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace graphopt
