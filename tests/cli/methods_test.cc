// `graphopt methods`: the registry as the command line sees it, and docs/options.md as
// the program writes it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../testing/scratch_dir.h"
#include "cli_test_util.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Graphopt;

TEST(MethodsCommandTest, ListsEveryPlannerStageAndPreset) {
  const CliRun run = Graphopt("methods");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  for (const char* name : {"single", "tf-default", "expert", "metis", "scotch", "heft", "random", "go", "colocrl",
                           "hdp", "finetune", "zero-shot", "fusion", "cp", "policy-alone", "go-one", "search-only"}) {
    EXPECT_NE(run.output.find(std::string("  ") + name + " "), std::string::npos) << name << "\n" << run.output;
  }
  EXPECT_NE(run.output.find("(only when named)"), std::string::npos) << run.output;
  EXPECT_NE(Graphopt("methods extra").exit_code, 0);
}

TEST(MethodsCommandTest, TheOptionsDocumentIsTheProgramsOutput) {
  const CliRun run = Graphopt("methods --markdown");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  std::ifstream in(std::string(GRAPHOPT_SOURCE_DIR) + "/docs/options.md");
  ASSERT_TRUE(in.good()) << "docs/options.md is missing";
  std::stringstream doc;
  doc << in.rdbuf();
  EXPECT_EQ(doc.str(), run.output) << "docs/options.md is stale: regenerate it with "
                                      "./build/graphopt methods --markdown > docs/options.md";
  // Every key of every option table is there with its default.
  EXPECT_NE(run.output.find("| `units_per_device` | `4` |"), std::string::npos);
  EXPECT_NE(run.output.find("| `zero_shot_samples` | `128` |"), std::string::npos);
}

TEST(MethodsCommandTest, BenchRunsTheRandomPlannerByName) {
  const testing::ScratchDir scratch("cli_methods_random");
  const std::string results = scratch.Path("r.json");
  const CliRun run = Graphopt("bench --rows rnnlm-2 --methods single,random+fusion --results " + results);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("random+fusion"), std::string::npos) << run.output;
  const CliRun bad = Graphopt("bench --rows rnnlm-2 --methods random+magic --results " + results);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("unknown stage \"magic\""), std::string::npos) << bad.output;
}

TEST(MethodsCommandTest, OptimizeTakesAPreset) {
  const CliRun run = Graphopt("optimize rnnlm:layers=2,steps=2,hidden=64,batch=8,vocab=100 --cluster 2xV100 "
                              "--preset search-only --steps 1 --time-limit 0 --threads 1");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("preset   search-only (train=0)"), std::string::npos) << run.output;
  const CliRun bad = Graphopt("optimize --preset fastest --steps 1");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("unknown preset \"fastest\""), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace graphopt
