#include "exec/profiler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "core/files.h"
#include "exec/local_cluster.h"
#include "models/load.h"
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
