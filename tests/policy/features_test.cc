// Tests of the policy's plain-C++ side: features (policy/features.h) and actions
// to plans (policy/actions.h). No LibTorch here.
#include "policy/features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "core/rng.h"
#include "policy/actions.h"
#include "policy_test_util.h"
#include "sim/cluster.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::MlpTrainingGraph;

PolicyInput Build(const Graph& g, const Cluster& c, PolicyInputOptions options = {}) {
  auto in = BuildPolicyInput(g, c, CostModel(), options);
  EXPECT_TRUE(in.ok()) << in.status().message();
  return std::move(*in);
}

TEST(FeaturesTest, ArraysHaveTheDocumentedSizes) {
  const Graph g = MlpTrainingGraph();
  const PolicyInput in = Build(g, testing::GpuCluster(2));
  const size_t n = static_cast<size_t>(g.num_ops());
  EXPECT_EQ(in.num_ops, g.num_ops());
  EXPECT_EQ(in.order.size(), n);
  EXPECT_EQ(in.op_features.size(), n * kNumOpFeatures);
  EXPECT_EQ(in.op_kind.size(), n);
  EXPECT_EQ(in.pred_offsets.size(), n + 1);
  EXPECT_EQ(in.succ_offsets.size(), n + 1);
  EXPECT_EQ(in.pred_index.size(), static_cast<size_t>(in.num_edges));
  EXPECT_EQ(in.succ_index.size(), static_cast<size_t>(in.num_edges));
  EXPECT_EQ(in.unit_offsets.size(), static_cast<size_t>(in.num_units) + 1);
  EXPECT_EQ(in.device_features.size(), static_cast<size_t>(2 * kNumDeviceFeatures));
  EXPECT_EQ(in.graph_features.size(), static_cast<size_t>(kNumGraphFeatures));
  EXPECT_EQ(OpFeatureNames().size(), static_cast<size_t>(kNumOpFeatures));
  EXPECT_EQ(DeviceFeatureNames().size(), static_cast<size_t>(kNumDeviceFeatures));
  EXPECT_EQ(GraphFeatureNames().size(), static_cast<size_t>(kNumGraphFeatures));
}

TEST(FeaturesTest, ValuesAreFiniteAndInRange) {
  const PolicyInput in = Build(MlpTrainingGraph(), testing::GpuCluster(2));
  for (float v : in.op_features) {
    ASSERT_TRUE(std::isfinite(v));
    EXPECT_LE(std::abs(v), 5.0f);
  }
  for (float v : in.device_features) EXPECT_TRUE(std::isfinite(v) && std::abs(v) <= 10.0f) << v;
  for (float v : in.graph_features) EXPECT_TRUE(std::isfinite(v) && std::abs(v) <= 10.0f) << v;
  for (int32_t k : in.op_kind) EXPECT_TRUE(k >= 0 && k < kNumKindIndices);
}

// Identical devices differ only by their index on a circle, and there so that
// every one of them is the favourite of some linear map of the features (the
// placement logits are linear in the device embedding's input at initialization).
TEST(FeaturesTest, IdenticalDevicesAreEachTheFavouriteOfSomeDirection) {
  const int d = 4;
  const PolicyInput in = Build(MlpTrainingGraph(), testing::GpuCluster(d));
  auto feature = [&](int device, int k) { return in.device_features[static_cast<size_t>(device * kNumDeviceFeatures + k)]; };
  for (int k = 0; k < kNumDeviceFeatures - 2; ++k) EXPECT_EQ(feature(0, k), feature(d - 1, k)) << DeviceFeatureNames()[k];
  for (int favourite = 0; favourite < d; ++favourite) {
    auto score = [&](int device) {
      return feature(favourite, kNumDeviceFeatures - 2) * feature(device, kNumDeviceFeatures - 2) +
             feature(favourite, kNumDeviceFeatures - 1) * feature(device, kNumDeviceFeatures - 1);
    };
    for (int other = 0; other < d; ++other) {
      if (other != favourite) {
        EXPECT_GT(score(favourite), score(other) + 0.5f) << favourite << " vs " << other;
      }
    }
  }
}

