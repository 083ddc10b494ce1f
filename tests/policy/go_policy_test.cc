// Tests of the GO policy network (policy/go_policy.h) and its custom operators
// (policy/kernels.h), on tiny graphs and a tiny configuration.
#include "policy/go_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "core/rng.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "policy/kernels.h"
#include "policy_fixture.h"
#include "policy_test_util.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using testing::GpuCluster;
using testing::MlpTrainingGraph;

GoPolicyConfig TinyConfig() { return testing::TinyPolicyConfig(3); }

using Fixture = testing::PolicyFixture;

Fixture MakeFixture(Cluster cluster, bool mask_unit_memory = false) {
  return testing::MakePolicyFixture(MlpTrainingGraph(), std::move(cluster), {}, mask_unit_memory);
}

torch::Tensor Longs(std::vector<int64_t> v) { return torch::tensor(v, torch::kLong); }

bool AllClose(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-5) {
  return a.sizes() == b.sizes() && torch::allclose(a, b, tol, tol);
}

// ---------------------------------------------------------------------------
// Kernels

// 4 nodes; predecessors: 2 <- {0, 1}, 3 <- {0, 2}.
struct FourNodes {
  torch::Tensor pred_offsets = Longs({0, 0, 0, 2, 4});
  torch::Tensor pred_index = Longs({0, 1, 0, 2});
  torch::Tensor succ_offsets = Longs({0, 2, 3, 4, 4});
  torch::Tensor succ_index = Longs({2, 3, 2, 3});
};

TEST(KernelsTest, NeighborMaxPoolIsTheMaxOverNeighbours) {
  const FourNodes g;
  const torch::Tensor x = torch::tensor({{1.0f, 5.0f}, {3.0f, 2.0f}, {0.5f, 7.0f}, {2.0f, 2.0f}}).requires_grad_(true);
  const torch::Tensor out = NeighborMaxPool(x, g.pred_offsets, g.pred_index);
  const torch::Tensor expected = torch::tensor({{0.0f, 0.0f}, {0.0f, 0.0f}, {3.0f, 5.0f}, {1.0f, 7.0f}});
  EXPECT_TRUE(torch::equal(out, expected)) << out;
  out.sum().backward();
  // Each output element's gradient goes to the neighbour that attained the max.
  const torch::Tensor expected_grad = torch::tensor({{1.0f, 1.0f}, {1.0f, 0.0f}, {0.0f, 1.0f}, {0.0f, 0.0f}});
  EXPECT_TRUE(torch::equal(x.grad(), expected_grad)) << x.grad();
}

TEST(KernelsTest, NeighborMaxPoolMatchesScatterReduce) {
  torch::manual_seed(1);
  const int64_t n = 50, e = 200, h = 8;
  torch::Tensor dst = std::get<0>(torch::randint(n, {e}, torch::kLong).sort());
  const torch::Tensor src = torch::randint(n, {e}, torch::kLong);
  const torch::Tensor offsets = torch::cat({torch::zeros({1}, torch::kLong), torch::bincount(dst, {}, n).cumsum(0)});
  const torch::Tensor x = (torch::rand({n, h}) + 0.1).requires_grad_(true);
  const torch::Tensor out = NeighborMaxPool(x, offsets, src);
  const torch::Tensor x_ref = x.detach().clone().requires_grad_(true);
  const torch::Tensor ref =
      torch::zeros({n, h}).scatter_reduce(0, dst.unsqueeze(1).expand({e, h}), x_ref.index_select(0, src), "amax", true);
  EXPECT_TRUE(AllClose(out, ref));
  const torch::Tensor g = torch::randn({n, h});
  (out * g).sum().backward();
  (ref * g).sum().backward();
  EXPECT_TRUE(AllClose(x.grad(), x_ref.grad()));
}

