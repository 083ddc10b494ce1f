#include "sim/simulator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/rng.h"
#include "sim/batch.h"
#include "sim/random_graph.h"
#include "sim/trace.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

SimResult MustSimulate(const Graph& g, const Cluster& c, const Plan& plan, bool timeline = false) {
  auto sim = Simulator::Create(g, c, PerfectCostModel());
  EXPECT_TRUE(sim.ok()) << sim.status().message();
  SimOptions options;
  options.record_timeline = timeline;
  auto result = sim->Simulate(plan, options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? *result : SimResult();
}

// input -> a (10 MFLOP) -> b (20 MFLOP) -> c (5 MFLOP); outputs 2000, 3000, 4000 bytes.
struct Chain {
  PaperGraph g;
  TensorId in, a, b, c;
  Chain() {
    in = g.Input("input", 1000);
    a = g.Compute("a", {in}, 10, 2000);
    b = g.Compute("b", {a}, 20, 3000);
    c = g.Compute("c", {b}, 5, 4000);
  }
};

TEST(SimulatorTest, ChainOnOneDeviceTakesSumOfCosts) {
  Chain chain;
  const SimResult r = MustSimulate(chain.g.graph(), PaperCluster(1), Plan());
  // (1 + 10) + (1 + 20) + (1 + 5)
  EXPECT_DOUBLE_EQ(r.step_time_us, 38);
  EXPECT_DOUBLE_EQ(r.device_busy_us[0], 38);
  EXPECT_EQ(r.num_kernels, 3);
  EXPECT_EQ(r.num_transfers, 0);
}

TEST(SimulatorTest, ChainPeakMemoryIsTwoLiveTensorsPlusOutput) {
  Chain chain;
  const SimResult r = MustSimulate(chain.g.graph(), PaperCluster(1), Plan());
  // While c runs: b's output (3000) and c's output (4000); earlier peaks are lower
  // (input + a = 3000, a + b = 5000).
  EXPECT_EQ(r.device_peak_memory[0], 7000);
  EXPECT_FALSE(r.oom);
}

TEST(SimulatorTest, ForkJoinOnTwoDevicesWaitsForTransfers) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 1000);
  const TensorId b = g.Compute("b", {a}, 20, 1000);
  const TensorId c = g.Compute("c", {a}, 20, 2000);
  g.Compute("d", {b, c}, 5, 100);
  Plan plan;
  plan.device = {0, 0, 0, 1, 0};
  const SimResult r = MustSimulate(g.graph(), PaperCluster(2), plan);
  // a: 0-11 on dev0; a's output to dev1: 2 + 1 = 3 us, 11-14; c: 14-35 on dev1;
  // c's output back: 2 + 2 = 4 us, 35-39; b: 11-32 on dev0; d: 39-45.
  EXPECT_DOUBLE_EQ(r.step_time_us, 45);
  EXPECT_EQ(r.link_bytes[0 * 2 + 1], 1000);
  EXPECT_EQ(r.link_bytes[1 * 2 + 0], 2000);
  EXPECT_EQ(r.num_transfers, 2);
  EXPECT_DOUBLE_EQ(r.device_busy_us[0], 11 + 21 + 6);
  EXPECT_DOUBLE_EQ(r.device_busy_us[1], 21);
}

TEST(SimulatorTest, TensorIsSentOncePerDestinationDevice) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 1000);
  g.Compute("b", {a}, 1, 100);
  g.Compute("c", {a}, 1, 100);
  Plan plan;
  plan.device = {0, 0, 1, 1};
  const SimResult r = MustSimulate(g.graph(), PaperCluster(2), plan);
  EXPECT_EQ(r.num_transfers, 1);
  EXPECT_EQ(r.link_bytes[0 * 2 + 1], 1000);
  // a 0-11, transfer 11-14, b 14-16, c 16-18.
  EXPECT_DOUBLE_EQ(r.step_time_us, 18);
}

// a (dev0) has two outputs, read by c1 and c2 on dev1: the link carries one at a time.
struct TwoTensorsOneLink {
  PaperGraph g;
  OpId a, c1, c2;
  TwoTensorsOneLink() {
    const TensorId in = g.Input("input", 1000);
    a = g.Add("a", OpKind::kMatMul, {in}, {4000, 2000}, 10, 0, 0);
    c1 = g.Producer(g.Compute("c1", {g.Out(a, 0)}, 5, 100));
    c2 = g.Producer(g.Compute("c2", {g.Out(a, 1)}, 5, 100));
  }
};

