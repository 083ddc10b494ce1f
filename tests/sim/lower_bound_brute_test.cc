// The interval and memory-cut parts of the lower bound: hand-made cases with
// numbers on paper, and a brute force over every plan of small random graphs.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "core/rng.h"
#include "sim/lower_bound.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;
using testing::PerfectCostModel;

TEST(IntervalBoundTest, ThreeOpsBeforeAJoinOnTwoDevices) {
  // a, b, c (10 us each) feed d (10 us): critical path and work are 20 us, but all
  // three must end by T - 10, and 30 us of them fit in [0, T - 10] on two devices
  // only if T - 10 >= 15 (the best plan takes 30: the third waits for a device).
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 9, 100);
  const TensorId b = g.Compute("b", {in}, 9, 100);
  const TensorId c = g.Compute("c", {in}, 9, 100);
  g.Compute("d", {a, b, c}, 9, 100);
  auto lb = ComputeLowerBound(g.graph(), PaperCluster(2), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_DOUBLE_EQ(lb->critical_path_us, 20);
  EXPECT_DOUBLE_EQ(lb->work_us, 20);
  EXPECT_DOUBLE_EQ(lb->interval_us, 25);
  EXPECT_DOUBLE_EQ(lb->value_us(), 25);
}

TEST(IntervalBoundTest, ProvesNothingWhenDevicesOutnumberOps) {
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 9, 100);
  const TensorId b = g.Compute("b", {in}, 9, 100);
  g.Compute("d", {a, b}, 9, 100);
  auto lb = ComputeLowerBound(g.graph(), PaperCluster(3), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_DOUBLE_EQ(lb->interval_us, 0);
}

// input -> m1 (11 us, reads w1) -> m2 (21 us, reads w2); w1 and w2 hold 1 MB each.
struct TwoParameterChain {
  PaperGraph g;
  OpId w1, w2, m1, m2;
  TwoParameterChain() {
    const TensorId in = g.Input("input", 1000);
    const TensorId t1 = g.Variable("w1", 1000000);
    const TensorId t2 = g.Variable("w2", 1000000);
    const TensorId x = g.Compute("m1", {in, t1}, 10, 1000);
    g.Compute("m2", {x, t2}, 20, 1000);
    w1 = g.Producer(t1);
    w2 = g.Producer(t2);
    m1 = g.Producer(x);
    m2 = m1 + 1;
  }
};

TEST(MemoryCutBoundTest, ParametersThatCannotShareADeviceForceATransfer) {
  // 1.5 MB per device: w1 and w2 sit apart, so some edge between them is cut; the
  // cheapest to cut is m1 -> m2 (or input -> m1): 11 + (2 + 1000 B / 1 GB/s) + 21.
  TwoParameterChain c;
  const Cluster cluster = PaperCluster(2, 1500000);
  auto lb = ComputeLowerBound(c.g.graph(), cluster, PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_DOUBLE_EQ(lb->value_us(), 32);
  EXPECT_DOUBLE_EQ(lb->memory_cut_us, 35);
  EXPECT_DOUBLE_EQ(lb->fitting_value_us(), 35);
  EXPECT_FALSE(lb->no_plan_fits);
  // And a plan attains it: {input, w1, m1} on dev0, {w2, m2} on dev1.
  auto sim = Simulator::Create(c.g.graph(), cluster, PerfectCostModel());
  ASSERT_TRUE(sim.ok());
  Plan plan;
  plan.device.assign(5, 0);
  plan.device[static_cast<size_t>(c.w2)] = 1;
  plan.device[static_cast<size_t>(c.m2)] = 1;
  auto r = sim->Simulate(plan);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->oom);
  EXPECT_DOUBLE_EQ(r->step_time_us, 35);
}

