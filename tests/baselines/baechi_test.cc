// The Baechi placers m-TOPO, m-ETF and m-SCT ("Baechi: Fast Device Placement of
// Machine Learning Graphs", SoCC 2020): schedules worked out by hand on tiny
// problems, memory limits, co-placement, the favourite-child LP, and plans on graphs.
#include "baselines/baechi.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../testing/models.h"
#include "baselines/baseline.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

// Tasks of equal cost on every processor; one tensor per task of `bytes` (its
// memory too), read by `readers[task]`. Links: 1 us latency + 0.1 us per byte.
BaechiProblem Problem(int num_procs, const std::vector<double>& cost, const std::vector<std::vector<int32_t>>& readers,
                      int64_t bytes = 10) {
  BaechiProblem p;
  p.num_tasks = static_cast<int>(cost.size());
  p.num_procs = num_procs;
  for (double c : cost) p.cost.insert(p.cost.end(), static_cast<size_t>(num_procs), c);
  for (int v = 0; v < p.num_tasks; ++v) {
    BaechiTensor t;
    t.producer = v;
    t.bytes = bytes;
    t.memory = bytes;
    t.consumers = readers[static_cast<size_t>(v)];
    p.tensors.push_back(t);
  }
  p.latency.assign(static_cast<size_t>(num_procs * num_procs), 1.0);
  p.time_per_byte.assign(static_cast<size_t>(num_procs * num_procs), 0.1);
  return p;
}

BaechiSchedule Schedule(const BaechiProblem& p, BaechiMethod method) {
  StatusOr<BaechiSchedule> s = ScheduleBaechi(p, method);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : BaechiSchedule{};
}

// A diamond t0 -> {t1, t2} -> t3 on two processors; a transfer of 10 bytes costs 2.
BaechiProblem Diamond() { return Problem(2, {2, 3, 3, 1}, {{1, 2}, {3}, {3}, {}}); }

