// HEFT: the abstract scheduler on the example of "Performance-Effective and
// Low-Complexity Task Scheduling for Heterogeneous Computing" (IEEE TPDS, 2002), and
// HeftPlan on graphs.
#include "baselines/heft.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "baselines/baseline.h"
#include "core/rng.h"
#include "graph/builder.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

// The paper's 10 tasks on 3 processors (its Fig. 2 and computation-cost table); tasks
// n1..n10 are 0..9, an edge's data is its communication cost (unit transfer rate, no
// startup time).
HeftProblem TextbookProblem() {
  HeftProblem p;
  p.num_tasks = 10;
  p.num_procs = 3;
  // clang-format off
  //         P1  P2  P3
  p.cost = {14, 16,  9,   // n1
            13, 19, 18,   // n2
            11, 13, 19,   // n3
            13,  8, 17,   // n4
            12, 13, 10,   // n5
            13, 16,  9,   // n6
             7, 15, 11,   // n7
             5, 11, 14,   // n8
            18, 12, 20,   // n9
            21,  7, 16};  // n10
  // clang-format on
  const double edges[][3] = {{1, 2, 18}, {1, 3, 12}, {1, 4, 9},   {1, 5, 11},  {1, 6, 14},
                             {2, 8, 19}, {2, 9, 16}, {3, 7, 23},  {4, 8, 27},  {4, 9, 23},
                             {5, 9, 13}, {6, 8, 15}, {7, 10, 17}, {8, 10, 11}, {9, 10, 13}};
  for (const auto& e : edges)
    p.edges.push_back(HeftEdge{static_cast<int32_t>(e[0]) - 1, static_cast<int32_t>(e[1]) - 1, e[2]});
  return p;
}

TEST(HeftTest, TextbookUpwardRanksMatchThePaper) {
  const std::vector<double> rank = HeftUpwardRanks(TextbookProblem());
  // Published (rounded to one decimal): 108.0, 77.0, 80.0, 80.0, 69.0, 63.3, 42.7, 35.7, 44.3, 14.7.
  const std::vector<double> expected = {108, 77, 80, 80, 69, 190.0 / 3, 128.0 / 3, 107.0 / 3, 133.0 / 3, 44.0 / 3};
  ASSERT_EQ(rank.size(), expected.size());
  for (size_t i = 0; i < rank.size(); ++i) EXPECT_NEAR(rank[i], expected[i], 1e-9) << "task n" << i + 1;
}

TEST(HeftTest, TextbookExampleHasPublishedScheduleLength) {
  StatusOr<HeftSchedule> s = ScheduleHeft(TextbookProblem());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_DOUBLE_EQ(s->makespan, 80.0);
}

TEST(HeftTest, TextbookExampleFollowsThePublishedOrder) {
  StatusOr<HeftSchedule> s = ScheduleHeft(TextbookProblem());
  ASSERT_TRUE(s.ok()) << s.status().message();
  // n1, n3, n4, n2, n5, n6, n9, n7, n8, n10 (n3 and n4 tie at rank 80).
  EXPECT_EQ(s->order, (std::vector<int32_t>{0, 2, 3, 1, 4, 5, 8, 6, 7, 9}));
}

TEST(HeftTest, TextbookExampleMatchesThePublishedSchedule) {
  StatusOr<HeftSchedule> s = ScheduleHeft(TextbookProblem());
  ASSERT_TRUE(s.ok()) << s.status().message();
  // P1: n2 [27, 40), n8 [57, 62); P2: n4 [18, 26), n6 [26, 42), n9 [56, 68), n10 [73, 80);
  // P3: n1 [0, 9), n3 [9, 28), n5 [28, 38), n7 [38, 49).
  EXPECT_EQ(s->proc, (std::vector<int32_t>{2, 0, 2, 1, 2, 1, 2, 0, 1, 1}));
  EXPECT_EQ(s->start, (std::vector<double>{0, 27, 9, 18, 28, 26, 38, 57, 56, 73}));
  EXPECT_EQ(s->finish, (std::vector<double>{9, 40, 28, 26, 38, 42, 49, 62, 68, 80}));
}