TEST(KernelsTest, GatherRowsAndSegmentMeanMatchReferences) {
  torch::manual_seed(2);
  const torch::Tensor x = torch::randn({6, 3}).requires_grad_(true);
  const torch::Tensor index = Longs({5, 0, 0, 2, 5, 5, 1});
  const torch::Tensor g = torch::randn({7, 3});
  (GatherRows(x, index) * g).sum().backward();
  const torch::Tensor x_ref = x.detach().clone().requires_grad_(true);
  (x_ref.index_select(0, index) * g).sum().backward();
  EXPECT_TRUE(AllClose(GatherRows(x, index), x_ref.index_select(0, index)));
  EXPECT_TRUE(AllClose(x.grad(), x_ref.grad()));

  // Segments {0, 3}, {}, {1, 2, 5}, {4}.
  const torch::Tensor offsets = Longs({0, 2, 2, 5, 6});
  const torch::Tensor members = Longs({0, 3, 1, 2, 5, 4});
  const torch::Tensor y = torch::randn({6, 3}).requires_grad_(true);
  const torch::Tensor mean = SegmentMean(y, offsets, members);
  const torch::Tensor y_ref = y.detach().clone().requires_grad_(true);
  const torch::Tensor ref =
      torch::stack({(y_ref[0] + y_ref[3]) / 2, torch::zeros({3}), (y_ref[1] + y_ref[2] + y_ref[5]) / 3, y_ref[4]});
  EXPECT_TRUE(AllClose(mean, ref));
  const torch::Tensor gm = torch::randn({4, 3});
  (mean * gm).sum().backward();
  (ref * gm).sum().backward();
  EXPECT_TRUE(AllClose(y.grad(), y_ref.grad()));
}

torch::Tensor ReferenceAttention(const torch::Tensor& q, const torch::Tensor& k, const torch::Tensor& v,
                                 const torch::Tensor& bias, const torch::Tensor& valid, double scale) {
  torch::Tensor scores = torch::matmul(q, k.transpose(-1, -2)) * scale + bias.unsqueeze(0);
  const torch::Tensor mask = valid.to(torch::kBool).view({valid.size(0), 1, 1, valid.size(1)});
  scores = scores.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
  return torch::matmul(torch::softmax(scores, -1), v);
}

TEST(KernelsTest, SegmentAttentionMatchesDenseAttention) {
  torch::manual_seed(3);
  const int64_t b = 3, heads = 2, s = 5, l = 9, dh = 4;
  const torch::Tensor q = torch::randn({b, heads, s, dh}).requires_grad_(true);
  const torch::Tensor k = torch::randn({b, heads, l, dh}).requires_grad_(true);
  const torch::Tensor v = torch::randn({b, heads, l, dh}).requires_grad_(true);
  const torch::Tensor bias = torch::randn({heads, s, l}).requires_grad_(true);
  torch::Tensor valid = torch::ones({b, l}, torch::kUInt8);
  valid.index_put_({0, torch::indexing::Slice(0, 4)}, 0);  // no memory for block 0
  valid.index_put_({2, torch::indexing::Slice(7, 9)}, 0);  // padding in block 2
  const double scale = 0.5;
  const torch::Tensor out = SegmentAttention(q, k, v, bias, valid, scale);
  std::vector<torch::Tensor> leaves;
  for (const auto& t : {q, k, v, bias}) leaves.push_back(t.detach().clone().requires_grad_(true));
  const torch::Tensor ref = ReferenceAttention(leaves[0], leaves[1], leaves[2], leaves[3], valid, scale);
  EXPECT_TRUE(AllClose(out, ref, 1e-5)) << (out - ref).abs().max();
  const torch::Tensor g = torch::randn_like(out);
  (out * g).sum().backward();
  (ref * g).sum().backward();
  EXPECT_TRUE(AllClose(q.grad(), leaves[0].grad(), 1e-4));
  EXPECT_TRUE(AllClose(k.grad(), leaves[1].grad(), 1e-4));
  EXPECT_TRUE(AllClose(v.grad(), leaves[2].grad(), 1e-4));
  EXPECT_TRUE(AllClose(bias.grad(), leaves[3].grad(), 1e-4));
  // Masked keys get no gradient.
  EXPECT_EQ(k.grad().index({0, torch::indexing::Slice(), torch::indexing::Slice(0, 4)}).abs().max().item<float>(),
            0.0f);
}

TEST(KernelsTest, SegmentAttentionWithoutValidKeysGivesZeros) {
  const torch::Tensor q = torch::randn({1, 1, 2, 4}).requires_grad_(true);
  const torch::Tensor k = torch::randn({1, 1, 3, 4});
  const torch::Tensor out =
      SegmentAttention(q, k, k, torch::zeros({1, 2, 3}), torch::zeros({1, 3}, torch::kUInt8), 1.0);
  EXPECT_EQ(out.abs().max().item<float>(), 0.0f);
  out.sum().backward();
  EXPECT_EQ(q.grad().abs().max().item<float>(), 0.0f);
}