TEST(SimulatorTest, LinkCarriesTwoTensorsOneAfterTheOther) {
  TwoTensorsOneLink t;
  Plan plan;
  plan.device = {0, 0, 1, 1};
  const SimResult r = MustSimulate(t.g.graph(), PaperCluster(2), plan, /*timeline=*/true);
  // a 0-11; first output (4000 B) 11-17 (2 + 4 us), second (2000 B) 17-21;
  // c1 17-23, c2 ready at 21, runs 23-29.
  EXPECT_DOUBLE_EQ(r.step_time_us, 29);
  EXPECT_EQ(r.link_bytes[0 * 2 + 1], 6000);
  std::vector<std::pair<double, double>> transfers;
  for (const TimelineEvent& e : r.timeline) {
    if (e.kind == TimelineEvent::Kind::kTransfer) transfers.emplace_back(e.start_us, e.end_us);
  }
  ASSERT_EQ(transfers.size(), 2u);
  EXPECT_EQ(transfers[0], std::make_pair(11.0, 17.0));
  EXPECT_EQ(transfers[1], std::make_pair(17.0, 21.0));
}

TEST(SimulatorTest, TransferForHigherPriorityConsumerGoesFirst) {
  TwoTensorsOneLink t;
  Plan plan;
  plan.device = {0, 0, 1, 1};
  plan.priority = {0, 0, 0, 1};  // c2 first
  const SimResult r = MustSimulate(t.g.graph(), PaperCluster(2), plan);
  // Second output 11-15, c2 15-21; first output 15-21, c1 21-27.
  EXPECT_DOUBLE_EQ(r.step_time_us, 27);
}

TEST(SimulatorTest, PriorityChangesStepTime) {
  // b (long) and a (short, feeding a long op c on dev1) are both ready at time 0;
  // b has the lower id, so ready order runs it first.
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId b = g.Compute("b", {in}, 10, 100);
  const TensorId a = g.Compute("a", {in}, 1, 1000);
  g.Compute("c", {a}, 20, 100);
  Plan plan;
  plan.device = {0, 0, 0, 1};
  // Ready order: b 0-11, a 11-13, transfer 13-16, c 16-37.
  EXPECT_DOUBLE_EQ(MustSimulate(g.graph(), PaperCluster(2), plan).step_time_us, 37);
  // a first: a 0-2, transfer 2-5, c 5-26 (b 2-13 meanwhile).
  plan.priority = {0, 0, 5, 0};
  EXPECT_DOUBLE_EQ(MustSimulate(g.graph(), PaperCluster(2), plan).step_time_us, 26);
  (void)b;
}

// input (1000 B) -> a (Pad, writes 3000 B) -> b (ReduceSum over a's whole output,
// reads 3000, writes 1000 B): a loop op and the reduction it feeds, one kernel a
// compiler emits; memory-bound: 1000 bytes = 1 us.
struct ElementwisePair {
  PaperGraph g;
  OpId a, b;
  ElementwisePair() {
    const TensorId in = g.Input("input", 1000);
    a = g.Add("a", OpKind::kPad, {in}, {3000}, 0, 1000, 3000);
    b = g.Add("b", OpKind::kReduceSum, {g.Out(a)}, {1000}, 0, 3000, 1000);
  }
};

TEST(SimulatorTest, UnfusedElementwiseOpsPayTwoLaunchesAndTheRoundTrip) {
  ElementwisePair p;
  const SimResult r = MustSimulate(p.g.graph(), PaperCluster(1), Plan());
  EXPECT_DOUBLE_EQ(r.step_time_us, (1 + 4) + (1 + 4));
  EXPECT_EQ(r.num_kernels, 2);
  EXPECT_EQ(r.device_peak_memory[0], 4000);  // input + a's output, then a's output + b's output
}

TEST(SimulatorTest, FusionRemovesALaunchAndTheMemoryRoundTrip) {
  ElementwisePair p;
  Plan plan;
  plan.fuse_with_producer = {0, 0, 1};
  const SimResult r = MustSimulate(p.g.graph(), PaperCluster(1), plan);
  // One kernel: 1 us launch + (1000 read + 1000 written) bytes; a's output never
  // touches memory.
  EXPECT_DOUBLE_EQ(r.step_time_us, 1 + 2);
  EXPECT_EQ(r.num_kernels, 1);
  EXPECT_EQ(r.device_peak_memory[0], 2000);  // input + b's output
}