TEST(HeftTest, InsertionPutsALaterTaskIntoAnEarlierIdleSlot) {
  // t0 runs on P1 until 10; t1 waits for t0's data (20) and runs on P0 at [30, 35);
  // t2, scheduled last, fits into P0's idle slot [0, 30).
  HeftProblem p;
  p.num_tasks = 3;
  p.num_procs = 2;
  p.cost = {100, 10, 5, 100, 20, 60};
  p.edges = {HeftEdge{0, 1, 20}};
  StatusOr<HeftSchedule> s = ScheduleHeft(p);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->order, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(s->proc, (std::vector<int32_t>{1, 0, 0}));
  EXPECT_EQ(s->start[1], 30);
  EXPECT_EQ(s->start[2], 0);
  EXPECT_EQ(s->makespan, 35);
}

// Insertion-based EFT with a linear scan over each processor's busy intervals, in
// the order ScheduleHeft chose: a reference for its idle-slot search tree.
HeftSchedule LinearScanSchedule(const HeftProblem& p, const std::vector<int32_t>& order) {
  HeftSchedule s;
  s.proc.assign(static_cast<size_t>(p.num_tasks), -1);
  s.start.assign(static_cast<size_t>(p.num_tasks), 0);
  s.finish.assign(static_cast<size_t>(p.num_tasks), 0);
  std::vector<std::vector<std::pair<double, double>>> busy(static_cast<size_t>(p.num_procs));
  for (int32_t t : order) {
    double best_start = 0, best_finish = 1e300;
    int best = -1;
    for (int q = 0; q < p.num_procs; ++q) {
      double ready = 0;
      for (const HeftEdge& e : p.edges) {
        if (e.to != t) continue;
        ready = std::max(ready,
                         s.finish[static_cast<size_t>(e.from)] + p.CommTime(e, s.proc[static_cast<size_t>(e.from)], q));
      }
      const double w = p.Cost(t, q);
      double start = ready;
      if (w > 0) {
        for (const auto& [b, e] : busy[static_cast<size_t>(q)]) {
          if (e <= start) continue;
          if (start + w <= b) break;
          start = e;
        }
      }
      if (start + w < best_finish) {
        best = q;
        best_start = start;
        best_finish = start + w;
      }
    }
    s.proc[static_cast<size_t>(t)] = best;
    s.start[static_cast<size_t>(t)] = best_start;
    s.finish[static_cast<size_t>(t)] = best_finish;
    if (best_finish > best_start) {
      auto& b = busy[static_cast<size_t>(best)];
      b.emplace_back(best_start, best_finish);
      std::sort(b.begin(), b.end());
    }
  }
  return s;
}

TEST(HeftTest, IdleSlotSearchMatchesALinearScan) {
  Rng rng(42);
  int insertions = 0;  // tasks placed before a task scheduled earlier on their processor
  for (int trial = 0; trial < 50; ++trial) {
    HeftProblem p;
    p.num_tasks = 80;
    p.num_procs = 2 + static_cast<int>(rng.Uniform(3));
    for (int i = 0; i < p.num_tasks * p.num_procs; ++i)
      p.cost.push_back(rng.Bernoulli(0.1) ? 0 : static_cast<double>(rng.UniformInt(1, 30)));
    for (int v = 1; v < p.num_tasks; ++v) {
      const int k = static_cast<int>(rng.UniformInt(0, 3));
      for (int j = 0; j < k; ++j) {
        p.edges.push_back(HeftEdge{static_cast<int32_t>(rng.Uniform(static_cast<uint64_t>(v))), v,
                                   static_cast<double>(rng.UniformInt(0, 40))});
      }
    }
    for (int a = 0; a < p.num_procs * p.num_procs; ++a) {
      p.latency.push_back(static_cast<double>(rng.UniformInt(0, 3)));
      p.time_per_unit.push_back(static_cast<double>(rng.UniformInt(1, 2)));
    }
    StatusOr<HeftSchedule> s = ScheduleHeft(p);
    ASSERT_TRUE(s.ok()) << s.status().message();
    const HeftSchedule ref = LinearScanSchedule(p, s->order);
    EXPECT_EQ(s->proc, ref.proc) << "trial " << trial;
    EXPECT_EQ(s->start, ref.start) << "trial " << trial;
    EXPECT_EQ(s->finish, ref.finish) << "trial " << trial;
    std::vector<double> last_end(static_cast<size_t>(p.num_procs), 0);
    for (int32_t t : s->order) {
      const size_t q = static_cast<size_t>(s->proc[static_cast<size_t>(t)]);
      if (s->finish[static_cast<size_t>(t)] <= s->start[static_cast<size_t>(t)]) continue;
      if (s->start[static_cast<size_t>(t)] < last_end[q]) ++insertions;
      last_end[q] = std::max(last_end[q], s->finish[static_cast<size_t>(t)]);
    }
  }
  EXPECT_GT(insertions, 0);
}

