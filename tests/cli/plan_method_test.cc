// `--method plan:FILE+stages` (baselines/plan_file.cc) from the command line: a plan
// written by `graphopt baseline --out` scores as the baseline with the same stages, in
// `baseline` and in `bench`; a missing file is one clear error naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../testing/scratch_dir.h"
#include "cli_test_util.h"
#include "core/strings.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Graphopt;
using testing::ScratchDir;

constexpr const char* kModel = "rnnlm:layers=2,steps=3 --cluster 2xP100";

// The line of `output` that starts with `prefix`, or "".
std::string LineStarting(const std::string& output, const std::string& prefix) {
  for (const std::string& line : Split(output, '\n')) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

TEST(PlanMethodTest, BaselineScoresAPlanFileWithStages) {
  const ScratchDir scratch("cli_plan_method");
  const std::string plan = scratch.Path("heft.plan.json");
  const CliRun written = Graphopt(std::string("baseline ") + kModel + " --method heft --out " + plan);
  ASSERT_EQ(written.exit_code, 0) << written.output;
  const CliRun direct = Graphopt(std::string("baseline ") + kModel + " --method heft+fusion+cp");
  const CliRun from_file = Graphopt(std::string("baseline ") + kModel + " --method plan:" + plan + "+fusion+cp");
  ASSERT_EQ(direct.exit_code, 0) << direct.output;
  ASSERT_EQ(from_file.exit_code, 0) << from_file.output;
  const std::string step = LineStarting(direct.output, "step time");
  ASSERT_FALSE(step.empty()) << direct.output;
  EXPECT_EQ(LineStarting(from_file.output, "step time"), step) << from_file.output;
  EXPECT_NE(from_file.output.find("method       plan:" + plan + "+fusion+cp"), std::string::npos) << from_file.output;

  const std::string missing = scratch.Path("missing.json");
  const CliRun refused = Graphopt(std::string("baseline ") + kModel + " --method plan:" + missing + "+fusion");
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_NE(refused.output.find(missing + ": cannot open"), std::string::npos) << refused.output;
}

TEST(PlanMethodTest, BenchTakesAPlanFileAsAColumn) {
  const ScratchDir scratch("cli_plan_bench");
  const std::string plan = scratch.Path("heft.json");
  ASSERT_EQ(Graphopt("baseline rnnlm:layers=2 --cluster 2xP100 --method heft --out " + plan).exit_code, 0);
  const CliRun run = Graphopt("bench --rows rnnlm-2 --methods heft+fusion,plan:" + plan + "+fusion --results " +
                              scratch.Path("r.json"));
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("| heft+fusion | plan:" + plan + "+fusion |"), std::string::npos) << run.output;
  // The row: | graph | cluster | heft+fusion | plan:FILE+fusion | ...: the same step time.
  const std::vector<std::string> cells = Split(LineStarting(run.output, "| RNNLM 2-layer"), '|');
  ASSERT_GE(cells.size(), 5u) << run.output;
  EXPECT_EQ(cells[3], cells[4]) << run.output;
}

}  // namespace
}  // namespace graphopt
