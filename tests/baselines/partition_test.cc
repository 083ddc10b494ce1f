// METIS and Scotch placements on graphs whose right partition is known by hand:
// balanced contiguous parts of a uniform chain, colocation groups kept whole,
// determinism under a fixed seed, OOM reported rather than repaired.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "../testing/clusters.h"
#include "../testing/graphs.h"
#include "baselines/baseline.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::AddTimedOp;
using testing::Preset;
using PlanFn = StatusOr<Plan> (*)(const Graph&, const Cluster&, const CostModel&, const BaselineOptions&);

// A chain of n ops of 10 us each, op i feeding op i + 1.
Graph UniformChain(int n) {
  Graph g("chain");
  std::vector<TensorId> in;
  for (int i = 0; i < n; ++i) {
    const OpId o = AddTimedOp(g, "op" + std::to_string(i), in, 10.0);
    in = {g.op(o).outputs[0]};
  }
  return g;
}

// A chain of 2n ops where op i and op i + n share a colocation group (i < n): every
// group spans the chain, so a partition of the ops alone would split them.
Graph ChainWithDistantGroups(int n) {
  Graph g = UniformChain(2 * n);
  for (int i = 0; i < n; ++i) {
    const int32_t group = g.NewColocationGroup();
    g.mutable_op(i).colocation_group = group;
    g.mutable_op(i + n).colocation_group = group;
  }
  return g;
}

// A side x side grid DAG (op (r, c) feeds (r + 1, c) and (r, c + 1)) with uneven
// op times and tensor sizes.
Graph Grid(int side) {
  Graph g("grid");
  std::vector<std::vector<OpId>> id(static_cast<size_t>(side), std::vector<OpId>(static_cast<size_t>(side)));
  for (int r = 0; r < side; ++r) {
    for (int c = 0; c < side; ++c) {
      std::vector<TensorId> in;
      if (r > 0) in.push_back(g.op(id[static_cast<size_t>(r - 1)][static_cast<size_t>(c)]).outputs[0]);
      if (c > 0) in.push_back(g.op(id[static_cast<size_t>(r)][static_cast<size_t>(c - 1)]).outputs[0]);
      const double us = 5.0 + (r * 7 + c * 3) % 11;
      id[static_cast<size_t>(r)][static_cast<size_t>(c)] =
          AddTimedOp(g, "op" + std::to_string(r) + "_" + std::to_string(c), in, us, 256 * (1 + (r + c) % 5));
    }
  }
  return g;
}

// Chain of n ops: how many ops each device got, and how many chain edges cross devices.
struct ChainSplit {
  std::map<DeviceId, int> ops_per_device;
  int cut_edges = 0;
};

ChainSplit Split(const Plan& plan) {
  ChainSplit split;
  for (size_t i = 0; i < plan.device.size(); ++i) {
    ++split.ops_per_device[plan.device[i]];
    if (i > 0 && plan.device[i] != plan.device[i - 1]) ++split.cut_edges;
  }
  return split;
}

void ExpectBalancedContiguousChain(PlanFn method, const std::string& preset, int k) {
  const Graph g = UniformChain(100);
  const Cluster cluster = Preset(preset);
  auto plan = method(g, cluster, CostModel(), BaselineOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok());
  const ChainSplit split = Split(*plan);
  ASSERT_EQ(static_cast<int>(split.ops_per_device.size()), k) << preset;
  for (const auto& [device, count] : split.ops_per_device) {
    EXPECT_LT(device, k) << "a part landed on the host CPU";
    EXPECT_NEAR(count, 100 / k, 2) << preset << ": device " << device;
  }
  // Contiguous parts: the chain crosses devices exactly k - 1 times.
  EXPECT_EQ(split.cut_edges, k - 1) << preset;
}

void ExpectGroupsKeptWhole(PlanFn method) {
  const Graph g = ChainWithDistantGroups(30);
  const Cluster cluster = Preset("4xV100");
  auto plan = method(g, cluster, CostModel(), BaselineOptions{});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok());
  for (int i = 0; i < 30; ++i) {
    EXPECT_EQ(plan->device[static_cast<size_t>(i)], plan->device[static_cast<size_t>(i + 30)]) << "group " << i;
  }
  std::set<DeviceId> used(plan->device.begin(), plan->device.end());
  EXPECT_EQ(used.size(), 4u);
}