// in (1000 B) -> a = relu(in) (reads 1000, writes 1000) -> b = a + in (reads 2000,
// writes 1000). Unfused: a 1 + 2 us, b 1 + 3 us. Fused: one launch, and the kernel
// reads `in` once and writes b: 2000 bytes, 1 + 2 us.
TEST(SimulatorTest, FusedKernelReadsAnInputItsMembersShareOnce) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const OpId a = g.Add("a", OpKind::kRelu, {in}, {1000}, 0, 1000, 1000);
  g.Add("b", OpKind::kAdd, {g.Out(a), in}, {1000}, 0, 2000, 1000);
  EXPECT_DOUBLE_EQ(MustSimulate(g.graph(), PaperCluster(1), Plan()).step_time_us, 3 + 4);
  Plan plan;
  plan.fuse_with_producer = {0, 0, 1};
  const SimResult r = MustSimulate(g.graph(), PaperCluster(1), plan);
  EXPECT_DOUBLE_EQ(r.step_time_us, 1 + 2);
  EXPECT_EQ(r.num_kernels, 1);
}

// in -> a -> b, and c reads a too; a and b fused, c apart. The kernel reads `in`,
// writes a (c needs it) and b: 3000 bytes, 1 + 3 us; then c (reads 1000, writes 1000)
// 1 + 2 us. a's output is in memory: 3000 B while the kernel runs (in, a, b), then a,
// b and c.
TEST(SimulatorTest, FusedKernelWritesATensorReadOutsideOnce) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const OpId a = g.Add("a", OpKind::kRelu, {in}, {1000}, 0, 1000, 1000);
  g.Add("b", OpKind::kRelu, {g.Out(a)}, {1000}, 0, 1000, 1000);
  g.Add("c", OpKind::kRelu, {g.Out(a)}, {1000}, 0, 1000, 1000);
  Plan plan;
  plan.fuse_with_producer = {0, 0, 1, 0};
  const SimResult r = MustSimulate(g.graph(), PaperCluster(1), plan);
  EXPECT_DOUBLE_EQ(r.step_time_us, (1 + 3) + (1 + 2));
  EXPECT_EQ(r.num_kernels, 2);
  EXPECT_EQ(r.device_peak_memory[0], 3000);  // in + a + b; then a + b + c after in is freed
}

// Two branches: a, b (10 MFLOP, 5000 B each) read `in` (1000 B); a2, b2 (1 MFLOP, 100
// B read by nobody) read a and b. Ready order: a 0-11, b 11-22 (in, a, b: 11000 B), a2,
// b2. a2 first: a 0-11, a2 11-13 frees a, b 13-24: peak 6100 B (in, a, a2's output).
// The step takes 26 us either way: the schedule decides the peak.
TEST(SimulatorTest, PriorityChangesPeakMemory) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 5000);
  const TensorId b = g.Compute("b", {in}, 10, 5000);
  g.Compute("a2", {a}, 1, 100);
  g.Compute("b2", {b}, 1, 100);
  SimResult r = MustSimulate(g.graph(), PaperCluster(1), Plan());
  EXPECT_DOUBLE_EQ(r.step_time_us, 26);
  EXPECT_EQ(r.device_peak_memory[0], 11000);
  Plan plan;
  plan.priority = {0, 0, 0, 5, 0};
  r = MustSimulate(g.graph(), PaperCluster(1), plan);
  EXPECT_DOUBLE_EQ(r.step_time_us, 26);
  EXPECT_EQ(r.device_peak_memory[0], 6100);
}

TEST(SimulatorTest, OomPlanNamesTheDeviceAndTheOverflow) {
  Chain chain;
  const Cluster cluster = PaperCluster(2, /*memory_bytes=*/5000);
  const SimResult r = MustSimulate(chain.g.graph(), cluster, Plan());
  ASSERT_TRUE(r.oom);
  EXPECT_EQ(r.oom_device, 0);
  EXPECT_EQ(r.oom_overflow_bytes, 2000);
  EXPECT_NE(r.OomVerdict(cluster).find("dev0"), std::string::npos);
  EXPECT_NE(r.OomVerdict(cluster).find("by 2.00 KB"), std::string::npos);
}

