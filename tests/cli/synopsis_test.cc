// The command synopsis is generated from the command table (cli/command.h): the README
// carries `graphopt --help`'s command list and docs/usage.md `graphopt help --synopsis`,
// each between marker lines, as the program prints them.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cli_test_util.h"

namespace graphopt {
namespace {

using testing::CliRun;
using testing::Graphopt;

std::string ReadSource(const std::string& rel) {
  std::ifstream in(std::string(GRAPHOPT_SOURCE_DIR) + "/" + rel);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of `doc` between "<!-- BEGIN name -->" + a fence line and the closing fence.
std::string Block(const std::string& doc, const std::string& name) {
  const std::string begin = "<!-- BEGIN " + name + " -->\n```\n";
  const size_t from = doc.find(begin);
  if (from == std::string::npos) return "(no block " + name + ")";
  const size_t start = from + begin.size();
  const size_t end = doc.find("```\n<!-- END " + name + " -->", start);
  if (end == std::string::npos) return "(block " + name + " not closed)";
  return doc.substr(start, end - start);
}

// The part of `graphopt --help` after "commands:\n" up to the blank line.
std::string CommandsSection(const std::string& help) {
  const size_t from = help.find("commands:\n");
  if (from == std::string::npos) return "(no commands section)";
  const size_t start = from + std::string("commands:\n").size();
  return help.substr(start, help.find("\n\n", start) + 1 - start);
}

TEST(SynopsisTest, TheReadmeListsTheCommandsAsHelpDoes) {
  const CliRun help = Graphopt("--help");
  ASSERT_EQ(help.exit_code, 0) << help.output;
  const std::string list = CommandsSection(help.output);
  for (const char* command : {"models", "inspect", "simulate", "optimize", "pretrain", "bench --fidelity", "export"}) {
    EXPECT_NE(list.find(std::string("  ") + command + " "), std::string::npos) << command << "\n" << list;
  }
  EXPECT_EQ(Block(ReadSource("README.md"), "commands"), list)
      << "README.md's command list is stale: it is the 'commands:' section of ./build/graphopt --help (scripts/update_synopsis.py)";
}

TEST(SynopsisTest, TheUsageDocumentHoldsTheProgramsSynopsis) {
  const CliRun synopsis = Graphopt("help --synopsis");
  ASSERT_EQ(synopsis.exit_code, 0) << synopsis.output;
  // Every flag of a command is in its synopsis: a few of each kind.
  for (const char* flag : {"[--cluster C]", "[--time-limit S]", "[--preset PRESET]", "[--fidelity]"}) {
    EXPECT_NE(synopsis.output.find(flag), std::string::npos) << flag << "\n" << synopsis.output;
  }
  EXPECT_EQ(Block(ReadSource("docs/usage.md"), "synopsis"), synopsis.output)
      << "docs/usage.md's synopsis is stale: regenerate it with scripts/update_synopsis.py";
}

TEST(SynopsisTest, EveryCommandsHelpStartsWithItsSynopsisLine) {
  const CliRun synopsis = Graphopt("help --synopsis");
  ASSERT_EQ(synopsis.exit_code, 0);
  for (const char* command : {"simulate", "baseline", "optimize", "bench"}) {
    const CliRun help = Graphopt(std::string(command) + " --help");
    ASSERT_EQ(help.exit_code, 0) << command << "\n" << help.output;
    const std::string first = help.output.substr(0, help.output.find('\n'));
    ASSERT_EQ(first.rfind("usage: graphopt ", 0), 0u) << first;
    EXPECT_NE(synopsis.output.find(first.substr(std::string("usage: ").size())), std::string::npos) << first;
  }
}

}  // namespace
}  // namespace graphopt