TEST(FeaturesTest, StandardizedColumnsHaveZeroMeanAndUnitVariance) {
  const PolicyInput in = Build(MlpTrainingGraph(), testing::GpuCluster(2));
  const int n = in.num_ops;
  for (int c = 0; c < 9; ++c) {  // the standardized columns come first
    double sum = 0, sq = 0;
    for (int i = 0; i < n; ++i) {
      const double v = in.op_features[static_cast<size_t>(i) * kNumOpFeatures + c];
      sum += v;
      sq += v * v;
    }
    EXPECT_NEAR(sum / n, 0.0, 1e-4) << OpFeatureNames()[static_cast<size_t>(c)];
    const double var = sq / n;
    EXPECT_TRUE(std::abs(var - 1.0) < 0.05 || var < 1e-8) << OpFeatureNames()[static_cast<size_t>(c)] << " var " << var;
  }
}

TEST(FeaturesTest, GraphsOfDifferentScaleLookAlike) {
  // The same structure with every dimension 16x larger: per-op features barely move
  // (standardization removes the scale), the graph features carry it.
  const PolicyInput small = Build(MlpTrainingGraph(1), testing::GpuCluster(2));
  const PolicyInput large = Build(MlpTrainingGraph(16), testing::GpuCluster(2));
  ASSERT_EQ(small.op_features.size(), large.op_features.size());
  double max_diff = 0;
  for (size_t i = 0; i < small.op_features.size(); ++i)
    max_diff = std::max(max_diff, std::abs(double{small.op_features[i]} - large.op_features[i]));
  EXPECT_LT(max_diff, 0.8);
  EXPECT_GT(std::abs(large.graph_features[2] - small.graph_features[2]), 0.5);  // log FLOPs
}

TEST(FeaturesTest, NodesAreInTopologicalOrder) {
  const Graph g = MlpTrainingGraph();
  const PolicyInput in = Build(g, testing::GpuCluster(2));
  for (int i = 0; i < in.num_ops; ++i) {
    EXPECT_EQ(in.position[static_cast<size_t>(in.order[static_cast<size_t>(i)])], i);
    for (int32_t k = in.pred_offsets[static_cast<size_t>(i)]; k < in.pred_offsets[static_cast<size_t>(i) + 1]; ++k) {
      EXPECT_LT(in.pred_index[static_cast<size_t>(k)], i);
    }
    for (int32_t k = in.succ_offsets[static_cast<size_t>(i)]; k < in.succ_offsets[static_cast<size_t>(i) + 1]; ++k) {
      EXPECT_GT(in.succ_index[static_cast<size_t>(k)], i);
    }
  }
}

TEST(FeaturesTest, ColocationGroupsAreOneUnit) {
  const Graph g = MlpTrainingGraph();
  const PolicyInput in = Build(g, testing::GpuCluster(2));
  std::set<int32_t> groups;
  int ungrouped = 0;
  for (const Op& op : g.ops()) {
    if (op.colocation_group == kNoId) {
      ++ungrouped;
    } else {
      groups.insert(op.colocation_group);
    }
  }
  EXPECT_EQ(in.num_units, ungrouped + static_cast<int>(groups.size()));
  for (OpId a = 0; a < g.num_ops(); ++a) {
    for (OpId b = 0; b < g.num_ops(); ++b) {
      const bool same_group = g.op(a).colocation_group != kNoId && g.op(a).colocation_group == g.op(b).colocation_group;
      if (a != b) {
        EXPECT_EQ(same_group, in.unit_of_op(a) == in.unit_of_op(b)) << g.op(a).name << " " << g.op(b).name;
      }
    }
  }
  // Units are numbered by their first node.
  for (int u = 1; u < in.num_units; ++u) {
    EXPECT_LT(in.unit_nodes[static_cast<size_t>(in.unit_offsets[static_cast<size_t>(u) - 1])],
              in.unit_nodes[static_cast<size_t>(in.unit_offsets[static_cast<size_t>(u)])]);
  }
}

TEST(FeaturesTest, FusableMatchesPlanLegality) {
  const Graph g = MlpTrainingGraph();
  const PolicyInput in = Build(g, testing::GpuCluster(2));
  int fusable = 0;
  for (int i = 0; i < in.num_ops; ++i) {
    const OpId op = in.order[static_cast<size_t>(i)];
    EXPECT_EQ(in.fusable[static_cast<size_t>(i)] != 0, CanFuseIntoProducer(g, op).ok);
    const OpId producer = FusionProducer(g, op);
    EXPECT_EQ(in.fusion_producer[static_cast<size_t>(i)],
              producer == kNoId ? -1 : in.position[static_cast<size_t>(producer)]);
    fusable += in.fusable[static_cast<size_t>(i)];
  }
  EXPECT_GT(fusable, 0);
}

