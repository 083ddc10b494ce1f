// `graphopt execute` and `graphopt profile` end to end, on this machine's cores.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli_test_util.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Graphopt;
using testing::TempPath;

const char* kModel = "rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40";

#ifdef GRAPHOPT_HAVE_EXEC
TEST(ExecuteCommandTest, RunsAPlanAndWritesItsTrace) {
  const std::string plan = TempPath("execute_plan.json"), trace = TempPath("execute_trace.json");
  CliRun b = Graphopt(std::string("baseline ") + kModel + " --cluster local:2 --method metis --out " + plan);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  CliRun r = Graphopt(std::string("execute ") + kModel + " --cluster local:2 --plan " + plan +
                      " --steps 3 --warmup 1 --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("3 measured after 1 warm-up"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("median"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cpu:1"), std::string::npos) << r.output;
  FILE* f = std::fopen(trace.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  std::remove(plan.c_str());
  std::remove(trace.c_str());
}

TEST(ExecuteCommandTest, RefusesOtherClustersAndPlansOfAnotherGraph) {
  CliRun r = Graphopt(std::string("execute ") + kModel + " --cluster 4xV100");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("local or local:N"), std::string::npos) << r.output;
  const std::string plan = TempPath("execute_other_plan.json");
  ASSERT_EQ(Graphopt("baseline rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40 --cluster local:2 --method single --out " + plan).exit_code, 0);
  r = Graphopt(std::string("execute ") + kModel + " --cluster local:2 --plan " + plan);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(plan), std::string::npos) << r.output;
  std::remove(plan.c_str());
  r = Graphopt(std::string("execute ") + kModel + " --cluster local:99");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("local:99"), std::string::npos) << r.output;
}

TEST(ProfileCommandTest, WritesAProfileThatSimulateUses) {
  const std::string profile = TempPath("profile.json");
  CliRun p = Graphopt(std::string("profile ") + kModel + " --cluster local:2 --out " + profile);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("distinct kinds and shapes"), std::string::npos) << p.output;
  CliRun s = Graphopt(std::string("simulate ") + kModel + " --cluster local:2 --profile " + profile);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("step time"), std::string::npos) << s.output;
  CliRun other = Graphopt("simulate rnnlm:layers=2,batch=2,steps=3,hidden=16,vocab=40 --cluster local:2 --profile " + profile);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.output.find(profile), std::string::npos) << other.output;
  std::remove(profile.c_str());
}

TEST(ProfileCommandTest, BusyStepsPutTheKindsSlowdownsInTheProfilesCluster) {
  const std::string profile = TempPath("profile_busy.json");
  CliRun p =
      Graphopt(std::string("profile ") + kModel + " --cluster local:2 --in-step --busy --steps 3 --out " + profile);
  ASSERT_EQ(p.exit_code, 0) << p.output;
  EXPECT_NE(p.output.find("op kinds slowed with every other device running the step: "), std::string::npos) << p.output;
  EXPECT_NE(p.output.find("MatMul "), std::string::npos) << p.output;
  CliRun s = Graphopt(std::string("simulate ") + kModel + " --cluster local:2 --profile " + profile);
  ASSERT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("op kinds measured"), std::string::npos) << s.output;
  std::remove(profile.c_str());
  CliRun alone = Graphopt(std::string("profile ") + kModel + " --cluster local:2 --busy --out " + profile);
  EXPECT_EQ(alone.exit_code, 1);
  EXPECT_NE(alone.output.find("--busy goes with --in-step"), std::string::npos) << alone.output;
  CliRun one = Graphopt(std::string("profile ") + kModel + " --cluster local:1 --in-step --busy --out " + profile);
  EXPECT_EQ(one.exit_code, 1);
  EXPECT_NE(one.output.find("has one device"), std::string::npos) << one.output;
}
#endif

}  // namespace
}  // namespace graphopt