// The chain on 5,000 bytes first overflows when c starts at 32 us (b's 3,000 bytes
// and c's 4,000): a run told to stop there is OOM by the same 2,000 bytes at 32 us,
// where the full run ends at 38.
TEST(SimulatorTest, StopAtOomEndsAtTheFirstOverflow) {
  Chain chain;
  const Cluster cluster = PaperCluster(1, /*memory_bytes=*/5000);
  auto sim = Simulator::Create(chain.g.graph(), cluster, PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  SimOptions stop;
  stop.stop_at_oom = true;
  auto stopped = sim->Simulate(Plan(), stop);
  auto full = sim->Simulate(Plan());
  ASSERT_TRUE(stopped.ok() && full.ok());
  EXPECT_TRUE(stopped->oom);
  EXPECT_TRUE(stopped->stopped_at_oom);
  EXPECT_FALSE(full->stopped_at_oom);
  EXPECT_EQ(stopped->oom_overflow_bytes, 2000);
  EXPECT_DOUBLE_EQ(stopped->step_time_us, 32);
  EXPECT_DOUBLE_EQ(full->step_time_us, 38);
}

// The chain on 5,000 bytes overflows by 2,000 in all: told to stop above 1,999 bytes it
// stops where stop_at_oom does; above 2,000 it runs to its end, as without the option;
// at 0 it is stop_at_oom.
TEST(SimulatorTest, StopAboveOverflowEndsOncePastTheGivenOverflow) {
  Chain chain;
  auto sim = Simulator::Create(chain.g.graph(), PaperCluster(1, /*memory_bytes=*/5000), PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  auto full = sim->Simulate(Plan());
  ASSERT_TRUE(full.ok());
  for (const int64_t above : {int64_t{0}, int64_t{1999}, int64_t{2000}, int64_t{5000}}) {
    SimOptions stop;
    stop.stop_above_overflow = above;
    auto r = sim->Simulate(Plan(), stop);
    ASSERT_TRUE(r.ok()) << r.status().message();
    const bool stops = above < 2000;
    EXPECT_EQ(r->stopped_at_oom, stops) << above;
    EXPECT_TRUE(r->oom) << above;
    EXPECT_EQ(r->oom_overflow_bytes, 2000) << above;
    EXPECT_DOUBLE_EQ(r->step_time_us, stops ? 32 : full->step_time_us) << above;
  }
}

// A plan that fits runs to its end with or without the option, with the same result.
TEST(SimulatorTest, StopAtOomLeavesAPlanThatFitsAlone) {
  Chain chain;
  auto sim = Simulator::Create(chain.g.graph(), PaperCluster(1, /*memory_bytes=*/7000), PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  SimOptions stop;
  stop.stop_at_oom = true;
  auto r = sim->Simulate(Plan(), stop);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->oom);
  EXPECT_FALSE(r->stopped_at_oom);
  EXPECT_DOUBLE_EQ(r->step_time_us, 38);
  EXPECT_EQ(r->device_peak_memory[0], 7000);
}

// The chain's kernels end at 11, 32 and 38 us. Stopped after 20 us, the run ends at the
// first event past it (32), a lower bound of the full step; stopped after 32, at 38 but
// still stopped (the plan is slower than 32); after 38 or more, it runs to its end.
TEST(SimulatorTest, StopAfterEndsAtTheFirstEventPastTheTime) {
  Chain chain;
  auto sim = Simulator::Create(chain.g.graph(), PaperCluster(1), PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  const double expected_end[] = {32, 38, 38, 38};
  const bool expected_stopped[] = {true, true, false, false};
  const double stop_after[] = {20, 32, 38, 100};
  for (int i = 0; i < 4; ++i) {
    SimOptions stop;
    stop.stop_after_us = stop_after[i];
    auto r = sim->Simulate(Plan(), stop);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(r->stopped_slower, expected_stopped[i]) << stop_after[i];
    EXPECT_DOUBLE_EQ(r->step_time_us, expected_end[i]) << stop_after[i];
    EXPECT_EQ(r->num_kernels, i == 0 ? 2 : 3) << stop_after[i];  // kernels started (b at 11, c at 32)
  }
}

// Parameters over the capacity: the run stops before any kernel.
TEST(SimulatorTest, StopAtOomBeforeTheFirstKernelWhenParametersOverflow) {
  PaperGraph g;
  const TensorId w = g.Variable("w", 8000);
  const TensorId in = g.Input("input", 1000);
  g.Compute("a", {in, w}, 10, 1000);
  auto sim = Simulator::Create(g.graph(), PaperCluster(1, /*memory_bytes=*/5000), PerfectCostModel());
  ASSERT_TRUE(sim.ok()) << sim.status().message();
  SimOptions stop;
  stop.stop_at_oom = true;
  auto r = sim->Simulate(Plan(), stop);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->stopped_at_oom);
  EXPECT_EQ(r->oom_overflow_bytes, 3000);
  EXPECT_EQ(r->num_kernels, 0);  // none ran
  EXPECT_DOUBLE_EQ(r->step_time_us, 0);
}

TEST(SimulatorTest, PeakEqualToCapacityFits) {
  Chain chain;
  const Cluster cluster = PaperCluster(1, /*memory_bytes=*/7000);
  const SimResult r = MustSimulate(chain.g.graph(), cluster, Plan());
  EXPECT_FALSE(r.oom);
  EXPECT_EQ(r.OomVerdict(cluster), "fits in memory");
}

TEST(SimulatorTest, ParametersAreResidentAndCopiedWhereRead) {
  PaperGraph g;
  const TensorId w = g.Variable("w", 8000);
  const TensorId in = g.Input("input", 1000);
  g.Compute("a", {in, w}, 10, 1000);
  Plan plan;
  plan.device = {0, 1, 1};  // the parameter on dev0, its reader on dev1
  const SimResult r = MustSimulate(g.graph(), PaperCluster(2), plan);
  EXPECT_EQ(r.device_resident_memory[0], 8000);
  EXPECT_EQ(r.device_peak_memory[0], 8000);
  // The copy (8000) + input (1000) + output (1000) while a runs.
  EXPECT_EQ(r.device_peak_memory[1], 10000);
  // Transfer 0-10 (2 + 8 us), then a 10-21.
  EXPECT_DOUBLE_EQ(r.step_time_us, 21);
}

TEST(SimulatorTest, ViewsAreInstantAndAliasTheirInput) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 2000);
  const TensorId v = g.Out(g.Add("view", OpKind::kReshape, {a}, {2000}, 0, 0, 0));
  g.Compute("b", {v}, 10, 500);
  const SimResult r = MustSimulate(g.graph(), PaperCluster(1), Plan());
  EXPECT_DOUBLE_EQ(r.step_time_us, 22);
  EXPECT_EQ(r.num_kernels, 2);
  // a's output lives (through the view) until b ends: 2000 + 500 at most.
  EXPECT_EQ(r.device_peak_memory[0], 3000);  // input + a's output while a runs
}