TEST(KernelsTest, GradientsDoNotDependOnTheThreadCount) {
  const int threads = at::get_num_threads();
  torch::manual_seed(6);
  const torch::Tensor q = torch::randn({40, 2, 8, 4}), k = torch::randn({40, 2, 12, 4}),
                      bias = torch::randn({2, 8, 12});
  const torch::Tensor valid = torch::ones({40, 12}, torch::kUInt8);
  std::vector<torch::Tensor> grads[2];
  for (int t = 1; t <= 2; ++t) {
    ConfigureTorchThreads(t);
    std::vector<torch::Tensor> leaves = {q.clone().requires_grad_(true), k.clone().requires_grad_(true),
                                         bias.clone().requires_grad_(true)};
    const torch::Tensor out = SegmentAttention(leaves[0], leaves[1], leaves[1], leaves[2], valid, 0.5);
    (out * out).sum().backward();
    for (const auto& l : leaves) grads[t - 1].push_back(l.grad());
  }
  ConfigureTorchThreads(threads);
  for (size_t i = 0; i < grads[0].size(); ++i) EXPECT_TRUE(torch::equal(grads[0][i], grads[1][i])) << i;
}

// ---------------------------------------------------------------------------
// Building blocks

TEST(GoPolicyTest, SageLayerMatchesHandComputation) {
  GoPolicyConfig config = TinyConfig();
  config.hidden = 4;
  config.heads = 1;
  GoPolicy policy(config);
  const FourNodes g;
  PolicyTensors in;
  in.pred_offsets = g.pred_offsets;
  in.pred_index = g.pred_index;
  in.succ_offsets = g.succ_offsets;
  in.succ_index = g.succ_index;
  torch::manual_seed(4);
  const torch::Tensor h = torch::randn({4, 4});
  const torch::Tensor out = policy->SageLayer(0, h, in);

  std::map<std::string, torch::Tensor> p;
  for (const auto& item : policy->named_parameters()) p[item.key()] = item.value().detach();
  const torch::Tensor m = torch::relu(torch::addmm(p["sage0_messages.bias"], h, p["sage0_messages.weight"].t()));
  const std::vector<std::vector<int>> preds = {{}, {}, {0, 1}, {0, 2}}, succs = {{2, 3}, {2}, {3}, {}};
  auto pool = [&](const std::vector<std::vector<int>>& nbrs, int64_t begin) {
    torch::Tensor r = torch::zeros({4, 4});
    for (int i = 0; i < 4; ++i) {
      for (int j : nbrs[static_cast<size_t>(i)]) r[i] = torch::maximum(r[i], m[j].slice(0, begin, begin + 4));
    }
    return r;
  };
  const torch::Tensor combined = torch::relu(torch::addmm(
      p["sage0_combine.bias"], torch::cat({h, pool(preds, 0), pool(succs, 4)}, 1), p["sage0_combine.weight"].t()));
  const torch::Tensor expected = torch::layer_norm(h + combined, {4}, p["sage0_norm.weight"], p["sage0_norm.bias"]);
  EXPECT_TRUE(AllClose(out, expected, 1e-5)) << out << expected;
}

TEST(GoPolicyTest, AttentionKeepsShapeAndIgnoresPadding) {
  GoPolicy policy(TinyConfig());
  torch::NoGradGuard no_grad;
  const int64_t num_ops = 21;  // 3 segments of 8, the last one with 5 padded positions
  const torch::Tensor valid = policy->NodeValid(num_ops);
  ASSERT_EQ(valid.sizes(), (std::vector<int64_t>{3, 8}));
  const torch::Tensor x = policy->ToSegments(torch::randn({num_ops, 16}));
  ASSERT_EQ(x.sizes(), (std::vector<int64_t>{1, 3, 8, 16}));
  const torch::Tensor y = policy->AttentionLayer(0, x, valid, torch::Tensor());
  EXPECT_EQ(y.sizes(), x.sizes());
  torch::Tensor x2 = x.clone();
  x2.index_put_({0, 2, torch::indexing::Slice(5, 8)}, torch::randn({3, 16}) * 100);
  const torch::Tensor y2 = policy->AttentionLayer(0, x2, valid, torch::Tensor());
  EXPECT_TRUE(torch::equal(policy->FromSegments(y, num_ops), policy->FromSegments(y2, num_ops)));
}

TEST(GoPolicyTest, MemoryCarriesASegmentToTheNextOneOnly) {
  GoPolicy policy(TinyConfig());  // segment 8, memory 4: positions 4..7 are the next segment's memory
  torch::NoGradGuard no_grad;
  const torch::Tensor valid = policy->NodeValid(32);
  const torch::Tensor x = policy->ToSegments(torch::randn({32, 16}));
  torch::Tensor x2 = x.clone();
  x2.index_put_({0, 1, 6}, torch::randn({16}));  // segment 1, inside the memory window
  const torch::Tensor y = policy->AttentionLayer(0, x, valid, torch::Tensor());
  const torch::Tensor y2 = policy->AttentionLayer(0, x2, valid, torch::Tensor());
  auto changed = [&](int s) { return !torch::equal(y.select(1, s), y2.select(1, s)); };
  EXPECT_FALSE(changed(0));
  EXPECT_TRUE(changed(1));
  EXPECT_TRUE(changed(2));
  EXPECT_FALSE(changed(3));
}

