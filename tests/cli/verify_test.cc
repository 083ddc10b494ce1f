// `graphopt optimize --verify K` end to end on this machine's cores: the best plans of
// the K best placements found and the single-device plan executed, the table printed,
// the fastest written; and the flag's errors.
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
TEST(OptimizeVerifyTest, ExecutesTheTopPlansAndWritesTheFastest) {
  const std::string plan = TempPath("verified_plan.json");
  CliRun r = Graphopt(std::string("optimize ") + kModel + " --cluster local:2 --steps 3 --verify 3 --out " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verify   executing the best plans of the"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured fastest (median of 7 steps; noise floor"), std::string::npos) << r.output;
  // The kept row is marked; the single-device plan is a row unless it was a top plan.
  EXPECT_NE(r.output.find(" * "), std::string::npos) << r.output;
  CliRun e = Graphopt(std::string("execute ") + kModel + " --cluster local:2 --steps 2 --plan " + plan);
  EXPECT_EQ(e.exit_code, 0) << e.output;
  std::remove(plan.c_str());
}

TEST(OptimizeVerifyTest, TheFidelityBenchTakesGosVerifiedPlan) {
  const std::string out = TempPath("fidelity_verify.json");
  const std::string stem = out.substr(0, out.size() - 5);
  CliRun r = Graphopt(std::string("bench --fidelity --force --models '") + kModel +
                      "' --cluster local:2 --steps 2 --warmup 0 --go-time 2 --go-verify 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("its 2 best placements executed and the fastest kept"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("measured fastest (median of 7 steps"), std::string::npos) << r.output;
  for (const std::string& f : {out, stem + ".md", stem + ".svg"}) std::remove(f.c_str());
}

TEST(OptimizeVerifyTest, RefusesOtherClustersZeroShotAndCountsOutOfRange) {
  CliRun r = Graphopt(std::string("optimize ") + kModel + " --cluster 4xV100 --verify 3 --steps 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--verify: --cluster 4xV100: kernels run on this machine's cores"), std::string::npos)
      << r.output;
  r = Graphopt(std::string("optimize ") + kModel + " --cluster local:2 --verify 17 --steps 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--verify: 17 is out of range [1, 16]"), std::string::npos) << r.output;
  r = Graphopt(std::string("optimize ") + kModel + " --cluster local:2 --verify 2 --zero-shot");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("not with --zero-shot"), std::string::npos) << r.output;
}
#endif

}  // namespace
}  // namespace graphopt
