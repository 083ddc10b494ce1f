#include "sim/plan_legalizer.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.h"
#include "sim/random_graph.h"
#include "sim_test_util.h"

namespace graphopt {
namespace {

using testing::PaperCluster;
using testing::PaperGraph;

// Random devices over `devices` GPUs (some out of range) and random fusion flags on
// every op, kinds that cannot fuse included: the raw output a policy hands over.
Plan RawPlan(const Graph& graph, int devices, double fuse, Rng& rng) {
  Plan plan;
  const size_t n = static_cast<size_t>(graph.num_ops());
  for (size_t o = 0; o < n; ++o) {
    plan.device.push_back(static_cast<DeviceId>(rng.Uniform(static_cast<uint64_t>(devices + 1))));
    plan.priority.push_back(rng.UniformDouble());
    plan.fuse_with_producer.push_back(rng.Bernoulli(fuse) ? 1 : 0);
  }
  return plan;
}

// A random layered graph of `ops` ops, `width` per layer, each reading up to 4 tensors.
Graph LayeredGraph(int ops, int width, uint64_t seed) {
  RandomGraphOptions o;
  o.num_ops = ops;
  o.width = width;
  o.max_inputs = 4;
  return RandomLayeredGraph(o, seed);
}

TEST(PlanLegalizerTest, FindsTheFusedOpOnACycle) {
  // a -> b -> c, a -> c; c (an Add) fuses into a, its first input's producer: the
  // group {a, c} is left by a -> b and re-entered by b -> c.
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 1, 1000);
  const TensorId b = g.Compute("b", {a}, 1, 1000);
  const OpId c = g.Add("c", OpKind::kAdd, {a, b}, {1000}, 0, 2000, 1000);
  const PlanLegalizer legalizer(g.graph());
  EXPECT_EQ(legalizer.FusedOpsOnCycles({0, 0, 0, 1}), std::vector<OpId>{c});
  EXPECT_TRUE(legalizer.FusedOpsOnCycles({0, 0, 1, 0}).empty());  // b into a: a chain
  Plan plan;
  plan.fuse_with_producer = {0, 0, 0, 1};
  EXPECT_EQ(legalizer.DropIllegalFusions(&plan), 1);
  EXPECT_EQ(plan.fuse_with_producer, (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(PlanLegalizerTest, ClearsOnlyTheFlagsThatCloseACycle) {
  // As above, and d (a Tanh of a) fuses into a too: the group {a, c, d} is on a cycle,
  // but only c closes it; d keeps its flag.
  PaperGraph g;
  const TensorId in = g.Input("input", 1000);
  const TensorId a = g.Compute("a", {in}, 1, 1000);
  const TensorId b = g.Compute("b", {a}, 1, 1000);
  g.Add("c", OpKind::kAdd, {a, b}, {1000}, 0, 2000, 1000);
  g.Add("d", OpKind::kTanh, {a}, {1000}, 0, 1000, 1000);
  const PlanLegalizer legalizer(g.graph());
  Plan plan;
  plan.fuse_with_producer = {0, 0, 0, 1, 1};
  EXPECT_EQ(legalizer.DropIllegalFusions(&plan), 1);
  EXPECT_EQ(plan.fuse_with_producer, (std::vector<uint8_t>{0, 0, 0, 0, 1}));
}

// On random graphs and raw plans on one device (large groups, many cycles): the
// groups on no cycle keep every flag, and of the flags of the groups on one, the
// rounds keep some (clearing every flag of those groups, as legalizing did before,
// keeps none).
TEST(PlanLegalizerTest, GroupsOnNoCycleKeepTheirFlagsAndCyclesLoseOnlySome) {
  int64_t on_cycles = 0, kept_on_cycles = 0;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    const Graph graph = LayeredGraph(300, 2 + static_cast<int>(seed % 4), seed);
    const Cluster cluster = PaperCluster(2);
    const PlanLegalizer legalizer(graph);
    Rng rng(seed + 200);
    for (int k = 0; k < 3; ++k) {
      Plan raw = RawPlan(graph, 1, 0.5 + 0.2 * k, rng);
      legalizer.RespectColocation(&raw);
      legalizer.DropRuleBreakingFusions(&raw);
      std::vector<uint8_t> cyclic(raw.fuse_with_producer.size(), 0);
      for (OpId op : legalizer.FusedOpsOnCycles(raw.fuse_with_producer)) cyclic[static_cast<size_t>(op)] = 1;
      Plan plan = raw;
      legalizer.DropIllegalFusions(&plan);
      EXPECT_TRUE(legalizer.FusedOpsOnCycles(plan.fuse_with_producer).empty());
      for (size_t i = 0; i < cyclic.size(); ++i) {
        if (!raw.fuse_with_producer[i]) {
          EXPECT_EQ(plan.fuse_with_producer[i], 0);
        } else if (!cyclic[i]) {
          EXPECT_EQ(plan.fuse_with_producer[i], 1) << "seed " << seed << ": " << graph.op(static_cast<OpId>(i)).name;
        } else {
          ++on_cycles;
          kept_on_cycles += plan.fuse_with_producer[i];
        }
      }
    }
  }
  ASSERT_GT(on_cycles, 0) << "no group was on a cycle: the test checks nothing";
  EXPECT_GT(kept_on_cycles, on_cycles / 4) << kept_on_cycles << " of " << on_cycles;
}

// On random graphs and raw plans: the legalizer gives exactly the free functions'
// plans, the plan passes ValidatePlan, and one pass of cycle breaking leaves no
// cycle (a second pass clears nothing).
TEST(PlanLegalizerTest, SamePlansAsTheFreeFunctionsAndOnePassLeavesNoCycle) {
  int cleared_cycles = 0;
  for (uint64_t seed = 0; seed < 12; ++seed) {
    const Graph graph = LayeredGraph(200, 3 + static_cast<int>(seed % 4), seed);
    const Cluster cluster = PaperCluster(2);
    const PlanLegalizer legalizer(graph);
    Rng rng(seed + 100);
    for (int k = 0; k < 5; ++k) {
      const Plan raw = RawPlan(graph, seed % 2 == 0 ? 1 : 2, 0.4 + 0.1 * k, rng);
      Plan fast = raw, reference = raw;
      legalizer.MakeValid(cluster, &fast);
      MakePlanValid(graph, cluster, &reference);
      EXPECT_EQ(fast.device, reference.device);
      EXPECT_EQ(fast.priority, reference.priority);
      EXPECT_EQ(fast.fuse_with_producer, reference.fuse_with_producer);
      const Status valid = ValidatePlan(graph, cluster, fast);
      EXPECT_TRUE(valid.ok()) << valid.message();
      EXPECT_TRUE(legalizer.FusedOpsOnCycles(fast.fuse_with_producer).empty());
      EXPECT_EQ(legalizer.DropIllegalFusions(&fast), 0);
      // Whether the raw flags formed cycles at all.
      cleared_cycles += static_cast<int>(legalizer.FusedOpsOnCycles(raw.fuse_with_producer).size());
    }
  }
  EXPECT_GT(cleared_cycles, 0) << "the random plans never formed a fused cycle: the test checks nothing";
}

// The cycle breaking of DropIllegalFusions written plainly, every round over the whole
// graph: groups follow the flags to the fusion producer, a group is on a cycle when it
// and another group reach each other (reachability by repeated relaxation), a round
// clears the flagged ops entered from another group of their component, and the 17th
// round clears every flag still on a cycle. Returns the flags left.
std::vector<uint8_t> ReferenceCycleBreaking(const Graph& graph, std::vector<uint8_t> fuse) {
  const size_t n = static_cast<size_t>(graph.num_ops());
  for (int round = 0;; ++round) {
    std::vector<size_t> root(n);
    for (size_t o = 0; o < n; ++o) {
      size_t x = o;
      while (fuse[x] && FusionProducer(graph, static_cast<OpId>(x)) != kNoId) {
        x = static_cast<size_t>(FusionProducer(graph, static_cast<OpId>(x)));
      }
      root[o] = x;
    }
    std::vector<std::vector<uint8_t>> reach(n, std::vector<uint8_t>(n, 0));
    std::vector<std::pair<size_t, size_t>> edges;  // (producer op, consumer op)
    for (size_t v = 0; v < n; ++v) {
      const Op& op = graph.op(static_cast<OpId>(v));
      if (IsFree(op.kind)) continue;
      for (TensorId t : op.inputs) {
        const OpId u = graph.tensor(t).producer;
        if (u == kNoId) continue;
        edges.emplace_back(static_cast<size_t>(u), v);
        if (root[static_cast<size_t>(u)] != root[v]) reach[root[static_cast<size_t>(u)]][root[v]] = 1;
      }
    }
    for (size_t k = 0; k < n; ++k) {
      for (size_t i = 0; i < n; ++i) {
        if (!reach[i][k]) continue;
        for (size_t j = 0; j < n; ++j) reach[i][j] |= reach[k][j];
      }
    }
    auto same_component = [&](size_t a, size_t b) { return a != b && reach[a][b] && reach[b][a]; };
    std::vector<uint8_t> on_cycle(n, 0);
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = 0; b < n; ++b) on_cycle[a] |= same_component(a, b) ? 1 : 0;
    }
    std::vector<size_t> entries;
    for (size_t v = 0; v < n; ++v) {
      if (!fuse[v] || FusionProducer(graph, static_cast<OpId>(v)) == kNoId || !on_cycle[root[v]]) continue;
      bool entered = round == 16;
      for (const auto& [u, w] : edges) entered |= w == v && same_component(root[u], root[v]);
      if (entered) entries.push_back(v);
    }
    if (entries.empty()) return fuse;
    for (size_t v : entries) fuse[v] = 0;
    if (round == 16) return fuse;
  }
}

// Rounds after the first search only the groups that were on a cycle: the flags left
// are those of the plain algorithm, on plans that take several rounds.
TEST(PlanLegalizerTest, CycleBreakingAsThePlainAlgorithm) {
  int cyclic_plans = 0;
  for (uint64_t seed = 0; seed < 25; ++seed) {
    const Graph graph = LayeredGraph(120, 2 + static_cast<int>(seed % 4), seed);
    const PlanLegalizer legalizer(graph);
    Rng rng(seed + 300);
    for (int k = 0; k < 6; ++k) {
      Plan raw = RawPlan(graph, 1, 0.6 + 0.07 * k, rng);
      legalizer.RespectColocation(&raw);
      legalizer.DropRuleBreakingFusions(&raw);
      if (!legalizer.FusedOpsOnCycles(raw.fuse_with_producer).empty()) ++cyclic_plans;
      Plan plan = raw;
      legalizer.DropIllegalFusions(&plan);
      EXPECT_EQ(plan.fuse_with_producer, ReferenceCycleBreaking(graph, raw.fuse_with_producer))
          << "seed " << seed << " plan " << k;
    }
  }
  EXPECT_GT(cyclic_plans, 10) << "few plans with fused cycles: the test checks little";
}

}  // namespace
}  // namespace graphopt