TEST(GoPolicyTest, RelativeBucketsAreMonotoneAndSplitBySign) {
  GoPolicy policy(TinyConfig());
  EXPECT_EQ(policy->RelativeBucket(0), 0);
  EXPECT_LT(policy->RelativeBucket(-1), policy->RelativeBucket(-11));
  EXPECT_GE(policy->RelativeBucket(1), TinyConfig().relative_buckets / 2);
  for (int r = -12; r < 8; ++r) {
    EXPECT_GE(policy->RelativeBucket(r), 0);
    EXPECT_LT(policy->RelativeBucket(r), TinyConfig().relative_buckets);
  }
}

// ---------------------------------------------------------------------------
// The policy

TEST(GoPolicyTest, OneNetworkPlacesOnTwoFourOrEightDevices) {
  GoPolicy policy(TinyConfig());
  for (int d : {2, 4, 8}) {
    Fixture f = MakeFixture(GpuCluster(d));
    const PolicyOutput out = policy->forward(f.tensors);
    EXPECT_EQ(out.placement_logits.sizes(), (std::vector<int64_t>{f.input.num_units, d}));
    EXPECT_EQ(out.node_states.sizes(), (std::vector<int64_t>{f.input.num_ops, 16}));
    EXPECT_TRUE(torch::isfinite(out.placement_logits).all().item<bool>());
  }
}

TEST(GoPolicyTest, MaskedDevicesGetZeroProbability) {
  GoPolicy policy(TinyConfig());
  Fixture f = MakeFixture(*ClusterPreset("8xV100"));  // device 8 is the host CPU
  const PolicyOutput out = policy->forward(f.tensors);
  const torch::Tensor p = torch::softmax(out.placement_logits, 1);
  EXPECT_EQ(p.select(1, 8).abs().max().item<float>(), 0.0f);
  EXPECT_GT(p.select(1, 0).min().item<float>(), 0.0f);
  Rng rng(1);
  for (const Actions& a : policy->Sample(f.tensors, out, rng, 4, 2.0)) {
    for (int32_t d : a.unit_device) EXPECT_LT(d, 8);
  }
  // Per-unit memory mask: a 1 MiB GPU cannot hold the largest parameters.
  Cluster c = GpuCluster(2);
  std::vector<Device> devices = c.devices();
  devices[1].memory_bytes = 1 << 10;
  Cluster small("small", devices);
  small.SetAllLinks(Link{1e10, 10});
  Fixture m = MakeFixture(small, /*mask_unit_memory=*/true);
  const torch::Tensor pm = torch::softmax(policy->forward(m.tensors).placement_logits, 1);
  int masked = 0;
  for (int u = 0; u < m.input.num_units; ++u) {
    if (m.input.unit_resident_bytes[static_cast<size_t>(u)] > (1 << 10)) {
      EXPECT_EQ(pm[u][1].item<float>(), 0.0f);
      ++masked;
    }
  }
  EXPECT_GT(masked, 0);
}

TEST(GoPolicyTest, SampledPlansAreValidAndKeepColocatedOpsTogether) {
  GoPolicy policy(TinyConfig());
  Fixture f = MakeFixture(GpuCluster(4));
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(7);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 8);
  ASSERT_EQ(batch.size(), 8u);
  std::set<int32_t> devices_used;
  for (const Actions& a : batch) {
    ASSERT_EQ(a.unit_device.size(), static_cast<size_t>(f.input.num_units));
    ASSERT_EQ(a.priority_level.size(), static_cast<size_t>(f.input.num_ops));
    ASSERT_EQ(a.fuse.size(), static_cast<size_t>(f.input.num_ops));
    const Plan plan = ToPlan(f.graph, f.cluster, f.input, a);
    EXPECT_TRUE(ValidatePlan(f.graph, f.cluster, plan).ok()) << ValidatePlan(f.graph, f.cluster, plan).message();
    for (OpId x = 0; x < f.graph.num_ops(); ++x) {
      devices_used.insert(plan.device[static_cast<size_t>(x)]);
      for (OpId y = 0; y < f.graph.num_ops(); ++y) {
        const int32_t group = f.graph.op(x).colocation_group;
        if (group != kNoId && group == f.graph.op(y).colocation_group) {
          EXPECT_EQ(plan.device[static_cast<size_t>(x)], plan.device[static_cast<size_t>(y)]);
        }
      }
    }
    for (int i = 0; i < f.input.num_ops; ++i) {
      const OpId op = f.input.order[static_cast<size_t>(i)];
      if (!f.input.fusable[static_cast<size_t>(i)]) {
        EXPECT_EQ(a.fuse[static_cast<size_t>(op)], 0);
      }
      EXPECT_TRUE(a.priority_level[static_cast<size_t>(op)] >= 0 && a.priority_level[static_cast<size_t>(op)] < 4);
    }
  }
  EXPECT_GT(devices_used.size(), 1u);
}

