#include "exec/profiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "core/files.h"
#include "exec/local_cluster.h"
#include "models/load.h"
#include "sim/cost_model.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {
namespace {

struct Profiled {
  Graph graph;
  Cluster cluster;
  Profile profile;
};

Profiled ProfileSmallRnnlm() {
  Profiled p;
  auto g = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  p.graph = std::move(*g);
  auto c = LocalCluster("local:1");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  p.cluster = *c;
  auto cores = LocalCoreSets(1);
  EXPECT_TRUE(cores.ok());
  ProfileOptions options;
  options.min_repetitions = 3;
  options.target_us = 500;
  auto profile = ProfileGraph(p.graph, p.cluster, cores->front(), options);
  EXPECT_TRUE(profile.ok()) << profile.status().ToString();
  p.profile = std::move(*profile);
  return p;
}

TEST(ProfilerTest, EveryKernelHasATimeAndOpsOfOneSignatureShareIt) {
  const Profiled p = ProfileSmallRnnlm();
  ASSERT_EQ(static_cast<int>(p.profile.op_time_us.size()), p.graph.num_ops());
  for (OpId o = 0; o < p.graph.num_ops(); ++o) {
    const double t = p.profile.op_time_us[static_cast<size_t>(o)];
    if (IsFree(p.graph.op(o).kind)) {
      EXPECT_EQ(t, -1) << p.graph.op(o).name;
    } else {
      EXPECT_GT(t, 0) << p.graph.op(o).name;
    }
  }
  EXPECT_GT(p.profile.signatures, 5);
  EXPECT_LT(p.profile.signatures, p.graph.num_ops() / 2) << "the unrolled steps repeat the same ops";
}

// Measured times are kept for the reference device: on a device of the profiled peak
// the simulator gives every op its measured time back, so a one-device step is their sum.
TEST(ProfilerTest, ASimulatedOneDeviceStepIsTheSumOfTheProfiledTimes) {
  Profiled p = ProfileSmallRnnlm();
  double sum = 0;
  for (double t : p.profile.op_time_us) sum += t > 0 ? t : 0;
  ASSERT_TRUE(ApplyProfile(p.profile, CostModelOptions().measured_reference_flops, &p.graph).ok());
  auto sim = Simulator::Create(p.graph, p.profile.cluster);
  ASSERT_TRUE(sim.ok()) << sim.status().ToString();
  auto r = sim->Simulate(DefaultPlan(p.graph));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NEAR(r->step_time_us, sum, 1e-6 * sum);
}

TEST(ProfilerTest, JsonRoundTripAndAProfileOfAnotherGraphIsRefused) {
  const Profiled p = ProfileSmallRnnlm();
  const std::string path = ::testing::TempDir() + "/profile_test.json";
  ASSERT_TRUE(WriteProfileJson(p.graph, p.profile, path).ok());
  auto back = ReadProfileJson(path, p.graph);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->op_time_us, p.profile.op_time_us);
  EXPECT_EQ(back->signatures, p.profile.signatures);
  EXPECT_EQ(back->cluster.name(), p.profile.cluster.name());
  EXPECT_EQ(back->cluster.device(0).peak_flops, p.profile.cluster.device(0).peak_flops);

  auto other = LoadModel("rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40");
  ASSERT_TRUE(other.ok());
  auto refused = ReadProfileJson(path, *other);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(path), std::string::npos) << refused.status().message();
  EXPECT_FALSE(ApplyProfile(p.profile, 14e12, &*other).ok());

  ASSERT_TRUE(WriteFileAtomic(path, "{\"format\": \"graphopt-profile\", \"version\": 2}").ok());
  auto bad = ReadProfileJson(path, p.graph);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("version"), std::string::npos) << bad.status().message();
  std::remove(path.c_str());
}

}  // namespace
}  // namespace graphopt