TEST(FeaturesTest, HostCpuIsMaskedUnlessAllowed) {
  const Graph g = MlpTrainingGraph();
  const Cluster c = *ClusterPreset("8xV100");
  const PolicyInput gpus = Build(g, c);
  ASSERT_EQ(gpus.num_devices, 9);
  for (int d = 0; d < 9; ++d)
    EXPECT_EQ(gpus.device_allowed[static_cast<size_t>(d)], c.device(d).kind == DeviceKind::kGpu ? 1 : 0);
  PolicyInputOptions all;
  all.allow_cpu = true;
  const PolicyInput with_cpu = Build(g, c, all);
  for (int d = 0; d < 9; ++d) EXPECT_EQ(with_cpu.device_allowed[static_cast<size_t>(d)], 1);
}

TEST(FeaturesTest, UnitMemoryMaskRemovesDevicesTooSmallForAUnit) {
  const Graph g = MlpTrainingGraph(64);  // w1 is 1024 x 2048 floats: 8 MiB, plus optimizer state
  Cluster c = testing::GpuCluster(2);
  std::vector<Device> devices = c.devices();
  devices[1].memory_bytes = 1 << 20;  // 1 MiB
  Cluster small("small", devices);
  small.SetAllLinks(Link{1e10, 10});
  const PolicyInput in = Build(g, small);
  const std::vector<uint8_t> mask = in.UnitMemoryMask();
  int masked = 0;
  for (int u = 0; u < in.num_units; ++u) {
    EXPECT_EQ(mask[static_cast<size_t>(u) * 2], 1);
    const bool fits = in.unit_resident_bytes[static_cast<size_t>(u)] <= (1 << 20);
    EXPECT_EQ(mask[static_cast<size_t>(u) * 2 + 1], fits ? 1 : 0);
    masked += fits ? 0 : 1;
  }
  EXPECT_GT(masked, 0);
}

TEST(FeaturesTest, EmptyGraphIsAnError) {
  const Graph g("empty");
  auto in = BuildPolicyInput(g, testing::GpuCluster(2));
  ASSERT_FALSE(in.ok());
  EXPECT_NE(in.status().message().find("empty"), std::string::npos);
}

TEST(ActionsTest, DefaultActionsGiveTheDefaultPlan) {
  const Graph g = MlpTrainingGraph();
  const Cluster c = testing::GpuCluster(2);
  const PolicyInput in = Build(g, c);
  const Plan plan = ToPlan(g, c, in, DefaultActions(in));
  const Plan expected = DefaultPlan(g, 0);
  EXPECT_EQ(plan.device, expected.device);
  EXPECT_EQ(plan.priority, expected.priority);
  EXPECT_EQ(plan.fuse_with_producer, expected.fuse_with_producer);
  const Plan from_empty = ToPlan(g, c, in, Actions());
  EXPECT_EQ(from_empty.device, expected.device);
}

TEST(ActionsTest, RandomActionsGiveValidPlansWithColocatedOpsTogether) {
  const Graph g = MlpTrainingGraph();
  const Cluster c = testing::GpuCluster(2);
  const PolicyInput in = Build(g, c);
  Rng rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    Actions a = DefaultActions(in);
    for (auto& d : a.unit_device) d = static_cast<int32_t>(rng.Uniform(2));
    for (auto& p : a.priority_level) p = static_cast<int32_t>(rng.Uniform(8));
    for (auto& f : a.fuse) f = rng.Bernoulli(0.7) ? 1 : 0;
    const Plan plan = ToPlan(g, c, in, a);
    EXPECT_TRUE(ValidatePlan(g, c, plan).ok()) << ValidatePlan(g, c, plan).message();
    for (OpId op = 0; op < g.num_ops(); ++op) {
      EXPECT_EQ(plan.device[static_cast<size_t>(op)], a.unit_device[static_cast<size_t>(in.unit_of_op(op))]);
      EXPECT_EQ(plan.priority[static_cast<size_t>(op)], a.priority_level[static_cast<size_t>(op)]);
      if (plan.fuse_with_producer[static_cast<size_t>(op)]) {
        EXPECT_TRUE(a.fuse[static_cast<size_t>(op)]);
      }
    }
  }
}

}  // namespace
}  // namespace graphopt