// Per-op scheduling and fusion (unit_tasks=0); tests/policy/go_decode_test.cc has
// the per-unit decisions.
GoPolicyConfig PerOpConfig() {
  GoPolicyConfig c = TinyConfig();
  c.unit_tasks = false;
  return c;
}

TEST(GoPolicyTest, LogProbIsTheSumOfPerDecisionLogProbabilities) {
  GoPolicy policy(PerOpConfig());
  Fixture f = MakeFixture(GpuCluster(3));
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(11);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 3);
  const Evaluation e = policy->Evaluate(f.tensors, out, batch);
  ASSERT_EQ(e.log_prob.sizes(), (std::vector<int64_t>{3}));
  EXPECT_TRUE(torch::isfinite(e.log_prob).all().item<bool>());
  EXPECT_TRUE(torch::isfinite(e.entropy).all().item<bool>());
  const torch::Tensor place = torch::log_softmax(out.placement_logits, 1).detach();
  for (size_t s = 0; s < batch.size(); ++s) {
    const Actions& a = batch[s];
    double expected = 0;
    for (int u = 0; u < f.input.num_units; ++u)
      expected += place[u][a.unit_device[static_cast<size_t>(u)]].item<double>();
    EXPECT_NEAR(e.placement_log_prob[static_cast<int64_t>(s)].item<double>(), expected, 1e-3);
    std::vector<int64_t> units(a.unit_device.begin(), a.unit_device.end());
    const TaskLogits t = policy->DecodeTasks(f.tensors, out, torch::tensor(units, torch::kLong).view({1, -1}));
    const torch::Tensor sched = torch::log_softmax(t.priority_logits[0], 1).detach();
    const torch::Tensor fuse = t.fusion_logits[0].detach();
    const torch::Tensor mask = t.fusion_mask[0];
    double fusion_lp = 0;
    for (int i = 0; i < f.input.num_ops; ++i) {
      const OpId op = f.input.order[static_cast<size_t>(i)];
      expected += sched[i][a.priority_level[static_cast<size_t>(op)]].item<double>();
      if (mask[i].item<bool>()) {
        const double l = fuse[i].item<double>();
        const double lp = a.fuse[static_cast<size_t>(op)] ? -std::log1p(std::exp(-l)) : -std::log1p(std::exp(l));
        fusion_lp += lp;
        expected += lp;
      } else {
        EXPECT_EQ(a.fuse[static_cast<size_t>(op)], 0);
      }
    }
    EXPECT_NEAR(e.fusion_log_prob[static_cast<int64_t>(s)].item<double>(), fusion_lp, 1e-3);
    EXPECT_NEAR(e.log_prob[static_cast<int64_t>(s)].item<double>(), expected, 1e-3);
  }
}

TEST(GoPolicyTest, GreedyTakesTheMostLikelyDecisions) {
  GoPolicy policy(PerOpConfig());
  Fixture f = MakeFixture(GpuCluster(4));
  const PolicyOutput out = policy->forward(f.tensors);
  const Actions a = policy->Greedy(f.tensors, out);
  const torch::Tensor best = out.placement_logits.argmax(1);
  for (int u = 0; u < f.input.num_units; ++u) EXPECT_EQ(a.unit_device[static_cast<size_t>(u)], best[u].item<int64_t>());
  // Scheduling and fusion are the argmax given the greedy placement.
  std::vector<int64_t> units(a.unit_device.begin(), a.unit_device.end());
  const TaskLogits t = policy->DecodeTasks(f.tensors, out, torch::tensor(units, torch::kLong).view({1, -1}));
  const torch::Tensor levels = t.priority_logits[0].argmax(1);
  for (int i = 0; i < f.input.num_ops; ++i) {
    const OpId op = f.input.order[static_cast<size_t>(i)];
    EXPECT_EQ(a.priority_level[static_cast<size_t>(op)], levels[i].item<int64_t>());
    const bool fuse = t.fusion_mask[0][i].item<bool>() && t.fusion_logits[0][i].item<float>() > 0;
    EXPECT_EQ(a.fuse[static_cast<size_t>(op)] != 0, fuse);
  }
}

