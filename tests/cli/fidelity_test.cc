// `graphopt bench --fidelity` and `graphopt optimize --reward measured` end to end, on
// this machine's cores (small graphs, few steps: the figures are the bench's to
// report; these check that every plan is run, simulated and written).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "cli_test_util.h"
#include "core/files.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Graphopt;
using testing::TempPath;

const char* kModel = "rnnlm:layers=1,batch=2,steps=3,hidden=16,vocab=40";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

#ifdef GRAPHOPT_HAVE_EXEC
TEST(FidelityBenchTest, RunsElevenPlansAndWritesTheReports) {
  const std::string out = TempPath("fidelity.json");
  const std::string stem = out.substr(0, out.size() - 5);
  CliRun r = Graphopt(std::string("bench --fidelity --force --models '") + kModel +
                      "' --cluster local:2 --steps 2 --warmup 0 --go-time 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Figures per cost model"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Noise floor"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("GO's plan measured fastest on"), std::string::npos) << r.output;
  auto json_text = ReadFile(out);
  ASSERT_TRUE(json_text.ok()) << json_text.status().message();
  const std::string& json = *json_text;
  EXPECT_NE(json.find("\"graphopt-fidelity\""), std::string::npos);
  // Six baselines, three fused, random and GO's: each executed twice per round.
  EXPECT_EQ(Count(json, "\"measured_us\""), 11u) << json;
  EXPECT_EQ(Count(json, "\"simulated_in-step_us\""), 11u);
  EXPECT_NE(json.find("\"plan\": \"go\""), std::string::npos);
  auto md_text = ReadFile(stem + ".md");
  ASSERT_TRUE(md_text.ok()) << md_text.status().message();
  const std::string& md = *md_text;
  EXPECT_NE(md.find("| heft+fusion |"), std::string::npos) << md;
  auto svg_text = ReadFile(stem + ".svg");
  ASSERT_TRUE(svg_text.ok()) << svg_text.status().message();
  const std::string& svg = *svg_text;
  EXPECT_EQ(Count(svg, "<circle"), 3 * 11u + 1);  // three panels and one legend dot
  for (const std::string& f : {out, stem + ".md", stem + ".svg"}) std::remove(f.c_str());
}

TEST(FidelityBenchTest, RefusesBadFlags) {
  CliRun r = Graphopt("bench --fidelity --force --plan-profile guess");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("in-step, isolation or roofline"), std::string::npos) << r.output;
  r = Graphopt("bench --fidelity --force --out results.txt");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("a .json file"), std::string::npos) << r.output;
  r = Graphopt("bench --fidelity --force --cluster 4xV100");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("local or local:N"), std::string::npos) << r.output;
}

TEST(OptimizeMeasuredRewardTest, ColocRlScoresItsSamplesByRunningThem) {
  const std::string plan = TempPath("measured_plan.json");
  CliRun r = Graphopt(std::string("optimize ") + kModel +
                      " --cluster local:2 --method colocrl --reward measured --steps 2 --time-limit 60 --out " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("reward   measured"), std::string::npos) << r.output;
  CliRun e = Graphopt(std::string("execute ") + kModel + " --cluster local:2 --steps 2 --plan " + plan);
  EXPECT_EQ(e.exit_code, 0) << e.output;
  std::remove(plan.c_str());
}

TEST(OptimizeMeasuredRewardTest, RefusesOtherClustersAndRewards) {
  CliRun r = Graphopt(std::string("optimize ") + kModel + " --cluster 4xV100 --reward measured --steps 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("local or local:N"), std::string::npos) << r.output;
  r = Graphopt(std::string("optimize ") + kModel + " --cluster local:2 --reward guessed --steps 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--reward: \"guessed\" is not one of simulated, measured"), std::string::npos) << r.output;
}
#endif

}  // namespace
}  // namespace graphopt