void ExpectSameSeedSamePlan(PlanFn method) {
  const Graph g = Grid(12);
  const Cluster cluster = Preset("4xV100");
  BaselineOptions options;
  options.seed = 7;
  auto first = method(g, cluster, CostModel(), options);
  auto second = method(g, cluster, CostModel(), options);
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, *first).ok());
  EXPECT_EQ(first->device, second->device);
}

TEST(MetisTest, UniformChainSplitsIntoBalancedContiguousPartsOnTwoDevices) {
  ExpectBalancedContiguousChain(MetisPlan, "2xP100", 2);
}

TEST(MetisTest, UniformChainSplitsIntoBalancedContiguousPartsOnFourDevices) {
  ExpectBalancedContiguousChain(MetisPlan, "4xV100", 4);
}

TEST(MetisTest, NeverSplitsAColocationGroup) { ExpectGroupsKeptWhole(MetisPlan); }

TEST(MetisTest, SameSeedGivesSamePlan) { ExpectSameSeedSamePlan(MetisPlan); }

TEST(MetisTest, OneAcceleratorTakesEverything) {
  const Graph g = Grid(4);
  const Cluster cluster = Preset("1xV100");
  auto plan = MetisPlan(g, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 0));
  EXPECT_EQ(plan->priority, std::vector<double>(static_cast<size_t>(g.num_ops()), 0.0));
  EXPECT_EQ(plan->fuse_with_producer, std::vector<uint8_t>(static_cast<size_t>(g.num_ops()), 0));
}

TEST(MetisTest, FewerOpsThanDevicesGetADeviceEach) {
  const Graph g = UniformChain(3);
  const Cluster cluster = Preset("4xV100");
  auto plan = MetisPlan(g, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->device, (std::vector<DeviceId>{0, 1, 2}));
}

TEST(MetisTest, HostCpuIsAPartWhenNotRestrictedToAccelerators) {
  const Graph g = UniformChain(100);
  const Cluster cluster = Preset("4xK40+cpu");
  BaselineOptions options;
  options.accelerators_only = false;
  auto plan = MetisPlan(g, cluster, CostModel(), options);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok());
  EXPECT_EQ(Split(*plan).ops_per_device.size(), 5u);
}

TEST(MetisTest, PartOverDeviceMemoryIsReportedNotRepaired) {
  // A 20 GiB parameter cannot fit any 16 GB V100: the plan is returned as METIS
  // made it, with a warning saying the part runs out of memory.
  Graph g = UniformChain(40);
  Op variable;
  variable.name = "huge_weight";
  variable.kind = OpKind::kVariable;
  variable.param_bytes = int64_t{20} << 30;
  variable.outputs = {g.AddTensor("huge_weight:0", {1024})};
  const OpId v = g.AddOp(std::move(variable), /*compute_cost=*/false);
  AddTimedOp(g, "reader", {g.op(v).outputs[0], g.op(39).outputs[0]}, 10.0);
  const Cluster cluster = Preset("4xV100");
  ::testing::internal::CaptureStderr();
  auto plan = MetisPlan(g, cluster, CostModel());
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok());
  EXPECT_NE(log.find("OOM"), std::string::npos) << log;
  EXPECT_NE(log.find(cluster.device(plan->device[static_cast<size_t>(v)]).name), std::string::npos) << log;
}

TEST(ScotchTest, UniformChainSplitsIntoBalancedContiguousPartsOnTwoDevices) {
  ExpectBalancedContiguousChain(ScotchPlan, "2xP100", 2);
}

TEST(ScotchTest, UniformChainSplitsIntoBalancedContiguousPartsOnFourDevices) {
  ExpectBalancedContiguousChain(ScotchPlan, "4xV100", 4);
}

TEST(ScotchTest, NeverSplitsAColocationGroup) { ExpectGroupsKeptWhole(ScotchPlan); }

TEST(ScotchTest, SameSeedGivesSamePlan) { ExpectSameSeedSamePlan(ScotchPlan); }

TEST(ScotchTest, OneAcceleratorTakesEverything) {
  const Graph g = Grid(4);
  const Cluster cluster = Preset("1xV100");
  auto plan = ScotchPlan(g, cluster, CostModel());
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_EQ(plan->device, std::vector<DeviceId>(static_cast<size_t>(g.num_ops()), 0));
}

}  // namespace
}  // namespace graphopt