TEST(GoPolicyTest, SchedulingAndFusionSeeThePlacement) {
  Fixture f = MakeFixture(GpuCluster(2));
  const torch::Tensor all0 = torch::zeros({1, f.input.num_units}, torch::kLong);
  const torch::Tensor all1 = torch::ones({1, f.input.num_units}, torch::kLong);
  torch::Tensor mixed = all0.clone();
  for (int u = 0; u < f.input.num_units; u += 2) mixed[0][u] = 1;
  for (bool feedback : {true, false}) {
    GoPolicyConfig config = PerOpConfig();
    config.task_feedback = feedback;
    GoPolicy policy(config);
    const PolicyOutput out = policy->forward(f.tensors);
    const TaskLogits a = policy->DecodeTasks(f.tensors, out, all0);
    const TaskLogits b = policy->DecodeTasks(f.tensors, out, mixed);
    EXPECT_EQ(torch::equal(a.priority_logits, b.priority_logits), !feedback);
    // Fusion is masked where the fusion producer is on another device.
    EXPECT_GT(a.fusion_mask.sum().item<int64_t>(), b.fusion_mask.sum().item<int64_t>());
    EXPECT_TRUE(torch::equal(a.fusion_mask, policy->DecodeTasks(f.tensors, out, all1).fusion_mask));
  }
  const torch::Tensor context = GoPolicyImpl::PlacementContext(f.tensors, torch::cat({all0, mixed}));
  EXPECT_EQ(context.sizes(), (std::vector<int64_t>{2, f.input.num_ops, kNumPlacementContext}));
  EXPECT_EQ(PlacementContextNames().size(), static_cast<size_t>(kNumPlacementContext));
  // All on one device: every neighbour is on the same device, the device has all the time.
  for (int i = 0; i < f.input.num_ops; ++i) {
    if (f.input.pred_offsets[static_cast<size_t>(i) + 1] > f.input.pred_offsets[static_cast<size_t>(i)]) {
      EXPECT_EQ(context[0][i][0].item<float>(), 1.0f);
    }
    EXPECT_NEAR(context[0][i][3].item<float>(), std::log1p(2.0), 1e-5);
  }
}

TEST(GoPolicyTest, UnitPlacementContextIsTheMeanOverEachUnitsOps) {
  Fixture f = MakeFixture(GpuCluster(3));
  ASSERT_GT(f.input.num_units, 2);
  const int64_t u = f.input.num_units, n = f.input.num_ops;
  std::vector<int64_t> devices(static_cast<size_t>(4 * u));
  for (size_t i = 0; i < devices.size(); ++i) devices[i] = static_cast<int64_t>(i * 7 / 5 % 3);
  const torch::Tensor placements = Longs(devices).view({4, u});
  const torch::Tensor per_op = GoPolicyImpl::PlacementContext(f.tensors, placements);
  const torch::Tensor per_unit = GoPolicyImpl::UnitPlacementContext(f.tensors, placements);
  ASSERT_EQ(per_unit.sizes(), (std::vector<int64_t>{4, u, kNumPlacementContext}));
  const torch::Tensor expected = SegmentMean(per_op.permute({1, 0, 2}).reshape({n, 4 * kNumPlacementContext}),
                                             f.tensors.unit_offsets, f.tensors.unit_nodes)
                                     .view({u, 4, kNumPlacementContext})
                                     .permute({1, 0, 2});
  EXPECT_TRUE(torch::equal(per_unit, expected));
  EXPECT_GT(per_unit.abs().sum().item<float>(), 0.0f);
}

TEST(GoPolicyTest, FeedbackAttentionVariantRuns) {
  GoPolicyConfig config = PerOpConfig();
  config.feedback_attention = true;
  GoPolicy policy(config);
  Fixture f = MakeFixture(GpuCluster(2));
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(4);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 2);
  const Evaluation e = policy->Evaluate(f.tensors, out, batch);
  EXPECT_TRUE(torch::isfinite(e.log_prob).all().item<bool>());
}