TEST(SimulatorTest, MetadataOpsWaitForNothing) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 2000);
  const TensorId shape = g.Out(g.Add("shape", OpKind::kShape, {a}, {8}, 0, 0, 0));
  g.Compute("b", {shape}, 3, 100);
  const SimResult r = MustSimulate(g.graph(), PaperCluster(2), Plan{{0, 0, 0, 1}, {}, {}});
  // b needs only the shape (free, at time 0 on dev0): transfer 0-2.008, b 2.008-6.008; a 0-11.
  EXPECT_DOUBLE_EQ(r.step_time_us, 11);
}

TEST(SimulatorTest, InvalidPlanIsRejectedNamingTheOp) {
  Chain chain;
  auto sim = Simulator::Create(chain.g.graph(), PaperCluster(2), PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  Plan plan;
  plan.device = {0, 0, 7, 0};
  auto r = sim->Simulate(plan);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'b' (device 7)"), std::string::npos) << r.status().message();
}

TEST(SimulatorTest, FusionCycleIsRejectedNamingTheOp) {
  // a -> b -> c and a -> c; c fuses into a (its first input) but b does not.
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 1, 1000);
  const TensorId b = g.Compute("b", {a}, 1, 1000);
  g.Add("c", OpKind::kAdd, {a, b}, {1000}, 0, 2000, 1000);
  auto sim = Simulator::Create(g.graph(), PaperCluster(1), PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  Plan plan;
  plan.fuse_with_producer = {0, 0, 0, 1};
  auto r = sim->Simulate(plan);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cycle"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("'c'"), std::string::npos) << r.status().message();
}

TEST(SimulatorTest, TraceIsChromeTraceJsonWithOneTrackPerDeviceAndLink) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 10, 1000);
  const TensorId b = g.Compute("b", {a}, 20, 1000);
  const TensorId c = g.Compute("c", {a}, 20, 2000);
  g.Compute("d", {b, c}, 5, 100);
  const Cluster cluster = PaperCluster(2);
  const SimResult r = MustSimulate(g.graph(), cluster, Plan{{0, 0, 0, 1, 0}, {}, {}}, true);
  auto text = ChromeTraceJson(g.graph(), cluster, r);
  ASSERT_TRUE(text.ok()) << text.status().message();
  const nlohmann::json j = nlohmann::json::parse(*text);
  std::set<std::string> tracks;
  int kernels = 0, transfers = 0, counters = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X" && e["cat"] == "kernel") ++kernels;
    if (e["ph"] == "X" && e["cat"] == "transfer") ++transfers;
    if (e["ph"] == "C") ++counters;
  }
  EXPECT_EQ(tracks, (std::set<std::string>{"dev0 (paper)", "dev1 (paper)", "dev0 -> dev1", "dev1 -> dev0"}));
  EXPECT_EQ(kernels, 4);
  EXPECT_EQ(transfers, 2);
  EXPECT_GT(counters, 0);
}