TEST(MemoryCutBoundTest, IsZeroWhenEverythingFitsOnOneDevice) {
  TwoParameterChain c;
  auto lb = ComputeLowerBound(c.g.graph(), PaperCluster(2, 3000000), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_DOUBLE_EQ(lb->memory_cut_us, 0);
  EXPECT_DOUBLE_EQ(lb->fitting_value_us(), lb->value_us());
}

TEST(MemoryCutBoundTest, AParameterLargerThanEveryDeviceFitsNoPlan) {
  TwoParameterChain c;
  auto lb = ComputeLowerBound(c.g.graph(), PaperCluster(2, 900000), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_TRUE(lb->no_plan_fits);
  EXPECT_EQ(lb->fitting_value_us(), std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(lb->value_us(), 32);  // the all-plans value is untouched
}

TEST(MemoryCutBoundTest, OneDeviceThatCannotHoldEverythingFitsNoPlan) {
  TwoParameterChain c;
  auto lb = ComputeLowerBound(c.g.graph(), PaperCluster(1, 1500000), PerfectCostModel());
  ASSERT_TRUE(lb.ok());
  EXPECT_TRUE(lb->no_plan_fits);
}

// ---- Brute force ----

// A small random graph: an input, 4..6 ops (tensors of 1..30 x bytes_scale) (MatMuls, some reading a parameter with
// an update op in its colocation group, some fusible Relus) with random times and sizes.
Graph SmallGraph(Rng& rng, int num_ops, int64_t bytes_scale) {
  PaperGraph g("small");
  std::vector<TensorId> tensors = {g.Input("input", rng.UniformInt(1000, 20000))};
  std::vector<TensorId> matmul_outputs;
  for (int i = 0; i < num_ops; ++i) {
    const std::string name = "op" + std::to_string(i);
    if (!matmul_outputs.empty() && rng.Bernoulli(0.25)) {
      const TensorId x = matmul_outputs[rng.Uniform(matmul_outputs.size())];
      const int64_t bytes = g.graph().tensor(x).bytes();
      tensors.push_back(g.Out(g.Add(name, OpKind::kRelu, {x}, {bytes}, 0.001 * rng.UniformInt(0, 5), bytes, bytes)));
      continue;
    }
    std::vector<TensorId> in = {rng.Bernoulli(0.4) ? tensors[0] : tensors[rng.Uniform(tensors.size())]};
    if (rng.Bernoulli(0.4)) {
      const TensorId t = tensors[rng.Uniform(tensors.size())];
      if (t != in[0]) in.push_back(t);
    }
    OpId var = kNoId;
    int64_t param = 0;
    if (rng.Bernoulli(0.5)) {
      param = 50000 * rng.UniformInt(1, 20);
      const TensorId w = g.Variable(name + "/w", param);
      var = g.Producer(w);
      in.push_back(w);
    }
    const TensorId out = g.Compute(name, in, static_cast<double>(rng.UniformInt(1, 40)), bytes_scale * rng.UniformInt(1, 30));
    tensors.push_back(out);
    matmul_outputs.push_back(out);
    if (var != kNoId && rng.Bernoulli(0.5)) {
      const OpId u = g.Add(name + "/update", OpKind::kApplyGradient, {g.Out(var), out}, {}, 0.01, param / 10, param / 10);
      g.graph().mutable_op(u).colocation_group = g.graph().op(var).colocation_group;
      g.graph().mutable_op(u).param_bytes = param;
      ++i;  // an update counts as one of the ops
    }
  }
  return std::move(g.graph());
}

// 2 or 3 devices, sometimes of two speeds; unless fast, with links of varied bandwidth and latency.
// Fast: links of 1 TB/s without latency, where communication hardly counts.
Cluster SmallCluster(Rng& rng, int num_devices, int64_t memory_bytes, bool fast) {
  std::vector<Device> devices = PaperCluster(num_devices, memory_bytes).devices();
  if (rng.Bernoulli(0.3)) devices[static_cast<size_t>(rng.Uniform(devices.size()))].peak_flops = 2.5e12;
  Cluster c("small", devices);
  if (fast) {
    c.SetAllLinks(Link{1e12, 0});
    return c;
  }
  const double bandwidths[] = {0.2e9, 0.5e9, 1e9, 4e9};
  for (DeviceId a = 0; a < num_devices; ++a) {
    for (DeviceId b = 0; b < num_devices; ++b) {
      if (a != b) c.SetLink(a, b, Link{bandwidths[rng.Uniform(4)], static_cast<double>(rng.UniformInt(0, 5))});
    }
  }
  return c;
}

// The units a placement chooses a device for: colocation groups and the other ops.
std::vector<std::vector<OpId>> PlacementUnits(const Graph& g) {
  std::vector<std::vector<OpId>> units;
  std::vector<int> unit_of_group(static_cast<size_t>(g.num_colocation_groups()), -1);
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const int32_t grp = g.op(o).colocation_group;
    if (grp == kNoId) {
      units.push_back({o});
    } else if (unit_of_group[static_cast<size_t>(grp)] < 0) {
      unit_of_group[static_cast<size_t>(grp)] = static_cast<int>(units.size());
      units.push_back({o});
    } else {
      units[static_cast<size_t>(unit_of_group[static_cast<size_t>(grp)])].push_back(o);
    }
  }
  return units;
}

int64_t Factorial(int k) { return k <= 1 ? 1 : k * Factorial(k - 1); }

struct BruteResult {
  double best_all = std::numeric_limits<double>::infinity();
  double best_fitting = std::numeric_limits<double>::infinity();
  int64_t plans = 0, fitting = 0;
};

// Every placement x every legal set of fusion flags x every order of the non-free ops' priorities.
BruteResult EveryPlan(const Graph& g, const Cluster& cluster, const Simulator& sim) {
  const auto units = PlacementUnits(g);
  std::vector<OpId> compute, fusible;
  for (OpId o = 0; o < g.num_ops(); ++o) {
    if (!IsFree(g.op(o).kind)) compute.push_back(o);
    if (CanFuseIntoProducer(g, o)) fusible.push_back(o);
  }
  const int num_devices = cluster.num_devices();
  int64_t placements = 1;
  for (size_t i = 0; i < units.size(); ++i) placements *= num_devices;
  BruteResult best;
  SimScratch scratch;
  Plan plan;
  plan.device.assign(static_cast<size_t>(g.num_ops()), 0);
  plan.priority.assign(static_cast<size_t>(g.num_ops()), 0);
  for (int64_t code = 0; code < placements; ++code) {
    int64_t rest = code;
    for (const auto& unit : units) {
      for (OpId o : unit) plan.device[static_cast<size_t>(o)] = static_cast<DeviceId>(rest % num_devices);
      rest /= num_devices;
    }
    for (uint32_t mask = 0; mask < (1u << fusible.size()); ++mask) {
      plan.fuse_with_producer.assign(static_cast<size_t>(g.num_ops()), 0);
      for (size_t i = 0; i < fusible.size(); ++i) {
        if (mask >> i & 1) plan.fuse_with_producer[static_cast<size_t>(fusible[i])] = 1;
      }
      if (mask != 0 && !ValidatePlan(g, cluster, plan).ok()) continue;
      std::vector<int> order(compute.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
      do {
        for (size_t i = 0; i < compute.size(); ++i) plan.priority[static_cast<size_t>(compute[i])] = order[i];
        auto r = sim.Simulate(plan, {}, &scratch);
        EXPECT_TRUE(r.ok()) << r.status().message();
        if (!r.ok()) return best;
        ++best.plans;
        best.best_all = std::min(best.best_all, r->step_time_us);
        if (!r->oom) {
          ++best.fitting;
          best.best_fitting = std::min(best.best_fitting, r->step_time_us);
        }
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }
  return best;
}

TEST(LowerBoundBruteForceTest, NoPlanOfSmallGraphsBeatsTheBound) {
  constexpr int kCases = 120;
  constexpr int64_t kMaxPlansPerCase = 20000;
  constexpr double kTol = 1e-9;
  Rng rng(2024);
  int cases = 0, tries = 0, interval_above = 0, cut_above = 0, cut_cases = 0, all_fit = 0, none_fit = 0;
  double old_ratio = 0, new_ratio = 0, old_fit_ratio = 0, new_fit_ratio = 0;
  int64_t plans = 0;
  while (cases < kCases && tries < 20 * kCases) {
    ++tries;
    const bool layered = cases % 3 == 2;
    Graph g;
    if (layered) {
      RandomGraphOptions o;
      o.num_ops = static_cast<int>(rng.UniformInt(3, 4));
      o.width = 2;
      o.lookback = 2;
      o.max_inputs = 2;
      o.param_fraction = 0.6;
      o.max_flops = 1e8;
      o.max_tensor_bytes = 200000;
      g = RandomLayeredGraph(o, rng.NextU64());
    } else {
      g = SmallGraph(rng, static_cast<int>(rng.UniformInt(4, 6)), rng.Bernoulli(0.5) ? 100 : 1000);
    }
    const int num_devices = rng.Bernoulli(0.5) ? 2 : 3;
    int num_compute = 0;
    for (OpId o = 0; o < g.num_ops(); ++o) num_compute += !IsFree(g.op(o).kind);
    int64_t count = Factorial(num_compute);
    for (size_t i = 0; i < PlacementUnits(g).size(); ++i) count *= num_devices;
    if (num_compute < 4 || num_compute > 7 || count > kMaxPlansPerCase) continue;

    // Memory: unlimited, or between the largest unit's parameters and all of them
    // plus some activations, so that some plans must split the parameters.
    int64_t resident = 0, largest_group = 0, activations = 0;
    for (const auto& unit : PlacementUnits(g)) {
      int64_t u = 0;
      for (OpId o : unit) u += OpResidentBytes(g, o);
      resident += u;
      largest_group = std::max(largest_group, u);
    }
    for (TensorId t = 0; t < g.num_tensors(); ++t) {
      const OpId p = g.tensor(t).producer;
      if (p == kNoId || g.op(p).kind != OpKind::kVariable) activations += g.tensor(t).bytes();
    }
    int64_t memory = int64_t{1} << 40;
    if (resident > 0 && rng.Bernoulli(0.6)) {
      memory = std::max(largest_group, resident / 2) + static_cast<int64_t>((0.2 + 0.8 * rng.UniformDouble()) * activations);
    }
    const Cluster cluster = SmallCluster(rng, num_devices, memory, cases % 3 == 1);
    const CostModel cost_model = layered ? CostModel() : PerfectCostModel();
    auto sim = Simulator::Create(g, cluster, cost_model);
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    const LowerBound& lb = sim->lower_bound();
    const BruteResult r = EveryPlan(g, cluster, *sim);
    ++cases;
    plans += r.plans;
    const double old_value = std::max(lb.critical_path_us, lb.work_us);
    EXPECT_LE(lb.value_us(), r.best_all * (1 + kTol)) << "case " << cases << " (" << g.name() << ")";
    if (r.fitting > 0) {
      EXPECT_FALSE(lb.no_plan_fits);
      EXPECT_LE(lb.fitting_value_us(), r.best_fitting * (1 + kTol)) << "case " << cases << " (" << g.name() << ")";
    }
    if (std::getenv("LB_BRUTE_VERBOSE")) {
      std::printf("case %d %s D=%d fast=%d ops=%d: cp %.2f work %.2f interval %.2f cut %.2f | best %.2f fit %.2f (%lld/%lld)\n",
                  cases, g.name().c_str(), num_devices, cases % 3 == 1 ? 1 : 0, g.num_ops(), lb.critical_path_us,
                  lb.work_us, lb.interval_us, lb.memory_cut_us, r.best_all, r.best_fitting,
                  static_cast<long long>(r.fitting), static_cast<long long>(r.plans));
    }
    interval_above += lb.interval_us > old_value * (1 + kTol);
    old_ratio += old_value / r.best_all;
    new_ratio += lb.value_us() / r.best_all;
    if (r.fitting == r.plans) ++all_fit;
    if (r.fitting == 0) ++none_fit;
    if (r.fitting > 0 && r.fitting < r.plans) {
      ++cut_cases;
      cut_above += lb.memory_cut_us > lb.value_us() * (1 + kTol);
      old_fit_ratio += old_value / r.best_fitting;
      new_fit_ratio += lb.fitting_value_us() / r.best_fitting;
    }
  }
  EXPECT_EQ(cases, kCases);
  std::printf(
      "brute force: %d cases, %lld plans; interval part above the old bound in %d; of the %d cases where some plans "
      "are OOM and some fit, memory cut above the all-plans value in %d (all fit: %d, none fits: %d)\n"
      "mean old/optimum %.4f, new/optimum %.4f; over fitting plans (%d mixed cases): old %.4f, fitting value %.4f\n",
      cases, static_cast<long long>(plans), interval_above, cut_cases, cut_above, all_fit, none_fit,
      old_ratio / cases, new_ratio / cases, cut_cases, cut_cases ? old_fit_ratio / cut_cases : 0,
      cut_cases ? new_fit_ratio / cut_cases : 0);
  EXPECT_GT(interval_above, 0);
  EXPECT_GT(cut_above, 0);
}

TEST(LowerBoundBruteForceTest, RandomPlansOfWiderGraphsRespectBothValues) {
  Rng rng(5);
  int fitting = 0;
  for (int i = 0; i < 12; ++i) {
    RandomGraphOptions o;
    o.num_ops = 40;
    o.width = 10;
    o.param_fraction = 0.5;
    o.max_flops = 1e8;
    o.max_tensor_bytes = 100000;
    const Graph g = RandomLayeredGraph(o, rng.NextU64());
    int64_t resident = 0;
    for (OpId op = 0; op < g.num_ops(); ++op) resident += OpResidentBytes(g, op);
    const int num_devices = 2 + i % 3;
    const Cluster cluster = SmallCluster(rng, num_devices, resident / num_devices + 400000, i % 2 == 0);
    auto sim = Simulator::Create(g, cluster);
    ASSERT_TRUE(sim.ok()) << sim.status().message();
    const LowerBound& lb = sim->lower_bound();
    for (int k = 0; k < 200; ++k) {
      RandomPlanOptions po;
      po.fuse_probability = 0.5;
      auto r = sim->Simulate(RandomPlan(g, cluster, po, rng));
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_GE(r->step_time_us, lb.value_us() * (1 - 1e-9));
      if (!r->oom) {
        ++fitting;
        EXPECT_GE(r->step_time_us, lb.fitting_value_us() * (1 - 1e-9));
      }
    }
  }
  EXPECT_GT(fitting, 0);
}

// Not run by default (--gtest_also_run_disabled_tests): the bound's time on an 80,000-op graph.
TEST(LowerBoundBruteForceTest, DISABLED_TimeOnALargeGraph) {
  RandomGraphOptions o;
  o.num_ops = 80000;
  const Graph g = RandomLayeredGraph(o, 7);
  for (const char* name : {"4xV100", "8xV100", "8xH100-nvlink"}) {
    const Cluster cluster = *ClusterPreset(name);
    const auto start = std::chrono::steady_clock::now();
    auto lb = ComputeLowerBound(g, cluster, CostModel());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_TRUE(lb.ok());
    std::printf("%s, %d ops: %.3f s; critical path %.1f, work %.1f, interval %.1f, memory cut %.1f us\n", name,
                g.num_ops(), s, lb->critical_path_us, lb->work_us, lb->interval_us, lb->memory_cut_us);
  }
}

}  // namespace
}  // namespace graphopt