TEST(HeftTest, ColocationGroupFollowsItsFirstScheduledMember) {
  // Task 0 prefers P0, task 1 prefers P1; same rank, task 0 goes first and pins the group.
  HeftProblem p;
  p.num_tasks = 2;
  p.num_procs = 2;
  p.cost = {1, 10, 10, 1};
  p.group = {7, 7};
  StatusOr<HeftSchedule> s = ScheduleHeft(p);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->proc, (std::vector<int32_t>{0, 0}));
  EXPECT_EQ(s->makespan, 11);
}

TEST(HeftTest, DeferredEntryTaskGoesWithItsFirstConsumer) {
  // Task 0 costs nothing; its consumer is fast on P1 and sees the data as local there.
  HeftProblem p;
  p.num_tasks = 2;
  p.num_procs = 2;
  p.cost = {0, 0, 10, 1};
  p.edges = {HeftEdge{0, 1, 100}};
  p.deferred = {1, 0};
  StatusOr<HeftSchedule> s = ScheduleHeft(p);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->proc, (std::vector<int32_t>{1, 1}));
  EXPECT_EQ(s->makespan, 1);
}

TEST(HeftTest, CommunicationUsesLatencyAndTimePerUnit) {
  HeftProblem p;
  p.num_procs = 2;
  p.latency = {0, 3, 5, 0};
  p.time_per_unit = {0, 2, 4, 0};
  const HeftEdge e{0, 1, 10, 2};
  EXPECT_EQ(p.CommTime(e, 0, 1), 2 * 3 + 10 * 2);
  EXPECT_EQ(p.CommTime(e, 1, 0), 2 * 5 + 10 * 4);
  EXPECT_EQ(p.CommTime(e, 1, 1), 0);
}

TEST(HeftTest, RejectsACycle) {
  HeftProblem p;
  p.num_tasks = 2;
  p.num_procs = 1;
  p.cost = {1, 1};
  p.edges = {HeftEdge{0, 1, 1}, HeftEdge{1, 0, 1}};
  StatusOr<HeftSchedule> s = ScheduleHeft(p);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("cycle"), std::string::npos) << s.status().message();
}

TEST(HeftTest, RejectsACostMatrixOfTheWrongSize) {
  HeftProblem p = TextbookProblem();
  p.cost.pop_back();
  EXPECT_FALSE(ScheduleHeft(p).ok());
}

Device TestGpu(const std::string& name, double tflops) {
  Device d;
  d.name = name;
  d.kind = DeviceKind::kGpu;
  d.peak_flops = tflops * 1e12;
  d.memory_bandwidth = 900e9;
  d.memory_bytes = int64_t{16} << 30;
  d.launch_overhead_us = 5;
  return d;
}

TEST(HeftTest, ChainGoesToTheFastestDevice) {
  Cluster cluster("slow+fast", {TestGpu("gpu:0", 1), TestGpu("gpu:1", 10)});
  cluster.SetAllLinks(Link{10e9, 10});
  GraphBuilder b("chain");
  TensorId h = b.Input("x", {256, 512});
  for (int i = 0; i < 4; ++i) h = b.Relu(b.MatMul(h, b.Variable("w" + std::to_string(i), {512, 512})));
  const Graph graph = b.Finish();
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (OpId o = 0; o < graph.num_ops(); ++o) EXPECT_EQ(plan->device[static_cast<size_t>(o)], 1) << graph.op(o).name;
}

