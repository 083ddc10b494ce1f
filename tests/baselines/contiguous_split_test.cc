// Optimal contiguous splits (baselines/contiguous_split.h): the DP against brute force
// on random small problems, an example worked out by hand, and plans on graphs.
#include "baselines/contiguous_split.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "../testing/models.h"
#include "baselines/baseline.h"
#include "sim/random_graph.h"

namespace graphopt {
namespace {

constexpr SplitObjective kObjectives[] = {SplitObjective::kSum, SplitObjective::kMax};

// Four units in a chain (unit u's tensor of 10 bytes read by u + 1), compute 3, 1, 2, 4
// on either of two devices, 10 bytes of memory each; a transfer costs 1 + 10 x 0.1 = 2.
SplitProblem Chain(int64_t capacity) {
  SplitProblem p;
  p.num_units = 4;
  p.num_devices = 2;
  for (double c : {3.0, 1.0, 2.0, 4.0}) p.compute.insert(p.compute.end(), 2, c);
  p.memory.assign(4, 10);
  for (int32_t u = 0; u < 3; ++u) p.tensors.push_back(SplitTensor{u, {u + 1}, 10});
  p.latency.assign(2, 1.0);
  p.time_per_byte.assign(2, 0.1);
  p.capacity.assign(2, capacity);
  return p;
}

ContiguousSplit Solve(const SplitProblem& p, SplitObjective objective) {
  StatusOr<ContiguousSplit> s = SolveContiguousSplit(p, objective);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : ContiguousSplit{};
}

TEST(ContiguousSplitTest, SumWithRoomKeepsTheChainOnOneDevice) {
  // No cut saves compute and each cut adds a transfer of 2: all on device 0, cost 10.
  const ContiguousSplit s = Solve(Chain(40), SplitObjective::kSum);
  EXPECT_EQ(s.bounds, (std::vector<int32_t>{0, 4, 4}));
  EXPECT_DOUBLE_EQ(s.cost, 10);
  EXPECT_TRUE(s.fits);
}

TEST(ContiguousSplitTest, SumCutsWhereMemoryForcesAtTheLatestTie) {
  // Capacity 30: block 0 = [0, a) holds 10a, block 1 holds 10(4 - a) + 10 (the copy
  // of the tensor it receives), so a is 2 or 3, each costing 10 + 2: the latest wins.
  const ContiguousSplit s = Solve(Chain(30), SplitObjective::kSum);
  EXPECT_EQ(s.bounds, (std::vector<int32_t>{0, 3, 4}));
  EXPECT_DOUBLE_EQ(s.cost, 12);
  EXPECT_EQ(s.block_memory, (std::vector<int64_t>{30, 20}));
  EXPECT_TRUE(s.fits);
}

TEST(ContiguousSplitTest, MaxBalancesTheBlocks) {
  // Cut at a = 1, 2, 3: max(3, 7 + 2) = 9, max(4, 6 + 2) = 8, max(6, 4 + 2) = 6.
  const ContiguousSplit s = Solve(Chain(40), SplitObjective::kMax);
  EXPECT_EQ(s.bounds, (std::vector<int32_t>{0, 3, 4}));
  EXPECT_DOUBLE_EQ(s.cost, 6);
  EXPECT_EQ(s.block_cost, (std::vector<double>{6, 6}));
}

TEST(ContiguousSplitTest, NoFitGivesTheLeastOverflowingSplit) {
  // Capacity 15: overflow 25 with no cut (or a = 1), 5 + 15 at a = 2, 15 + 5 at a = 3
  // (both costing 12: the latest cut wins).
  const ContiguousSplit s = Solve(Chain(15), SplitObjective::kSum);
  EXPECT_FALSE(s.fits);
  EXPECT_EQ(s.overflow_bytes, 20);
  EXPECT_EQ(s.bounds, (std::vector<int32_t>{0, 3, 4}));
  StatusOr<ContiguousSplit> strict = SolveContiguousSplit(Chain(15), SplitObjective::kSum, /*require_fit=*/true);
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(strict.status().message().find("20 bytes"), std::string::npos) << strict.status().message();
}

TEST(ContiguousSplitTest, RejectsAnInvalidProblem) {
  SplitProblem p = Chain(40);
  p.tensors[0].consumers = {0};
  EXPECT_FALSE(SolveContiguousSplit(p, SplitObjective::kSum).ok());
  p = Chain(40);
  p.compute[3] = -1;
  EXPECT_FALSE(SolveContiguousSplit(p, SplitObjective::kSum).ok());
  EXPECT_FALSE(EvaluateSplit(Chain(40), {0, 3, 2}, SplitObjective::kSum).ok());
}

// A random problem: up to 10 units and 4 devices, integer-valued costs, tensors read
// forward and backward, capacities from ample to too small for any split.
SplitProblem RandomProblem(std::mt19937_64* rng) {
  auto uniform = [rng](int lo, int hi) { return lo + static_cast<int>((*rng)() % static_cast<uint64_t>(hi - lo + 1)); };
  SplitProblem p;
  p.num_units = uniform(1, 10);
  p.num_devices = uniform(1, 4);
  for (int i = 0; i < p.num_units * p.num_devices; ++i) p.compute.push_back(uniform(0, 20));
  int64_t total = 0;
  for (int u = 0; u < p.num_units; ++u) total += p.memory.emplace_back(uniform(0, 40));
  const int num_tensors = uniform(0, 2 * p.num_units);
  for (int x = 0; x < num_tensors && p.num_units > 1; ++x) {
    SplitTensor t;
    t.producer = uniform(0, p.num_units - 1);
    t.bytes = uniform(0, 30);
    for (int32_t u = 0; u < p.num_units; ++u) {
      if (u != t.producer && uniform(0, 2) == 0) t.consumers.push_back(u);
    }
    if (t.consumers.empty()) t.consumers.push_back((t.producer + 1) % p.num_units);
    total += t.bytes;
    p.tensors.push_back(t);
  }
  for (int k = 0; k < p.num_devices; ++k) {
    p.latency.push_back(uniform(0, 5));
    p.time_per_byte.push_back(uniform(0, 4) / 8.0);
    p.capacity.push_back(uniform(0, static_cast<int>(total) * 2 / p.num_devices + 1));
  }
  return p;
}

// The cost of a split from scratch: each block's compute, and every tensor once into
// each other block that reads it (its bytes to that block's memory too).
struct Scored {
  int64_t overflow = 0;
  double cost = 0;
};
Scored BruteScore(const SplitProblem& p, const std::vector<int32_t>& bounds, SplitObjective objective) {
  std::vector<double> cost(static_cast<size_t>(p.num_devices), 0.0);
  std::vector<int64_t> memory(static_cast<size_t>(p.num_devices), 0);
  auto block_of = [&](int u) {
    int k = 0;
    while (!(bounds[static_cast<size_t>(k)] <= u && u < bounds[static_cast<size_t>(k + 1)])) ++k;
    return k;
  };
  for (int u = 0; u < p.num_units; ++u) {
    cost[static_cast<size_t>(block_of(u))] += p.Compute(u, block_of(u));
    memory[static_cast<size_t>(block_of(u))] += p.memory[static_cast<size_t>(u)];
  }
  for (const SplitTensor& t : p.tensors) {
    for (int k = 0; k < p.num_devices; ++k) {
      if (k == block_of(t.producer)) continue;
      const bool read =
          std::any_of(t.consumers.begin(), t.consumers.end(), [&](int32_t c) { return block_of(c) == k; });
      if (!read) continue;
      cost[static_cast<size_t>(k)] +=
          p.latency[static_cast<size_t>(k)] + t.bytes * p.time_per_byte[static_cast<size_t>(k)];
      memory[static_cast<size_t>(k)] += t.bytes;
    }
  }
  Scored s;
  for (int k = 0; k < p.num_devices; ++k) {
    s.overflow += std::max<int64_t>(0, memory[static_cast<size_t>(k)] - p.capacity[static_cast<size_t>(k)]);
    s.cost = objective == SplitObjective::kSum ? s.cost + cost[static_cast<size_t>(k)]
                                               : std::max(s.cost, cost[static_cast<size_t>(k)]);
  }
  return s;
}

// The best of every split (K + 1 non-decreasing cuts of [0, n], empty blocks allowed).
Scored BruteForce(const SplitProblem& p, SplitObjective objective) {
  std::vector<int32_t> bounds(static_cast<size_t>(p.num_devices + 1), 0);
  bounds.back() = p.num_units;
  Scored best{std::numeric_limits<int64_t>::max(), 0};
  while (true) {
    const Scored s = BruteScore(p, bounds, objective);
    if (s.overflow < best.overflow || (s.overflow == best.overflow && s.cost < best.cost)) best = s;
    // The next cuts bounds[1..K-1], in lexicographic order.
    int k = p.num_devices - 1;
    while (k >= 1 && bounds[static_cast<size_t>(k)] == p.num_units) --k;
    if (k < 1) break;
    ++bounds[static_cast<size_t>(k)];
    for (int j = k + 1; j < p.num_devices; ++j) bounds[static_cast<size_t>(j)] = bounds[static_cast<size_t>(k)];
  }
  return best;
}

TEST(ContiguousSplitTest, EqualsBruteForceOnRandomSmallProblems) {
  std::mt19937_64 rng(0);
  int feasible = 0, infeasible = 0;
  for (int instance = 0; instance < 300; ++instance) {
    const SplitProblem p = RandomProblem(&rng);
    for (SplitObjective objective : kObjectives) {
      const Scored brute = BruteForce(p, objective);
      const ContiguousSplit dp = Solve(p, objective);
      ASSERT_EQ(dp.overflow_bytes, brute.overflow) << "instance " << instance;
      ASSERT_NEAR(dp.cost, brute.cost, 1e-9 * (1 + brute.cost)) << "instance " << instance;
      EXPECT_EQ(dp.fits, brute.overflow == 0);
      // The DP's own numbers are those of its split evaluated directly.
      StatusOr<ContiguousSplit> again = EvaluateSplit(p, dp.bounds, objective);
      ASSERT_TRUE(again.ok()) << again.status().message();
      EXPECT_EQ(again->overflow_bytes, dp.overflow_bytes);
      EXPECT_NEAR(again->cost, dp.cost, 1e-9 * (1 + dp.cost));
      (brute.overflow == 0 ? feasible : infeasible) += 1;
    }
  }
  // Both cases were exercised.
  EXPECT_GE(feasible, 100);
  EXPECT_GE(infeasible, 100);
}

TEST(ContiguousSplitTest, LayersAreTheUnitsOfBuiltInModels) {
  const Graph g = testing::Training("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40");
  const Cluster cluster = *ClusterPreset("2xP100");
  StatusOr<SplitUnits> units = ContiguousSplitUnits(g, cluster, CostModel());
  ASSERT_TRUE(units.ok()) << units.status().message();
  EXPECT_TRUE(units->by_layer);
  EXPECT_GE(units->num_units, 4);  // embedding, two LSTM layers, softmax
  // A gradient op is in its forward op's unit.
  for (OpId o = 0; o < g.num_ops(); ++o) {
    const OpId f = g.op(o).forward_op;
    if (g.op(o).phase == Phase::kBackward && f != kNoId && g.op(f).layer != kNoId && g.op(o).layer == g.op(f).layer) {
      EXPECT_EQ(units->op_unit[static_cast<size_t>(o)], units->op_unit[static_cast<size_t>(f)]) << g.op(o).name;
    }
  }
}

TEST(ContiguousSplitTest, GraphsWithoutLayersUseRunsOfTheTopologicalOrder) {
  RandomGraphOptions options;
  options.num_ops = 300;
  const Graph g = RandomLayeredGraph(options, 1);
  const Cluster cluster = *ClusterPreset("4xV100");
  StatusOr<SplitUnits> units = ContiguousSplitUnits(g, cluster, CostModel());
  ASSERT_TRUE(units.ok()) << units.status().message();
  if (g.layer_names().size() < 2) {
    EXPECT_FALSE(units->by_layer);
  }
  EXPECT_LE(units->num_units, kMaxSplitUnits);
  for (SplitObjective objective : kObjectives) {
    StatusOr<Plan> plan = ContiguousSplitPlan(g, cluster, CostModel(), objective);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok());
  }
}

TEST(ContiguousSplitTest, MemorySplitsAModelThatOneDeviceCannotHold) {
  const Graph g = testing::Training("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40");
  const Cluster cluster = *ClusterPreset("2xP100");
  const CostModel cost_model;
  StatusOr<SplitUnits> units = ContiguousSplitUnits(g, cluster, cost_model);
  ASSERT_TRUE(units.ok());
  std::vector<DeviceId> devices;
  StatusOr<SplitProblem> p = SplitProblemFromGraph(g, cluster, cost_model, *units, &devices);
  ASSERT_TRUE(p.ok()) << p.status().message();
  // With room, the sum keeps everything on one device (the devices are alike).
  const ContiguousSplit roomy = Solve(*p, SplitObjective::kSum);
  EXPECT_TRUE(roomy.fits);
  EXPECT_EQ(roomy.bounds[1], p->num_units);
  int64_t total = 0;
  for (int64_t m : p->memory) total += m;
  p->capacity.assign(p->capacity.size(), total * 7 / 10);
  const ContiguousSplit tight = Solve(*p, SplitObjective::kSum);
  EXPECT_TRUE(tight.fits);
  EXPECT_GT(tight.bounds[1], 0);
  EXPECT_LT(tight.bounds[1], p->num_units);
  EXPECT_GT(tight.cost, roomy.cost);
}

TEST(ContiguousSplitTest, BuiltInModelsGetValidDeterministicPlansFromTheRegistry) {
  const CostModel cost_model;
  for (const char* spec : {"rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40", "inception_v3:batch=1"}) {
    const Graph g = testing::Training(spec);
    ASSERT_GT(g.num_ops(), 0) << spec;
    const Cluster cluster = *ClusterPreset("2xP100");
    for (const char* method : {"contiguous-split", "contiguous-split-max", "contiguous-split-max+fusion+cp"}) {
      StatusOr<Plan> a = RunBaseline(method, g, cluster, cost_model);
      ASSERT_TRUE(a.ok()) << spec << " " << method << ": " << a.status().message();
      EXPECT_TRUE(ValidatePlan(g, cluster, *a).ok()) << spec << " " << method;
      StatusOr<Plan> b = RunBaseline(method, g, cluster, cost_model);
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(a->device, b->device) << spec << " " << method;
      for (DeviceId d : a->device) EXPECT_NE(cluster.device(d).kind, DeviceKind::kCpu);
    }
  }
}

}  // namespace
}  // namespace graphopt
