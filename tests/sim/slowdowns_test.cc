// A shared machine (sim/simulator.h, "Shared machine"; sim/simulator_slowdowns.h): a
// kernel is stretched while other devices run kernels, by its memory share of the
// memory slowdown and the rest of the compute slowdown, or by its kind's measured
// slowdown where the contention lists it, re-timed at every start and end; a kernel
// reads the inputs it received from another device the read slowdown slower.
#include <gtest/gtest.h>

#include <map>

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

Cluster SharedByKind(std::map<OpKind, double> kinds) {
  Cluster c = PaperCluster(2);
  Contention contention{1, 2};
  contention.kinds = std::move(kinds);
  c.set_contention(contention);
  return c;
}

// The end of op's kernel in the timeline of `r`.
double KernelEnd(const SimResult& r, OpId op) {
  for (const TimelineEvent& e : r.timeline) {
    if (e.kind == TimelineEvent::Kind::kKernel && e.op == op) return e.end_us;
  }
  ADD_FAILURE() << "no kernel of op " << op;
  return -1;
}

TEST(SharedMachine, AListedKindTakesItsMeasuredSlowdownInsteadOfTheProbes) {
  TwoStreams t;  // two Adds, all memory traffic: the probes' memory 2x would double them
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), SharedByKind({{OpKind::kAdd, 1.25}}), t.plan), 1.25 * 101);
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), SharedByKind({{OpKind::kAdd, 1.0}}), t.plan), 101);
  EXPECT_DOUBLE_EQ(StepUs(t.g.graph(), SharedByKind({{OpKind::kMatMul, 3}}), t.plan), 202);  // Add unlisted
}

TEST(SharedMachine, AFusedKernelTakesItsMembersSlowdownsWeightedByTheirTimes) {
  // Device 0: Add a (101 us alone) fused with Relu r (101 us alone). Device 1: a long
  // compute kernel, busy all the while and not slowed (compute 1, MatMul unlisted).
  PaperGraph g;
  const TensorId x = g.Input("x", 4), y = g.Input("y", 4);
  const OpId a = Streaming(g, "a", x);
  const OpId r = g.Add("r", OpKind::kRelu, {g.Out(a)}, {4}, 0, 100000, 0);
  g.Compute("b", {y}, 10000, 4);
  Plan plan = DefaultPlan(g.graph());
  plan.device = {0, 1, 0, 0, 1};
  plan.fuse_with_producer[static_cast<size_t>(r)] = 1;
  SimResult alone, busy;
  StepUs(g.graph(), PaperCluster(2), plan, &alone);
  const double fused_us = KernelEnd(alone, a);
  ASSERT_GT(fused_us, 0);
  // Add listed at 3x, Relu unlisted with the kernel's roofline (compute 1, memory 1:
  // none): excess (101 x 2 + 101 x 0) / 202 = 1, so twice as long.
  Cluster by_kind = SharedByKind({{OpKind::kAdd, 3}});
  Contention c = by_kind.contention();
  c.memory = 1;
  by_kind.set_contention(c);
  StepUs(g.graph(), by_kind, plan, &busy);
  EXPECT_DOUBLE_EQ(KernelEnd(busy, a), 2 * fused_us);
}

// A producer on device 0 and its consumer (100 us alone, reading 1e5 bytes) on device
// 0 or 1: received, the consumer pays (read - 1) x 1e5 bytes at 1 GB/s, busy or not.
TEST(SharedMachine, AKernelReadsWhatItReceivedTheReadSlowdownSlower) {
  PaperGraph g;
  const TensorId x = g.Input("x", 4);
  const TensorId y = g.Out(g.Add("p", OpKind::kAdd, {x}, {100000}, 0, 0, 0));
  g.Add("c", OpKind::kAdd, {y}, {4}, 0, 100000, 0);
  Plan plan = DefaultPlan(g.graph());
  plan.device = {0, 0, 1};
  Cluster reads = PaperCluster(2);
  reads.set_contention(Contention{1, 1, 1.5});
  SimResult plain, charged;
  const double base = StepUs(g.graph(), PaperCluster(2), plan, &plain);
  const double step = StepUs(g.graph(), reads, plan, &charged);
  EXPECT_DOUBLE_EQ(step - base, 0.5 * 100);
  EXPECT_DOUBLE_EQ(charged.device_busy_us[1] - plain.device_busy_us[1], 50);
  EXPECT_DOUBLE_EQ(charged.device_busy_us[0], plain.device_busy_us[0]);  // the producer read nothing received
  // On the producer's device the tensor is its own: nothing to charge.
  Plan local = plan;
  local.device = {0, 0, 0};
  EXPECT_DOUBLE_EQ(StepUs(g.graph(), reads, local), StepUs(g.graph(), PaperCluster(2), local));
}

TEST(SharedMachine, TheClusterFileKeepsItAndPresetsHaveNone) {
  const Cluster c = Shared(1.05, 1.3);
  auto back = ClusterFromJson(ClusterToJson(c), "shared.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_DOUBLE_EQ(back->contention().compute, 1.05);
  EXPECT_DOUBLE_EQ(back->contention().memory, 1.3);
  EXPECT_DOUBLE_EQ(back->contention().read, 1);  // not written when 1
  EXPECT_EQ(ClusterToJson(c).find("read_slowdown"), std::string::npos);
  Cluster reads = PaperCluster(2);
  reads.set_contention(Contention{1, 1, 1.4});
  EXPECT_TRUE(reads.contention().any());
  auto read_back = ClusterFromJson(ClusterToJson(reads), "reads.json");
  ASSERT_TRUE(read_back.ok()) << read_back.status().message();
  EXPECT_DOUBLE_EQ(read_back->contention().read, 1.4);
  EXPECT_NE(reads.Summary().find("received tensors read 1.40x"), std::string::npos) << reads.Summary();
  std::string low_read = ClusterToJson(reads);
  low_read.replace(low_read.find("1.4"), 3, "0.7");
  auto bad_read = ClusterFromJson(low_read, "reads.json");
  ASSERT_FALSE(bad_read.ok());
  EXPECT_NE(bad_read.status().message().find("reads.json: contention: \"read_slowdown\""), std::string::npos)
      << bad_read.status().message();
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

TEST(SharedMachine, TheClusterFileKeepsTheKindsAndNamesABadOne) {
  const Cluster c = SharedByKind({{OpKind::kConv, 1.2}, {OpKind::kAdd, 1.05}});
  const std::string text = ClusterToJson(c);
  auto back = ClusterFromJson(text, "kinds.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->contention().kinds, c.contention().kinds);
  EXPECT_NE(c.Summary().find("2 op kinds measured"), std::string::npos) << c.Summary();
  std::string unknown = text;
  unknown.replace(unknown.find("\"Conv\""), 6, "\"Conx\"");
  auto bad = ClusterFromJson(unknown, "kinds.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("kinds.json: contention: kinds: unknown op kind 'Conx'"), std::string::npos)
      << bad.status().message();
  std::string low = text;
  low.replace(low.find("1.2"), 3, "0.9");
  auto out_of_range = ClusterFromJson(low, "kinds.json");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.status().message().find("\"Conv\""), std::string::npos) << out_of_range.status().message();
  Cluster invalid = c;
  Contention wrong = c.contention();
  wrong.kinds[OpKind::kRelu] = 11;
  invalid.set_contention(wrong);
  EXPECT_FALSE(invalid.Validate().ok());
}

}  // namespace
}  // namespace graphopt