TEST(HeftTest, ChainOnOneDeviceTakesSumOfCosts) {
  Cluster cluster("slow+fast", {TestGpu("gpu:0", 1), TestGpu("gpu:1", 10)});
  cluster.SetAllLinks(Link{10e9, 10});
  GraphBuilder b("chain");
  TensorId h = b.Input("x", {256, 512});
  for (int i = 0; i < 4; ++i) h = b.Tanh(b.MatMul(h, b.Variable("w" + std::to_string(i), {512, 512})));
  const Graph graph = b.Finish();
  const CostModel cost_model;
  std::vector<DeviceId> devices;
  StatusOr<HeftSchedule> s = ScheduleGraphHeft(graph, cluster, cost_model, &devices);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(devices, (std::vector<DeviceId>{0, 1}));
  double sum = 0;
  for (const Op& op : graph.ops()) sum += cost_model.OpTimeUs(op, cluster.device(1));
  EXPECT_NEAR(s->makespan, sum, 1e-9 * sum);
}

TEST(HeftTest, CpuOnlyClusterPutsEverythingOnTheCpu) {
  const Cluster cluster = *ClusterPreset("cpu");
  RandomGraphOptions options;
  options.num_ops = 200;
  const Graph graph = RandomLayeredGraph(options, 8);
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->device, std::vector<DeviceId>(static_cast<size_t>(graph.num_ops()), 0));
}

TEST(HeftTest, PlanOfRandomTrainingGraphIsValid) {
  const Cluster cluster = *ClusterPreset("4xV100");
  RandomGraphOptions options;
  options.num_ops = 2000;
  const Graph graph = RandomLayeredGraph(options, 7);
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(graph, cluster, *plan).ok()) << ValidatePlan(graph, cluster, *plan).message();
}

TEST(HeftTest, PlanUsesAcceleratorsOnly) {
  const Cluster cluster = *ClusterPreset("4xK40+cpu");
  RandomGraphOptions options;
  options.num_ops = 500;
  const Graph graph = RandomLayeredGraph(options, 3);
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (DeviceId d : plan->device) EXPECT_NE(cluster.device(d).kind, DeviceKind::kCpu);
}

TEST(HeftTest, PrioritiesNeverIncreaseAlongAnEdge) {
  const Cluster cluster = *ClusterPreset("8xV100-nvlink");
  RandomGraphOptions options;
  options.num_ops = 1000;
  const Graph graph = RandomLayeredGraph(options, 11);
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  for (OpId v = 0; v < graph.num_ops(); ++v) {
    if (IsFree(graph.op(v).kind)) continue;
    for (TensorId t : graph.op(v).inputs) {
      const OpId u = graph.tensor(t).producer;
      EXPECT_GE(plan->priority[static_cast<size_t>(u)], plan->priority[static_cast<size_t>(v)]);
    }
  }
}

TEST(HeftTest, SpreadsIndependentWorkOverDevices) {
  // Four independent heavy branches on four equal GPUs: one branch per GPU.
  const Cluster cluster = *ClusterPreset("4xV100");
  GraphBuilder b("branches");
  for (int i = 0; i < 4; ++i) {
    TensorId h = b.Input("x" + std::to_string(i), {1024, 1024});
    for (int k = 0; k < 3; ++k)
      h = b.MatMul(h, b.Variable("w" + std::to_string(i) + "_" + std::to_string(k), {1024, 1024}));
  }
  const Graph graph = b.Finish();
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<int> per_device(4, 0);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    if (graph.op(o).kind == OpKind::kMatMul) ++per_device[static_cast<size_t>(plan->device[static_cast<size_t>(o)])];
  }
  EXPECT_EQ(per_device, (std::vector<int>{3, 3, 3, 3}));
}

TEST(HeftTest, LargeRandomGraphIsScheduled) {
  const Cluster cluster = *ClusterPreset("8xV100-nvlink");
  RandomGraphOptions options;
  options.num_ops = 40000;
  options.width = 32;
  const Graph graph = RandomLayeredGraph(options, 5);
  StatusOr<Plan> plan = HeftPlan(graph, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(graph, cluster, *plan).ok());
}

}  // namespace
}  // namespace graphopt