TEST(SimulatorTest, TraceNeedsATimeline) {
  Chain chain;
  const SimResult r = MustSimulate(chain.g.graph(), PaperCluster(1), Plan());
  EXPECT_FALSE(ChromeTraceJson(chain.g.graph(), PaperCluster(1), r).ok());
}

// ---- Invariants over random graphs and plans ----

struct RandomCase {
  Graph graph;
  Cluster cluster;
};

std::vector<RandomCase> RandomCases() {
  std::vector<RandomCase> cases;
  const char* clusters[] = {"4xV100", "8xV100-nvlink", "4xK40+cpu", "2xP100"};
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    RandomGraphOptions o;
    o.num_ops = 150 + static_cast<int>(seed) * 40;
    o.width = 2 + static_cast<int>(seed % 5);
    cases.push_back({RandomLayeredGraph(o, seed), *ClusterPreset(clusters[seed % 4])});
  }
  return cases;
}

TEST(SimulatorInvariantTest, StepTimeIsAtLeastTheLowerBound) {
  for (const RandomCase& c : RandomCases()) {
    auto sim = Simulator::Create(c.graph, c.cluster);
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    Rng rng(7);
    for (int i = 0; i < 12; ++i) {
      RandomPlanOptions po;
      po.accelerators_only = i % 3 != 0;
      po.random_priorities = i % 2 == 0;
      po.fuse_probability = i % 4 == 0 ? 0.0 : 0.6;
      const Plan plan = RandomPlan(c.graph, c.cluster, po, rng);
      ASSERT_TRUE(ValidatePlan(c.graph, c.cluster, plan).ok());
      auto r = sim->Simulate(plan);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_GE(r->step_time_us, r->lower_bound_us * (1 - 1e-12)) << c.graph.name() << " plan " << i;
      EXPECT_GT(r->lower_bound_us, 0);
    }
  }
}

TEST(SimulatorInvariantTest, SameInputsGiveTheSameResult) {
  for (const RandomCase& c : RandomCases()) {
    auto sim = Simulator::Create(c.graph, c.cluster);
    ASSERT_TRUE(sim.ok());
    Rng rng(11);
    const Plan plan = RandomPlan(c.graph, c.cluster, {}, rng);
    SimScratch scratch;
    auto first = sim->Simulate(plan, {}, &scratch);
    auto again = sim->Simulate(plan, {}, &scratch);  // reused scratch
    auto fresh = sim->Simulate(plan);                // new scratch
    ASSERT_TRUE(first.ok() && again.ok() && fresh.ok());
    for (const auto* r : {&*again, &*fresh}) {
      EXPECT_EQ(r->step_time_us, first->step_time_us);
      EXPECT_EQ(r->device_peak_memory, first->device_peak_memory);
      EXPECT_EQ(r->device_busy_us, first->device_busy_us);
      EXPECT_EQ(r->link_bytes, first->link_bytes);
    }
  }
}