TEST(BaechiTest, EtfDiamondMatchesTheScheduleWorkedOutByHand) {
  // t0 on P0 [0, 2) (ties go to the first processor); at 2, t1 starts on P0 [2, 5);
  // t2 can start on P1 at 4 (t0's output sent over [2, 4)) or on P0 at 5: P1 [4, 7);
  // t3 on P1 at 7 (t1's output arrives at 7, sent over [5, 7)) beats P0 at 9.
  const BaechiSchedule s = Schedule(Diamond(), BaechiMethod::kEtf);
  EXPECT_EQ(s.proc, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(s.start, (std::vector<double>{0, 2, 4, 7}));
  EXPECT_EQ(s.finish, (std::vector<double>{2, 5, 7, 8}));
  EXPECT_DOUBLE_EQ(s.makespan, 8);
  EXPECT_TRUE(s.fits);
}

TEST(BaechiTest, EtfSharesOneChannelPerProcessorForSendsAndReceives) {
  // t0 on P0 [0, 1) feeds t1, t2 and t3 (cost 10 each): t1 on P0 [1, 11); t2 on P1
  // after its input lands at 3 ([1, 3)); t3's input to P2 waits for P0's channel,
  // busy sending until 3: it lands at 5.
  const BaechiSchedule s = Schedule(Problem(3, {1, 10, 10, 10}, {{1, 2, 3}, {}, {}, {}}), BaechiMethod::kEtf);
  EXPECT_EQ(s.proc, (std::vector<int32_t>{0, 0, 1, 2}));
  EXPECT_EQ(s.start, (std::vector<double>{0, 1, 3, 5}));
}

TEST(BaechiTest, EtfSendsATensorToAProcessorOnce) {
  // t0 on P0 [0, 1) feeds t1 (cost 10), t2 and t3 (cost 1): t1 on P0 [1, 11); t2 on
  // P1 once t0's output lands at 3; t3 on P1 at 4 with the copy already there (a
  // second transfer would land at 5).
  const BaechiSchedule s = Schedule(Problem(2, {1, 10, 1, 1}, {{1, 2, 3}, {}, {}, {}}), BaechiMethod::kEtf);
  EXPECT_EQ(s.proc, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_EQ(s.start, (std::vector<double>{0, 1, 3, 4}));
}

// t0 (10 bytes) feeds t1 and t2 (80 bytes each); t3 (no output) reads t1 and t2.
// Without limits everything runs on P0.
BaechiProblem Fork(int64_t capacity) {
  BaechiProblem p = Problem(2, {1, 1, 1, 1}, {{1, 2}, {3}, {3}, {}});
  p.tensors[1].bytes = p.tensors[1].memory = 80;
  p.tensors[2].bytes = p.tensors[2].memory = 80;
  p.tensors[3].bytes = p.tensors[3].memory = 0;
  if (capacity > 0) p.capacity = {capacity, capacity};
  return p;
}

TEST(BaechiTest, EtfPutsEverythingOnOneProcessorWithoutAMemoryLimit) {
  const BaechiSchedule s = Schedule(Fork(0), BaechiMethod::kEtf);
  EXPECT_EQ(s.proc, (std::vector<int32_t>{0, 0, 0, 0}));
}

TEST(BaechiTest, EtfSkipsAProcessorWhoseMemoryWouldOverflow) {
  // On P0 at time 2: t0's 10 bytes (t2 still reads them) + t1's 80 live; t2's 80 more
  // would pass 165, so t2 goes to P1 (80 + the 10-byte copy). t3 then fits either
  // way (80 + an 80-byte copy).
  const BaechiSchedule s = Schedule(Fork(165), BaechiMethod::kEtf);
  EXPECT_EQ(s.proc[2], 1);
  EXPECT_TRUE(s.fits);
  for (int64_t peak : s.peak_memory) EXPECT_LE(peak, 165);
}

TEST(BaechiTest, EtfReturnsTheLeastOverflowingPlacementWhenNothingFits) {
  const BaechiSchedule s = Schedule(Fork(50), BaechiMethod::kEtf);
  EXPECT_FALSE(s.fits);
  ASSERT_EQ(s.proc.size(), 4u);
  for (int32_t q : s.proc) EXPECT_TRUE(q == 0 || q == 1);
}

TEST(BaechiTest, ColocatedTasksShareAProcessor) {
  // Two independent tasks: ETF runs them side by side, unless they are one group.
  BaechiProblem p = Problem(2, {5, 5}, {{}, {}});
  const BaechiSchedule apart = Schedule(p, BaechiMethod::kEtf);
  EXPECT_NE(apart.proc[0], apart.proc[1]);
  p.group = {0, 0};
  for (BaechiMethod m : {BaechiMethod::kTopo, BaechiMethod::kEtf, BaechiMethod::kSct}) {
    const BaechiSchedule s = Schedule(p, m);
    EXPECT_EQ(s.proc[0], s.proc[1]) << BaechiMethodName(m);
  }
}

TEST(BaechiTest, AGroupReservesItsWholeResidentMemoryWhereItGoes) {
  // A chain t0 -> t1 -> t2 stays on P0, unless memory says otherwise: t0 holds 60
  // resident bytes, the group {t1, t2} 60 + 60, and 130 fit on a processor.
  BaechiProblem p = Problem(2, {1, 1, 1}, {{1}, {2}, {}}, 0);
  p.resident = {60, 60, 60};
  p.group = {-1, 0, 0};
  EXPECT_EQ(Schedule(p, BaechiMethod::kEtf).proc, (std::vector<int32_t>{0, 0, 0}));
  p.capacity = {130, 130};
  const BaechiSchedule s = Schedule(p, BaechiMethod::kEtf);
  EXPECT_EQ(s.proc, (std::vector<int32_t>{0, 1, 1}));
  EXPECT_TRUE(s.fits);
}

TEST(BaechiTest, DeferredParameterGoesWithItsFirstReader) {
  // t0: a parameter (deferred, resident), read by t2; t1 keeps P0 busy so t2 runs on P1.
  BaechiProblem p = Problem(2, {0, 10, 1}, {{2}, {}, {}});
  p.deferred = {1, 0, 0};
  p.resident = {40, 0, 0};
  p.tensors[0].memory = 0;
  const BaechiSchedule s = Schedule(p, BaechiMethod::kEtf);
  EXPECT_EQ(s.proc[1], 0);
  EXPECT_EQ(s.proc[2], 1);
  EXPECT_EQ(s.proc[0], 1);
  EXPECT_EQ(s.peak_memory[1], 40 + 10);  // the parameter and t2's output
}

TEST(BaechiTest, TopoFillsProcessorsInTurnByMemoryShare) {
  // A chain of four tasks of 10 bytes: share = 40 / 2 + 10 = 30, so three on P0.
  const BaechiProblem p = Problem(2, {1, 1, 1, 1}, {{1}, {2}, {3}, {}});
  EXPECT_EQ(Schedule(p, BaechiMethod::kTopo).proc, (std::vector<int32_t>{0, 0, 0, 1}));
}

TEST(BaechiTest, TopoMovesOnWhenAProcessorIsFull) {
  BaechiProblem p = Problem(2, {1, 1, 1, 1}, {{1}, {2}, {3}, {}});
  p.capacity = {20, 1000};
  const BaechiSchedule s = Schedule(p, BaechiMethod::kTopo);
  EXPECT_EQ(s.proc, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_TRUE(s.fits);
}

// t0 -> t1 carries 10 bytes (2 us), t0 -> t2 1000 bytes (101 us); every task costs 1.
BaechiProblem HeavyEdge() {
  BaechiProblem p = Problem(2, {1, 1, 1}, {{1}, {}, {}});
  p.tensors.push_back(BaechiTensor{0, 1000, 1000, {2}});
  return p;
}

TEST(BaechiTest, LpMakesTheHeavyEdgeTheFavouriteChild) {
  // Only one edge out of t0 may be free; the LP optimum x(0->1) = 101/103,
  // x(0->2) = 2/103 (makespan 2 + 202/103) puts the heavy edge under the threshold.
  bool lp_solved = false;
  const std::vector<int32_t> fav = BaechiFavouriteChildren(HeavyEdge(), BaechiOptions{}, &lp_solved);
  EXPECT_TRUE(lp_solved);
  EXPECT_EQ(fav, (std::vector<int32_t>{2, -1, -1}));
}

TEST(BaechiTest, SctRunsTheFavouriteChildFirst) {
  // At time 1 on P0, ETF takes t1 (earlier in topological order), SCT t0's favourite t2.
  const BaechiSchedule etf = Schedule(HeavyEdge(), BaechiMethod::kEtf);
  EXPECT_EQ(etf.proc, (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(etf.start, (std::vector<double>{0, 1, 2}));
  const BaechiSchedule sct = Schedule(HeavyEdge(), BaechiMethod::kSct);
  EXPECT_EQ(sct.proc, (std::vector<int32_t>{0, 0, 0}));
  EXPECT_EQ(sct.start, (std::vector<double>{0, 2, 1}));
}

TEST(BaechiTest, RejectsACycle) {
  BaechiProblem p = Problem(1, {1, 1}, {{1}, {0}});
  EXPECT_FALSE(ScheduleBaechi(p, BaechiMethod::kEtf).ok());
}

TEST(BaechiTest, RejectsADeferredTaskThatCostsTime) {
  BaechiProblem p = Problem(1, {1, 1}, {{1}, {}});
  p.deferred = {1, 0};
  EXPECT_FALSE(ScheduleBaechi(p, BaechiMethod::kEtf).ok());
}

constexpr BaechiMethod kMethods[] = {BaechiMethod::kTopo, BaechiMethod::kEtf, BaechiMethod::kSct};

TEST(BaechiTest, PlansOfRandomGraphsAreValidColocatedAndDeterministic) {
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost_model;
  for (uint64_t seed : {1u, 2u}) {
    RandomGraphOptions options;
    options.num_ops = 300;
    const Graph g = RandomLayeredGraph(options, seed);
    for (BaechiMethod m : kMethods) {
      StatusOr<Plan> a = BaechiPlan(g, cluster, cost_model, m);
      ASSERT_TRUE(a.ok()) << a.status().message();
      EXPECT_TRUE(ValidatePlan(g, cluster, *a).ok()) << BaechiMethodName(m);
      StatusOr<Plan> b = BaechiPlan(g, cluster, cost_model, m);
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(a->device, b->device) << BaechiMethodName(m);
      for (DeviceId d : a->device) EXPECT_NE(cluster.device(d).kind, DeviceKind::kCpu);
    }
  }
}

TEST(BaechiTest, ListPlacersSpreadAGraphThatOneDeviceCannotHold) {
  // A random training graph on GPUs of 60% of its single-GPU peak: the list placers
  // fit it by their own count, and in the simulator no device comes near the
  // single-GPU peak. (The simulator's peak may pass the placers' count: it runs the
  // ops in ready order and sends tensors as soon as they are made.)
  RandomGraphOptions options;
  options.num_ops = 300;
  const Graph g = RandomLayeredGraph(options, 3);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost_model;
  StatusOr<Simulator> one = Simulator::Create(g, cluster, cost_model);
  ASSERT_TRUE(one.ok());
  StatusOr<SimResult> single = one->Simulate(DefaultPlan(g, 0));
  ASSERT_TRUE(single.ok());
  const int64_t single_peak = single->device_peak_memory[0];
  std::vector<Device> devices = cluster.devices();
  for (Device& d : devices) {
    if (d.kind != DeviceKind::kCpu) d.memory_bytes = single_peak * 6 / 10;
  }
  Cluster limited("limited", devices);
  limited.SetAllLinks(cluster.link(0, 1));
  StatusOr<Simulator> sim = Simulator::Create(g, limited, cost_model);
  ASSERT_TRUE(sim.ok());
  std::vector<DeviceId> procs;
  StatusOr<BaechiProblem> problem = BaechiProblemFromGraph(g, limited, cost_model, &procs);
  ASSERT_TRUE(problem.ok()) << problem.status().message();
  for (BaechiMethod m : {BaechiMethod::kEtf, BaechiMethod::kSct}) {
    StatusOr<BaechiSchedule> s = ScheduleBaechi(*problem, m);
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(s->fits) << BaechiMethodName(m);
    for (size_t q = 0; q < procs.size(); ++q) {
      EXPECT_LE(s->peak_memory[q], limited.device(procs[q]).memory_bytes) << BaechiMethodName(m) << " gpu " << q;
    }
    StatusOr<Plan> plan = BaechiPlan(g, limited, cost_model, m);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    StatusOr<SimResult> r = sim->Simulate(*plan);
    ASSERT_TRUE(r.ok());
    for (DeviceId d : procs) EXPECT_LT(r->device_peak_memory[static_cast<size_t>(d)], single_peak * 9 / 10);
  }
}

TEST(BaechiTest, BuiltInModelsGetValidPlansFromTheRegistry) {
  const CostModel cost_model;
  for (const char* spec : {"rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40", "inception_v3:batch=1"}) {
    const Graph g = testing::Training(spec);
    ASSERT_GT(g.num_ops(), 0) << spec;
    const Cluster cluster = *ClusterPreset("2xP100");
    for (const char* method : {"m-topo", "m-etf", "m-sct", "m-etf+fusion+cp"}) {
      StatusOr<Plan> plan = RunBaseline(method, g, cluster, cost_model);
      ASSERT_TRUE(plan.ok()) << spec << " " << method << ": " << plan.status().message();
      EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok()) << spec << " " << method;
    }
  }
}

}  // namespace
}  // namespace graphopt