TEST(GoPolicyTest, InactiveTasksGiveDefaultsAndNoLogProb) {
  GoPolicyConfig config = TinyConfig();
  config.tasks = kTaskPlacement;
  GoPolicy policy(config);
  Fixture f = MakeFixture(GpuCluster(2));
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(5);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 2);
  for (const Actions& a : batch) {
    for (int32_t l : a.priority_level) EXPECT_EQ(l, 0);
    for (uint8_t x : a.fuse) EXPECT_EQ(x, 0);
  }
  const Evaluation e = policy->Evaluate(f.tensors, out, batch);
  EXPECT_EQ(e.scheduling_log_prob.abs().sum().item<float>(), 0.0f);
  EXPECT_EQ(e.fusion_log_prob.abs().sum().item<float>(), 0.0f);
  EXPECT_TRUE(torch::equal(e.log_prob, e.placement_log_prob));
  EXPECT_EQ(e.num_decisions[0].item<float>(), static_cast<float>(f.input.num_units));

  config.tasks = kTaskScheduling | kTaskFusion;
  GoPolicy no_placement(config);
  const PolicyOutput out2 = no_placement->forward(f.tensors);
  EXPECT_FALSE(out2.placement_logits.defined());
  const std::vector<Actions> batch2 = no_placement->Sample(f.tensors, out2, rng, 3);
  for (const Actions& a : batch2) {
    for (int32_t d : a.unit_device) EXPECT_EQ(d, f.input.default_device);
  }
  const Evaluation e2 = no_placement->Evaluate(f.tensors, out2, batch2);
  ASSERT_EQ(e2.log_prob.sizes(), (std::vector<int64_t>{3}));
  EXPECT_EQ(e2.placement_log_prob.abs().sum().item<float>(), 0.0f);
  EXPECT_TRUE(torch::isfinite(e2.log_prob).all().item<bool>());
  EXPECT_LT(e2.scheduling_log_prob[0].item<float>(), 0.0f);
}

// (Units split by a plan, so that the plan's device of a unit is an input too.)
TEST(GoPolicyTest, GradientReachesEveryParameter) {
  GoPolicy policy(TinyConfig());
  PolicyInputOptions split;
  const Graph graph = MlpTrainingGraph();
  for (OpId op = 0; op < graph.num_ops(); ++op) split.split_by_device.push_back(op % 4);
  Fixture f = testing::MakePolicyFixture(graph, GpuCluster(4), split);
  const PolicyOutput out = policy->forward(f.tensors);
  Rng rng(9);
  const std::vector<Actions> batch = policy->Sample(f.tensors, out, rng, 4);
  const Evaluation e = policy->Evaluate(f.tensors, out, batch);
  (e.log_prob * torch::tensor({1.0f, -0.5f, 0.25f, 2.0f}) + 0.1 * e.entropy).sum().backward();
  for (const auto& p : policy->named_parameters()) {
    ASSERT_TRUE(p.value().grad().defined()) << p.key();
    EXPECT_TRUE(torch::isfinite(p.value().grad()).all().item<bool>()) << p.key();
    EXPECT_GT(p.value().grad().abs().sum().item<double>(), 0.0) << p.key();
  }
}

TEST(GoPolicyTest, SaveAndLoadRoundTrip) {
  GoPolicyConfig config = TinyConfig();
  config.priority_levels = 5;
  config.tasks = kTaskPlacement | kTaskFusion;
  GoPolicy policy(config);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : policy->parameters()) p.add_(torch::randn_like(p) * 0.01);  // differ from a fresh init
  }
  const std::string path = ::testing::TempDir() + "/go_policy_roundtrip.pt";
  ASSERT_TRUE(SaveGoPolicy(policy, path).ok());
  auto loaded = LoadGoPolicy(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ((*loaded)->config().ToString(), config.ToString());
  Fixture f = MakeFixture(GpuCluster(2));
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(
      torch::equal(policy->forward(f.tensors).placement_logits, (*loaded)->forward(f.tensors).placement_logits));
  std::remove(path.c_str());
}

TEST(GoPolicyTest, LoadErrorsNameTheFile) {
  const auto missing = LoadGoPolicy("/nonexistent/policy.pt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/policy.pt"), std::string::npos);
  const std::string path = ::testing::TempDir() + "/go_policy_garbage.pt";
  std::ofstream(path) << "not a checkpoint";
  const auto garbage = LoadGoPolicy(path);
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find(path), std::string::npos);
  std::remove(path.c_str());
  GoPolicy policy(TinyConfig());
  const Status s = SaveGoPolicy(policy, "/nonexistent/dir/policy.pt");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("/nonexistent/dir/policy.pt"), std::string::npos);
}

