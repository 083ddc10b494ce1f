#include "exec/busy_profile.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../testing/clusters.h"
#include "core_sets.h"
#include "exec/local_cluster.h"
#include "models/load.h"

namespace graphopt {
namespace {

using testing::CoreSets;

Graph SmallRnnlm() {
  auto g = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return std::move(*g);
}

// A profile of `graph` whose every op of kind `kind` takes `kind_us` and every other
// op that is not free 1 us.
Profile Uniform(const Graph& graph, OpKind kind, double kind_us, double other_us) {
  Profile p;
  p.graph = graph.name();
  p.num_ops = graph.num_ops();
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const OpKind k = graph.op(o).kind;
    p.op_time_us.push_back(IsFree(k) ? -1 : k == kind ? kind_us : other_us);
  }
  return p;
}

TEST(KindSlowdownsTest, RatioOfEachKindsTimeClampedAndSmallKindsLeftOut) {
  const Graph g = SmallRnnlm();
  const Profile idle = Uniform(g, OpKind::kMatMul, 100, 1);
  const Profile busy = Uniform(g, OpKind::kMatMul, 130, 0.5);
  const std::map<OpKind, double> kinds = KindSlowdowns(g, idle, busy);
  ASSERT_TRUE(kinds.count(OpKind::kMatMul));
  EXPECT_DOUBLE_EQ(kinds.at(OpKind::kMatMul), 1.3);
  // The other kinds ran faster busy: noise, clamped to 1; free ops have no entry.
  for (const auto& [kind, slowdown] : kinds) {
    if (kind != OpKind::kMatMul) EXPECT_EQ(slowdown, 1) << OpKindName(kind);
    EXPECT_FALSE(IsFree(kind)) << OpKindName(kind);
  }
  // With a threshold above the other kinds' share, only MatMul is measured.
  const std::map<OpKind, double> big = KindSlowdowns(g, idle, busy, 0.3);
  ASSERT_EQ(big.size(), 1u);
  EXPECT_EQ(big.begin()->first, OpKind::kMatMul);
}

TEST(BusyStepsTest, MeasuresTheFirstDeviceWithTheOthersRunning) {
  const Graph g = SmallRnnlm();
  const Cluster c = testing::TwoLocalCores();
  auto busy = BusySteps::Create(g, c, CoreSets(2));
  ASSERT_TRUE(busy.ok()) << busy.status().ToString();
  for (int i = 0; i < 3; ++i) {
    auto r = (*busy)->RunStep();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_GT(r->step_time_us, 0);
    EXPECT_FALSE(r->timeline.empty());
  }
  EXPECT_FALSE(BusySteps::Create(g, c.Part({0}), CoreSets(1)).ok());
  EXPECT_FALSE(BusySteps::Create(g, c, CoreSets(1)).ok());
}

TEST(ProfileInStepBusyTest, IdleAndBusyProfilesOfEveryKernelAndTheirKinds) {
  const Graph g = SmallRnnlm();
  const Cluster c = testing::TwoLocalCores();
  ProfileOptions options;
  options.warmup = 1;
  auto p = ProfileInStepBusy(g, c, CoreSets(2), 3, options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  for (const Profile* profile : {&p->idle, &p->busy}) {
    ASSERT_EQ(profile->op_time_us.size(), static_cast<size_t>(g.num_ops()));
    for (OpId o = 0; o < g.num_ops(); ++o) {
      EXPECT_EQ(profile->op_time_us[static_cast<size_t>(o)] < 0, IsFree(g.op(o).kind)) << g.op(o).name;
    }
  }
  EXPECT_FALSE(p->kinds.empty());
  EXPECT_EQ(p->kinds, KindSlowdowns(g, p->idle, p->busy));
  for (const auto& [kind, slowdown] : p->kinds) {
    EXPECT_GE(slowdown, 1);
    EXPECT_LE(slowdown, kMaxSlowdown);
  }
  EXPECT_FALSE(ProfileInStepBusy(g, c, CoreSets(2), 0, options).ok());
  const auto one = ProfileInStepBusy(g, c.Part({0}), CoreSets(1), 3, options);
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("two or more"), std::string::npos) << one.status().message();
}

}  // namespace
}  // namespace graphopt
