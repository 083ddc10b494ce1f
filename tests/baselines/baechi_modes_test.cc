// The modes of the Baechi placers (baselines/baechi_modes.h): the forward-graph
// mode, co-placement and fusion, transfers routed over ports, the estimate of a
// placement and the best of the variants, on hand-made problems and built-in models.
#include "baselines/baechi_modes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../testing/models.h"
#include "baselines/baseline.h"

namespace graphopt {
namespace {

// Tasks of cost 1 on every processor, one 10-byte tensor each read by `readers[task]`;
// a transfer costs 1 us + 0.1 us per byte (2 us).
BaechiProblem Problem(int num_procs, const std::vector<std::vector<int32_t>>& readers) {
  BaechiProblem p;
  p.num_tasks = static_cast<int>(readers.size());
  p.num_procs = num_procs;
  p.cost.assign(static_cast<size_t>(p.num_tasks * num_procs), 1.0);
  for (int v = 0; v < p.num_tasks; ++v) p.tensors.push_back(BaechiTensor{v, 10, 10, readers[static_cast<size_t>(v)]});
  p.latency.assign(static_cast<size_t>(num_procs * num_procs), 1.0);
  p.time_per_byte.assign(static_cast<size_t>(num_procs * num_procs), 0.1);
  return p;
}

double Estimate(const BaechiProblem& p, const std::vector<int32_t>& proc) {
  StatusOr<BaechiSchedule> s = BaechiEstimate(p, proc);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? s->makespan : -1;
}

// Routes with one resource per ordered pair (its link) and the `shared` resource on the pairs listed.
void Routes(BaechiProblem* p, const std::vector<std::pair<int, int>>& shared) {
  const int np = p->num_procs;
  p->route.assign(static_cast<size_t>(np * np), {});
  for (int a = 0; a < np; ++a) {
    for (int b = 0; b < np; ++b) {
      if (a != b) p->route[static_cast<size_t>(a * np + b)] = {a * np + b};
    }
  }
  for (auto [a, b] : shared) p->route[static_cast<size_t>(a * np + b)].push_back(np * np);
}

TEST(BaechiModesTest, EstimateOfAnEtfPlacementIsItsMakespan) {
  // The diamond of baechi_test.cc (t0 -> {t1, t2} -> t3, costs 2, 3, 3, 1): m-ETF
  // places it {0, 0, 1, 1} with makespan 8; the estimate of that placement agrees.
  BaechiProblem p = Problem(2, {{1, 2}, {3}, {3}, {}});
  p.cost = {2, 2, 3, 3, 3, 3, 1, 1};
  StatusOr<BaechiSchedule> etf = ScheduleBaechi(p, BaechiMethod::kEtf);
  ASSERT_TRUE(etf.ok());
  EXPECT_EQ(etf->proc, (std::vector<int32_t>{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(Estimate(p, etf->proc), 8);
  EXPECT_DOUBLE_EQ(Estimate(p, {0, 0, 0, 0}), 9);  // one processor: 2 + 3 + 3 + 1
}

TEST(BaechiModesTest, TransfersThroughASharedPortRunOneAfterAnother) {
  // t0 on P0 -> t2 on P2 and t1 on P1 -> t3 on P3, at the same time. Baechi's model:
  // four channels, the two transfers run side by side over [1, 3): makespan 4. Links
  // of their own: the same. A port both cross (a switch uplink): the second waits for
  // the first, [3, 5), and t3 ends at 6.
  BaechiProblem p = Problem(4, {{2}, {3}, {}, {}});
  const std::vector<int32_t> where = {0, 1, 2, 3};
  EXPECT_DOUBLE_EQ(Estimate(p, where), 4);
  Routes(&p, {});
  EXPECT_DOUBLE_EQ(Estimate(p, where), 4);
  Routes(&p, {{0, 2}, {1, 3}});
  EXPECT_DOUBLE_EQ(Estimate(p, where), 6);
}

TEST(BaechiModesTest, PortsLetADeviceSendAndReceiveAtOnce) {
  // t0 on P0 -> t2 on P1 and t1 on P1 -> t3 on P0. Baechi's model gives each device
  // one channel for its sends and receives: P1 receives over [1, 3), then sends over
  // [3, 5); t3 ends at 6. With a link (and ports) each way, both cross at once: 4.
  BaechiProblem p = Problem(2, {{2}, {3}, {}, {}});
  const std::vector<int32_t> where = {0, 1, 1, 0};
  EXPECT_DOUBLE_EQ(Estimate(p, where), 6);
  Routes(&p, {});
  EXPECT_DOUBLE_EQ(Estimate(p, where), 4);
}

TEST(BaechiModesTest, PortRoutesFollowTheClustersSwitches) {
  // 8xV100: GPUs 0 and 1 share a PCIe switch; traffic leaving the pair crosses its uplink.
  const Cluster cluster = *ClusterPreset("8xV100");
  BaechiProblem p = Problem(8, {{}});
  const std::vector<DeviceId> gpus = cluster.Accelerators();
  ASSERT_EQ(gpus.size(), 8u);
  SetBaechiPortRoutes(cluster, gpus, &p);
  auto route = [&](int a, int b) { return p.route[static_cast<size_t>(a * 8 + b)]; };
  auto share = [&](int a, int b, int c, int d) {
    for (int32_t r : route(a, b)) {
      for (int32_t s : route(c, d)) {
        if (r == s) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(share(0, 2, 1, 3));   // both up switch 0's uplink
  EXPECT_FALSE(share(0, 1, 2, 3));  // two pairs, each inside its switch
  EXPECT_TRUE(share(0, 1, 0, 2));   // GPU 0's PCIe out port
  EXPECT_FALSE(share(0, 1, 1, 0));  // one port each way
}

TEST(BaechiModesTest, CoplacementGroupsATaskWithItsOnlySuccessorAndFusesTheGroup) {
  // t0 -> {t1, t2} -> t3: t1 and t2 have one successor, t3, and join its group; the
  // group {t1, t2, t3} fuses into one task (t1's and t2's tensors are then inside it).
  BaechiProblem p = Problem(2, {{1, 2}, {3}, {3}, {}});
  BaechiCoplace(&p);
  EXPECT_EQ(p.group[0], -1);
  EXPECT_GE(p.group[1], 0);
  EXPECT_EQ(p.group[1], p.group[2]);
  EXPECT_EQ(p.group[1], p.group[3]);
  std::vector<int32_t> fused;
  const BaechiProblem f = BaechiFuse(p, &fused);
  EXPECT_EQ(fused, (std::vector<int32_t>{0, 1, 1, 1}));
  ASSERT_EQ(f.num_tasks, 2);
  EXPECT_DOUBLE_EQ(f.Cost(1, 0), 3);
  EXPECT_EQ(f.tensors[0].consumers, (std::vector<int32_t>{1}));
  EXPECT_EQ(f.tensors[1].memory, 0);
  EXPECT_EQ(f.tensors[1].consumers.size(), 0u);
  EXPECT_TRUE(ValidateBaechiProblem(f).ok());
}

TEST(BaechiModesTest, FusionSkipsAnEdgeThatCouldCloseACycle) {
  // Group {t0, t1} with t0 -> t1 and t0 -> t2 -> t1 outside it: fusing t0 and t1
  // would make a cycle through t2, so nothing fuses.
  BaechiProblem p = Problem(2, {{1, 2}, {}, {1}});
  p.group = {0, 0, -1};
  std::vector<int32_t> fused;
  const BaechiProblem f = BaechiFuse(p, &fused);
  EXPECT_EQ(f.num_tasks, 3);
  EXPECT_TRUE(ValidateBaechiProblem(f).ok());
}

const char* kRnnlm = "rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40";

TEST(BaechiModesTest, ForwardProblemHasTheForwardOpsAndTheWholeStepsWork) {
  const Graph g = testing::Training(kRnnlm);
  const Cluster cluster = *ClusterPreset("2xP100");
  const CostModel cost_model;
  std::vector<DeviceId> devices;
  StatusOr<BaechiProblem> whole = BaechiProblemFromGraph(g, cluster, cost_model, &devices);
  ASSERT_TRUE(whole.ok());
  std::vector<int32_t> task;
  StatusOr<BaechiProblem> fwd = BaechiForwardProblem(g, *whole, &task);
  ASSERT_TRUE(fwd.ok()) << fwd.status().message();
  EXPECT_TRUE(ValidateBaechiProblem(*fwd).ok());
  int forward_ops = 0;
  for (const Op& op : g.ops()) forward_ops += op.phase == Phase::kForward;
  EXPECT_EQ(fwd->num_tasks, forward_ops);
  EXPECT_LT(forward_ops, g.num_ops());
  for (int q = 0; q < 2; ++q) {
    double whole_cost = 0, fwd_cost = 0;
    for (int v = 0; v < whole->num_tasks; ++v) whole_cost += whole->Cost(v, q);
    for (int v = 0; v < fwd->num_tasks; ++v) fwd_cost += fwd->Cost(v, q);
    EXPECT_NEAR(fwd_cost, whole_cost, 1e-6 * whole_cost);
  }
  int64_t whole_resident = 0, fwd_resident = 0;
  for (int64_t r : whole->resident) whole_resident += r;
  for (int64_t r : fwd->resident) fwd_resident += r;
  EXPECT_GT(fwd_resident, whole_resident);  // the saved activations, held all step
}

// The op each op follows in forward mode (itself if forward).
OpId Anchor(const Graph& g, OpId o) {
  while (g.op(o).phase != Phase::kForward && g.op(o).forward_op != kNoId) o = g.op(o).forward_op;
  return o;
}

TEST(BaechiModesTest, BackwardAndUpdateOpsLandWithTheirForwardOp) {
  const Graph g = testing::Training(kRnnlm);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost_model;
  for (BaechiMethod m : {BaechiMethod::kEtf, BaechiMethod::kSct}) {
    for (bool coplace : {false, true}) {
      const BaechiVariant v{m, true, coplace, false};
      StatusOr<BaechiVariantResult> r = BaechiPlanVariant(g, cluster, cost_model, v);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_TRUE(ValidatePlan(g, cluster, r->plan).ok());
      for (OpId o = 0; o < g.num_ops(); ++o) {
        const OpId a = Anchor(g, o);
        EXPECT_EQ(r->plan.device[static_cast<size_t>(o)], r->plan.device[static_cast<size_t>(a)])
            << BaechiVariantName(v) << " " << g.op(o).name;
      }
      EXPECT_GT(r->estimate_us, 0);
    }
  }
}

TEST(BaechiModesTest, CoplacedOpsShareADevice) {
  // In the whole-graph co-placement mode an op whose output goes to one op only runs
  // on that op's device.
  const Graph g = testing::Training(kRnnlm);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost_model;
  std::vector<DeviceId> devices;
  StatusOr<BaechiProblem> whole = BaechiProblemFromGraph(g, cluster, cost_model, &devices);
  ASSERT_TRUE(whole.ok());
  std::vector<std::vector<int32_t>> succs(static_cast<size_t>(g.num_ops()));
  for (const BaechiTensor& t : whole->tensors) {
    for (int32_t c : t.consumers) {
      auto& s = succs[static_cast<size_t>(t.producer)];
      if (std::find(s.begin(), s.end(), c) == s.end()) s.push_back(c);
    }
  }
  for (BaechiMethod m : {BaechiMethod::kEtf, BaechiMethod::kSct}) {
    StatusOr<BaechiVariantResult> r = BaechiPlanVariant(g, cluster, cost_model, BaechiVariant{m, false, true, true});
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_LT(r->num_tasks, g.num_ops());
    int checked = 0;
    for (OpId o = 0; o < g.num_ops(); ++o) {
      const auto& s = succs[static_cast<size_t>(o)];
      if (s.size() != 1) continue;
      ++checked;
      EXPECT_EQ(r->plan.device[static_cast<size_t>(o)], r->plan.device[static_cast<size_t>(s[0])]) << g.op(o).name;
    }
    EXPECT_GT(checked, 0);
  }
}

TEST(BaechiModesTest, PlainVariantIsThePlainPlacer) {
  const Graph g = testing::Training(kRnnlm);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost_model;
  for (BaechiMethod m : {BaechiMethod::kEtf, BaechiMethod::kSct}) {
    StatusOr<Plan> plain = BaechiPlan(g, cluster, cost_model, m);
    StatusOr<BaechiVariantResult> v = BaechiPlanVariant(g, cluster, cost_model, BaechiVariant{m, false, false, false});
    ASSERT_TRUE(plain.ok() && v.ok());
    EXPECT_EQ(plain->device, v->plan.device) << BaechiMethodName(m);
  }
}

TEST(BaechiModesTest, BestIndexPrefersAPlanThatFitsThenTheLowestEstimate) {
  std::vector<BaechiVariantResult> r(3);
  r[0].estimate_us = 5, r[0].fits = false;
  r[1].estimate_us = 9;
  r[2].estimate_us = 7;
  EXPECT_EQ(BaechiBestIndex(r), 2);
  r[2].fits = false;
  EXPECT_EQ(BaechiBestIndex(r), 1);
  r[1].fits = false;
  EXPECT_EQ(BaechiBestIndex(r), 0);
}

TEST(BaechiModesTest, BestOfKeepsTheVariantOfTheLowestEstimateAndIsDeterministic) {
  const Graph g = testing::Training(kRnnlm);
  const Cluster cluster = *ClusterPreset("4xV100");
  const CostModel cost_model;
  StatusOr<std::vector<BaechiVariantResult>> all = BaechiPlanVariants(g, cluster, cost_model, BaechiAllVariants());
  ASSERT_TRUE(all.ok()) << all.status().message();
  ASSERT_EQ(all->size(), 16u);
  double lowest = 1e300;
  for (const BaechiVariantResult& r : *all) {
    EXPECT_TRUE(ValidatePlan(g, cluster, r.plan).ok()) << BaechiVariantName(r.variant);
    if (r.fits) lowest = std::min(lowest, r.estimate_us);
  }
  StatusOr<BaechiVariantResult> best = BaechiBestPlan(g, cluster, cost_model);
  ASSERT_TRUE(best.ok());
  EXPECT_DOUBLE_EQ(best->estimate_us, lowest);
  const BaechiVariantResult& chosen = (*all)[static_cast<size_t>(BaechiBestIndex(*all))];
  EXPECT_EQ(BaechiVariantName(best->variant), BaechiVariantName(chosen.variant));
  EXPECT_EQ(best->plan.device, chosen.plan.device);
  StatusOr<BaechiVariantResult> again = BaechiBestPlan(g, cluster, cost_model);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->plan.device, best->plan.device);
}

TEST(BaechiModesTest, BuiltInModelsGetValidPlansFromEveryModeInTheRegistry) {
  const CostModel cost_model;
  for (const char* spec : {kRnnlm, "inception_v3:batch=1"}) {
    const Graph g = testing::Training(spec);
    ASSERT_GT(g.num_ops(), 0) << spec;
    const Cluster cluster = *ClusterPreset("2xP100");
    for (const char* method : {"m-etf-fwd", "m-sct-fwd", "m-etf-coplace", "m-sct-coplace", "m-etf-fwd-coplace",
                               "m-sct-fwd-coplace", "m-etf-ports", "m-sct-ports", "baechi", "baechi+fusion+cp"}) {
      StatusOr<Plan> plan = RunBaseline(method, g, cluster, cost_model);
      ASSERT_TRUE(plan.ok()) << spec << " " << method << ": " << plan.status().message();
      EXPECT_TRUE(ValidatePlan(g, cluster, *plan).ok()) << spec << " " << method;
    }
  }
}

}  // namespace
}  // namespace graphopt