namespace graphopt {
namespace {

// Op times from executed steps: each op's time runs from the end of the task before it
// on its device, the median over the steps; free ops have none.
TEST(ProfileFromStepsTest, MediansFromTheTaskBeforeAndFreeOpsNone) {
  auto g = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  ASSERT_TRUE(g.ok());
  std::vector<OpId> kernels;
  for (OpId o = 0; o < g->num_ops(); ++o) {
    if (!IsFree(g->op(o).kind)) kernels.push_back(o);
  }
  ASSERT_GE(kernels.size(), 2u);
  // Three steps on one device: op k runs from 10k + 2 to 10k + 2 + (k + 1) * m, m = 1, 2, 3.
  std::vector<SimResult> steps(3);
  for (int s = 0; s < 3; ++s) {
    double end = 0;
    for (size_t k = 0; k < kernels.size(); ++k) {
      TimelineEvent e;
      e.device = 0;
      e.op = kernels[k];
      e.start_us = end + 2;  // a dispatch gap of 2 us
      e.end_us = e.start_us + static_cast<double>(k + 1) * (s + 1);
      end = e.end_us;
      steps[static_cast<size_t>(s)].timeline.push_back(e);
    }
  }
  auto cluster = LocalCluster("local:1");
  ASSERT_TRUE(cluster.ok());
  auto p = ProfileFromSteps(*g, *cluster, steps);
  ASSERT_TRUE(p.ok()) << p.status().message();
  // The first op: its own duration (median over 1, 2, 3: 2); the others: gap + duration.
  EXPECT_DOUBLE_EQ(p->op_time_us[static_cast<size_t>(kernels[0])], 2.0);
  EXPECT_DOUBLE_EQ(p->op_time_us[static_cast<size_t>(kernels[1])], 2.0 + 2.0 * 2);
  for (OpId o = 0; o < g->num_ops(); ++o) {
    if (IsFree(g->op(o).kind)) {
      EXPECT_EQ(p->op_time_us[static_cast<size_t>(o)], -1) << g->op(o).name;
    }
  }
  // A fused task, an op that never ran, a step without a timeline: refused.
  std::vector<SimResult> fused = steps;
  fused[0].timeline[1].num_ops = 2;
  EXPECT_NE(ProfileFromSteps(*g, *cluster, fused).status().message().find("fused"), std::string::npos);
  std::vector<SimResult> missing = steps;
  for (SimResult& r : missing) r.timeline.pop_back();
  EXPECT_NE(ProfileFromSteps(*g, *cluster, missing).status().message().find("never ran"), std::string::npos);
  EXPECT_FALSE(ProfileFromSteps(*g, *cluster, {SimResult()}).ok());
  EXPECT_FALSE(ProfileFromSteps(*g, *cluster, {}).ok());
}

// In executed steps: every kernel has a time, and the times add up to about a step.
TEST(ProfileFromStepsTest, InStepProfileOfAOneDeviceStep) {
  auto g = LoadModel("rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40");
  ASSERT_TRUE(g.ok());
  auto cluster = LocalCluster("local:1");
  ASSERT_TRUE(cluster.ok());
  auto cores = LocalCoreSets(1);
  ASSERT_TRUE(cores.ok());
  ProfileOptions options;
  options.warmup = 1;
  auto p = ProfileInStep(*g, *cluster, cores->front(), 3, options);
  ASSERT_TRUE(p.ok()) << p.status().message();
  double sum = 0;
  for (OpId o = 0; o < g->num_ops(); ++o) {
    const double t = p->op_time_us[static_cast<size_t>(o)];
    if (IsFree(g->op(o).kind)) {
      EXPECT_EQ(t, -1);
    } else {
      EXPECT_GT(t, 0) << g->op(o).name;
      sum += t;
    }
  }
  EXPECT_GT(p->signatures, 0);
  auto sim = Simulator::Create(*g, *cluster);
  ASSERT_TRUE(sim.ok());
  Graph profiled = *g;
  ASSERT_TRUE(ApplyProfile(*p, CostModelOptions().measured_reference_flops, &profiled).ok());
  auto simulated = Simulator::Create(profiled, *cluster)->Simulate(DefaultPlan(profiled));
  ASSERT_TRUE(simulated.ok());
  EXPECT_NEAR(simulated->step_time_us, sum, 0.02 * sum);  // one device: the sum of its ops
  EXPECT_FALSE(ProfileInStep(*g, *cluster, cores->front(), 0, options).ok());
}

}  // namespace
}  // namespace graphopt
