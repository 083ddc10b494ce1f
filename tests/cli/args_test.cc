// Args (cli/args.h), the one command-line parser of graphopt and the benchmarks.
#include "cli/args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace graphopt {
namespace {

const std::vector<FlagSpec> kSpecs = {{"rows", true, "rows"}, {"time-limit", true, "seconds"}, {"verbose", false, "more"}};

StatusOr<Args> ParseWords(std::vector<std::string> words, const std::string& command = "bench",
                          const std::string& program = "graphopt") {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return Args::Parse(command, static_cast<int>(argv.size()), argv.data(), 0, kSpecs, program);
}

TEST(ArgsTest, ValuesInlineSeparateAndBoolean) {
  auto args = ParseWords({"model.onnx", "--rows=gnmt-2,gnmt-4", "--time-limit", "300", "--verbose"});
  ASSERT_TRUE(args.ok()) << args.status().message();
  EXPECT_EQ(args->positional(), std::vector<std::string>{"model.onnx"});
  EXPECT_EQ(args->Get("rows"), "gnmt-2,gnmt-4");
  EXPECT_EQ(*args->GetDouble("time-limit", 60), 300);
  EXPECT_TRUE(args->Has("verbose"));
  EXPECT_EQ(*args->GetDouble("absent", 60), 60);
}

TEST(ArgsTest, UnknownFlagPointsToTheProgramsHelp) {
  auto sub = ParseWords({"--frobnicate", "1"});
  ASSERT_FALSE(sub.ok());
  EXPECT_EQ(sub.status().message(), "unknown flag --frobnicate (see graphopt bench --help)");
  // A program without subcommands (a benchmark) names itself alone.
  auto bench = ParseWords({"--frobnicate", "1"}, "", "rl_bench");
  ASSERT_FALSE(bench.ok());
  EXPECT_EQ(bench.status().message(), "unknown flag --frobnicate (see rl_bench --help)");
}

TEST(ArgsTest, MissingOrMisplacedValuesFail) {
  EXPECT_FALSE(ParseWords({"--rows"}).ok());
  auto taken = ParseWords({"--rows", "--verbose"});
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(taken.status().message().find("got the flag --verbose"), std::string::npos);
  EXPECT_FALSE(ParseWords({"--verbose=1"}).ok());
  auto bad_number = ParseWords({"--time-limit", "soon"});
  ASSERT_TRUE(bad_number.ok());
  EXPECT_FALSE(bad_number->GetDouble("time-limit", 60).ok());
}

}  // namespace
}  // namespace graphopt