TEST(GoPolicyTest, SameSeedSameNetworkAndSameSamples) {
  Fixture f = MakeFixture(GpuCluster(4));
  GoPolicy a(TinyConfig()), b(TinyConfig());
  torch::manual_seed(123);  // the policy's own seed decides, not the global generator
  GoPolicy c(TinyConfig());
  const PolicyOutput oa = a->forward(f.tensors), ob = b->forward(f.tensors), oc = c->forward(f.tensors);
  EXPECT_TRUE(torch::equal(oa.placement_logits, ob.placement_logits));
  EXPECT_TRUE(torch::equal(oa.placement_logits, oc.placement_logits));
  Rng r1(42), r2(42), r3(43);
  const std::vector<Actions> s1 = a->Sample(f.tensors, oa, r1, 3), s2 = b->Sample(f.tensors, ob, r2, 3),
                             s3 = a->Sample(f.tensors, oa, r3, 3);
  EXPECT_EQ(s1, s2);
  EXPECT_NE(s1, s3);
  GoPolicyConfig other = TinyConfig();
  other.seed = 4;
  EXPECT_FALSE(torch::equal(GoPolicy(other)->forward(f.tensors).placement_logits, oa.placement_logits));
}

// A policy whose scheduling head puts every op on level 0 with certainty (as a
// pre-trained one's does) samples other levels again once its output layer restarts;
// the restart is the seed's alone and leaves every other parameter as it was.
TEST(GoPolicyTest, RestartPriorityOutputIsSeededAndTouchesNothingElse) {
  Fixture f = MakeFixture(GpuCluster(2));
  auto collapsed = [] {
    GoPolicy p(TinyConfig());
    torch::NoGradGuard no_grad;
    p->named_parameters()["priority_out.bias"][0].add_(100.0);
    return p;
  };
  auto levels_off = [&](GoPolicy& p) {
    Rng rng(7);
    int off = 0;
    for (const Actions& a : p->Sample(f.tensors, p->forward(f.tensors), rng, 8)) {
      off += static_cast<int>(std::count_if(a.priority_level.begin(), a.priority_level.end(), [](int32_t l) { return l != 0; }));
    }
    return off;
  };
  GoPolicy a = collapsed(), b = collapsed(), c = collapsed(), untouched = collapsed();
  EXPECT_EQ(levels_off(a), 0);
  a->RestartPriorityOutput(11);
  b->RestartPriorityOutput(11);
  c->RestartPriorityOutput(12);
  EXPECT_GT(levels_off(a), 0);
  const auto pa = a->named_parameters(), pb = b->named_parameters(), pc = c->named_parameters(),
             pu = untouched->named_parameters();
  for (const auto& item : pa) {
    const bool restarted = item.key().rfind("priority_out.", 0) == 0;
    EXPECT_TRUE(torch::equal(item.value(), pb[item.key()])) << item.key();
    EXPECT_EQ(torch::equal(item.value(), pu[item.key()]), !restarted) << item.key();
    if (restarted) {
      EXPECT_FALSE(torch::equal(item.value(), pc[item.key()])) << item.key();
    }
  }
  // The level prior on level 0, over LibTorch's initial biases (within 1/sqrt(16)).
  const torch::Tensor bias = pa["priority_out.bias"];
  EXPECT_GT(bias[0].item<double>() - bias.slice(0, 1).max().item<double>(), TinyConfig().level_prior - 0.5);
}

TEST(GoPolicyTest, ConfigRoundTripsAndRejectsBadValues) {
  GoPolicyConfig c = TinyConfig();
  c.tasks = kTaskScheduling;
  c.detach_memory = true;
  c.level_prior = 7;
  auto parsed = GoPolicyConfig::FromString(c.ToString());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->ToString(), c.ToString());
  EXPECT_EQ(parsed->level_prior, 7);
  EXPECT_FALSE(GoPolicyConfig::FromString("level_prior=31").ok());
  EXPECT_FALSE(GoPolicyConfig::FromString("hidden=30,heads=4").ok());
  EXPECT_FALSE(GoPolicyConfig::FromString("memory=200").ok());
  EXPECT_FALSE(GoPolicyConfig::FromString("tasks=placing").ok());
  EXPECT_FALSE(GoPolicyConfig::FromString("colour=blue").ok());
  EXPECT_FALSE(GoPolicyConfig::FromString("feedback_attention=1").ok());  // needs unit_tasks=0
  EXPECT_TRUE(GoPolicyConfig::FromString("feedback_attention=1,unit_tasks=0").ok());
}

}  // namespace
}  // namespace graphopt