TEST(SimulatorInvariantTest, OneDeviceRunsWithoutTransfersOrIdleTime) {
  for (const RandomCase& c : RandomCases()) {
    auto sim = Simulator::Create(c.graph, c.cluster);
    ASSERT_TRUE(sim.ok());
    Rng rng(3);
    Plan plan = RandomPlan(c.graph, c.cluster, {}, rng);
    std::fill(plan.device.begin(), plan.device.end(), 0);
    std::fill(plan.fuse_with_producer.begin(), plan.fuse_with_producer.end(), 0);
    auto r = sim->Simulate(plan);
    ASSERT_TRUE(r.ok());
    double sum = 0;
    for (OpId o = 0; o < c.graph.num_ops(); ++o) sum += sim->OpTimeUs(o, 0);
    EXPECT_EQ(r->num_transfers, 0);
    // Every input is local, so the stream never waits: step = sum of op times.
    EXPECT_NEAR(r->step_time_us, sum, 1e-9 * sum);
    EXPECT_DOUBLE_EQ(r->device_busy_us[0], r->step_time_us);
  }
}

TEST(SimulatorInvariantTest, LongChainOnOneDeviceHasNoIdleWait) {
  PaperGraph g;
  TensorId t = g.Input("input", 1000);
  double sum = 0;
  for (int i = 0; i < 500; ++i) {
    t = g.Compute("op" + std::to_string(i), {t}, 1 + i % 7, 1000 + 10 * i);
    sum += 1 + (1 + i % 7);
  }
  const SimResult r = MustSimulate(g.graph(), PaperCluster(2), Plan());
  EXPECT_NEAR(r.step_time_us, sum, 1e-9 * sum);
  EXPECT_NEAR(r.lower_bound_us, sum, 1e-9 * sum);  // the chain is its own critical path
}

// Batches give each plan's sequential result, in place, whether the plans are
// passed in or made by the simulating threads (RunMade).
TEST(SimulatorInvariantTest, BatchResultsEqualSequentialResults) {
  const RandomCase c = RandomCases()[2];
  auto sim = Simulator::Create(c.graph, c.cluster);
  ASSERT_TRUE(sim.ok());
  Rng rng(5);
  std::vector<Plan> plans;
  for (int i = 0; i < 24; ++i) plans.push_back(RandomPlan(c.graph, c.cluster, {}, rng));
  plans[5].device[1] = 99;  // one invalid plan: its error comes back in place
  BatchSimulator batch(*sim, 2);
  std::atomic<int> made{0};
  for (int round = 0; round < 3; ++round) {
    const auto results = round < 2 ? batch.Run(plans) : batch.RunMade(plans.size(), [&](size_t i) {
      ++made;
      return plans[i];
    });
    ASSERT_EQ(results.size(), plans.size());
    for (size_t i = 0; i < plans.size(); ++i) {
      auto expected = sim->Simulate(plans[i]);
      ASSERT_EQ(results[i].ok(), expected.ok()) << i;
      if (!expected.ok()) continue;
      EXPECT_EQ(results[i]->step_time_us, expected->step_time_us);
      EXPECT_EQ(results[i]->device_peak_memory, expected->device_peak_memory);
    }
  }
  EXPECT_EQ(made.load(), static_cast<int>(plans.size()));
  EXPECT_TRUE(batch.RunMade(0, [&](size_t i) { return plans[i]; }).empty());
  EXPECT_FALSE(SimulateBatch(*sim, plans, {}, 3)[5].ok());

  // With a measure, every plan goes to it instead, in order, on the calling thread;
  // without it again, the simulator.
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  bool same_thread = true;
  batch.set_measure([&](const Plan& plan) -> StatusOr<SimResult> {
    same_thread = same_thread && std::this_thread::get_id() == caller;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (plans[i].device == plan.device && plans[i].priority == plan.priority) order.push_back(i);
    }
    SimResult r;
    r.step_time_us = 1000.0 + static_cast<double>(order.size());
    return r;
  });
  ASSERT_TRUE(batch.measured());
  const auto measured = batch.Run(plans);
  ASSERT_EQ(measured.size(), plans.size());
  ASSERT_EQ(order.size(), plans.size());
  for (size_t i = 0; i < plans.size(); ++i) {
    EXPECT_EQ(order[i], i);
    ASSERT_TRUE(measured[i].ok());
    EXPECT_EQ(measured[i]->step_time_us, 1001.0 + static_cast<double>(i));
  }
  EXPECT_TRUE(same_thread);
  batch.set_measure(nullptr);
  EXPECT_FALSE(batch.measured());
  EXPECT_EQ(batch.Run(plans)[0]->step_time_us, sim->Simulate(plans[0])->step_time_us);
}

}  // namespace
}  // namespace graphopt
