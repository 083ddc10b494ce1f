// Flags bound to a config's fields (cli/flag_table.h).
#include "cli/flag_table.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace graphopt {
namespace {

struct RunConfig {
  int64_t steps = 0;
  double time_limit = 120;
  bool verbose = false;
  std::string checkpoint;
};

const OptionTable<RunConfig> kRunFlags{
    {"steps", &RunConfig::steps, "stop after this many steps", AtLeast(0)},
    {"time-limit", &RunConfig::time_limit, "stop after this many seconds", AtLeast(0)},
    {"verbose", &RunConfig::verbose, "say more"},
    {"checkpoint", &RunConfig::checkpoint, "checkpoint folder"},
};

StatusOr<Args> ParseWords(std::vector<std::string> words) {
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  return Args::Parse("run", static_cast<int>(argv.size()), argv.data(), 0, BoundFlags(kRunFlags));
}

TEST(FlagTableTest, TheHelpTakesItsDefaultsAndRangesFromTheTable) {
  RunConfig defaults;
  defaults.time_limit = 30;
  const std::vector<FlagSpec> flags = BoundFlags(kRunFlags, defaults);
  ASSERT_EQ(flags.size(), 4u);
  EXPECT_EQ(flags[0].name, "steps");
  EXPECT_TRUE(flags[0].takes_value);
  EXPECT_EQ(flags[0].help, "stop after this many steps (default 0; integer >= 0)");
  EXPECT_EQ(flags[1].help, "stop after this many seconds (default 30; number >= 0)");
  EXPECT_EQ(flags[2].name, "verbose");
  EXPECT_FALSE(flags[2].takes_value);  // a bool is a bare flag
  EXPECT_EQ(flags[2].help, "say more");
  EXPECT_EQ(flags[3].help, "checkpoint folder");  // no default to show
  defaults.checkpoint = "ckpt";
  EXPECT_EQ(BoundFlags(kRunFlags, defaults)[3].help, "checkpoint folder (default ckpt)");
}

TEST(FlagTableTest, GivenFlagsSetTheirFieldsAndTheOthersKeepTheirValues) {
  auto args = ParseWords({"--steps", "7", "--verbose", "--checkpoint=out"});
  ASSERT_TRUE(args.ok()) << args.status().message();
  RunConfig c;
  c.time_limit = 45;
  ASSERT_TRUE(ApplyBoundFlags(*args, kRunFlags, &c).ok());
  EXPECT_EQ(c.steps, 7);
  EXPECT_EQ(c.time_limit, 45);
  EXPECT_TRUE(c.verbose);
  EXPECT_EQ(c.checkpoint, "out");
}

TEST(FlagTableTest, BadValuesNameTheFlag) {
  RunConfig c;
  auto negative = ParseWords({"--time-limit", "-1"});
  ASSERT_TRUE(negative.ok());
  EXPECT_EQ(ApplyBoundFlags(*negative, kRunFlags, &c).message(), "--time-limit: -1 is out of range [0, inf)");
  auto word = ParseWords({"--steps", "many"});
  ASSERT_TRUE(word.ok());
  EXPECT_EQ(ApplyBoundFlags(*word, kRunFlags, &c).message(), "--steps: expected an integer, got 'many'");
  EXPECT_EQ(c.steps, 0);
  EXPECT_FALSE(ParseWords({"--verbos"}).ok());  // a typo is an unknown flag
}

}  // namespace
}  // namespace graphopt
