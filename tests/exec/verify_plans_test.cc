// VerifyPlans (exec/verify_plans.h): every candidate executed in the same rounds, the
// fastest measured one returned; one that cannot run is reported and the others go on.
#include "exec/verify_plans.h"

#include <gtest/gtest.h>

#include "../testing/clusters.h"
#include "exec/local_cluster.h"
#include "models/load.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

constexpr const char* kModel = "rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40";

std::vector<std::vector<int>> CoreSets() {
  auto cores = LocalCoreSets(0);
  EXPECT_TRUE(cores.ok());
  return {(*cores)[0], (*cores)[1 % cores->size()]};
}

// Every op on device 0, and the same ops alternating between the devices.
std::vector<VerifyCandidate> TwoPlans(const Graph& graph) {
  Plan split = DefaultPlan(graph);
  for (int op = 0; op < graph.num_ops(); ++op) split.device[static_cast<size_t>(op)] = op % 2;
  RespectColocation(graph, &split);
  return {{"one device", DefaultPlan(graph), 100}, {"split", split, 90}};
}

TEST(VerifyPlans, EveryPlanIsMeasuredAndTheFastestIsTheBest) {
  auto graph = LoadModel(kModel);
  ASSERT_TRUE(graph.ok());
  VerifyOptions options;
  options.warmup = 1;
  options.steps = 3;
  int rounds_seen = 0;
  options.on_round = [&](int done, int rounds) {
    ++rounds_seen;
    EXPECT_EQ(rounds, 4);
    EXPECT_EQ(done, rounds_seen);
  };
  auto r = VerifyPlans(*graph, testing::TwoInstantCores(int64_t{8} << 30), CoreSets(), TwoPlans(*graph), options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(rounds_seen, 4);
  ASSERT_EQ(r->plans.size(), 2u);
  EXPECT_EQ(r->plans[0].name, "one device");
  EXPECT_EQ(r->plans[1].simulated_us, 90);
  for (const VerifiedPlan& p : r->plans) {
    EXPECT_TRUE(p.error.empty()) << p.error;
    EXPECT_GT(p.measured_us, 0);
    EXPECT_GE(p.half_gap, 0);
  }
  ASSERT_GE(r->best, 0);
  const int other = 1 - r->best;
  EXPECT_LE(r->plans[static_cast<size_t>(r->best)].measured_us, r->plans[static_cast<size_t>(other)].measured_us);
  EXPECT_EQ(r->plan.device, TwoPlans(*graph)[static_cast<size_t>(r->best)].plan.device);
}

TEST(VerifyPlans, APlanThatCannotRunIsReportedAndTheOthersGoOn) {
  auto graph = LoadModel(kModel);
  ASSERT_TRUE(graph.ok());
  std::vector<VerifyCandidate> candidates = TwoPlans(*graph);
  candidates[1].plan.device[0] = 7;  // no such device
  VerifyOptions options;
  options.warmup = 0;
  options.steps = 2;
  auto r = VerifyPlans(*graph, testing::TwoInstantCores(int64_t{8} << 30), CoreSets(), candidates, options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->best, 0);
  EXPECT_FALSE(r->plans[1].error.empty());
  EXPECT_EQ(r->plans[1].measured_us, 0);
  candidates[0].plan.device[0] = 7;
  auto none = VerifyPlans(*graph, testing::TwoInstantCores(int64_t{8} << 30), CoreSets(), candidates, options);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("none of the 2 plans"), std::string::npos) << none.status().message();
}

TEST(VerifyPlans, NoCandidatesOrRoundsOutOfRangeAreRefused) {
  auto graph = LoadModel(kModel);
  ASSERT_TRUE(graph.ok());
  const Cluster cluster = testing::TwoInstantCores(int64_t{8} << 30);
  EXPECT_EQ(VerifyPlans(*graph, cluster, CoreSets(), {}, {}).status().code(), StatusCode::kInvalidArgument);
  VerifyOptions one_step;
  one_step.steps = 1;
  EXPECT_EQ(VerifyPlans(*graph, cluster, CoreSets(), TwoPlans(*graph), one_step).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(TopPlanCandidates, TheTopPlansByRankThenBaselinesOfOtherPlacementsThenTheSingleDevicePlan) {
  auto graph = LoadModel(kModel);
  ASSERT_TRUE(graph.ok());
  auto sim = Simulator::Create(*graph, testing::TwoInstantCores(int64_t{8} << 30));
  ASSERT_TRUE(sim.ok());
  const std::vector<VerifyCandidate> two = TwoPlans(*graph);
  std::vector<RankedPlan> top{{two[1].plan, PlanScore{90, false, 0}, "policy"}};
  auto c = TopPlanCandidates(*sim, top, {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].name, "1 (policy)");
  EXPECT_EQ((*c)[0].simulated_us, 90);
  EXPECT_EQ((*c)[1].name, "single device");
  EXPECT_EQ((*c)[1].plan.device, DefaultPlan(*graph).device);
  EXPECT_GT((*c)[1].simulated_us, 0);
  top.push_back({DefaultPlan(*graph), PlanScore{95, false, 0}, "baseline:single"});
  c = TopPlanCandidates(*sim, top, {});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 2u);  // the single-device plan is a top plan already
  EXPECT_EQ((*c)[1].name, "2 (baseline:single)");
  // Baselines: one whose placement a top plan has is left out; the others follow the
  // top plans in their order, named by their source.
  Plan other = two[1].plan;
  for (int& d : other.device) d = 1 - d;
  const std::vector<RankedPlan> baselines{{two[1].plan, PlanScore{80, false, 0}, "heft"},
                                          {other, PlanScore{120, false, 0}, "metis+fusion"}};
  c = TopPlanCandidates(*sim, {top[0]}, baselines);
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->size(), 3u);
  EXPECT_EQ((*c)[0].name, "1 (policy)");
  EXPECT_EQ((*c)[1].name, "metis+fusion (baseline)");
  EXPECT_EQ((*c)[1].plan.device, other.device);
  EXPECT_EQ((*c)[1].simulated_us, 120);
  EXPECT_EQ((*c)[2].name, "single device");
}

}  // namespace
}  // namespace graphopt
