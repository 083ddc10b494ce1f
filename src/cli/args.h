// Command-line arguments of one subcommand: positional arguments and --flags
// (--name value, --name=value, or a bare boolean --name), checked against the flags
// the subcommand declares so that a typo is an error, not silently ignored. A value
// that starts with "--" is an error ("--cluster --time-limit 5" does not take
// "--time-limit" as the cluster); give such a value as --name=--value.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "models/load.h"

namespace graphopt {

struct FlagSpec {
  std::string name;  // without dashes
  bool takes_value;
  std::string help;
  // The value as usage lines write it ("--cluster C"); empty: the name in capitals.
  std::string metavar = "";
  // "--name METAVAR", or "--name" for a bare flag.
  std::string Usage() const;
};

class Args {
 public:
  // Parses argv[first..argc). Fails on unknown flags or a missing value; an unknown
  // flag's error points to "PROGRAM COMMAND --help" (a program with no subcommands,
  // such as a benchmark, passes an empty command).
  static StatusOr<Args> Parse(const std::string& command, int argc, char** argv, int first, const std::vector<FlagSpec>& specs,
                              const std::string& program = "graphopt");

  const std::vector<std::string>& positional() const { return positional_; }
  // The process's argv as Parse was given it, for a command that restarts itself
  // (LocalCoresWithThreads); it lives as long as the process.
  char** argv() const { return argv_; }
  bool Has(const std::string& flag) const { return values_.count(flag) > 0; }
  std::string Get(const std::string& flag, const std::string& fallback = "") const;
  StatusOr<int64_t> GetInt(const std::string& flag, int64_t fallback) const;
  // An integer flag that, when given, must lie in [lo, hi] (the fallback is not checked).
  StatusOr<int64_t> GetIntInRange(const std::string& flag, int64_t fallback, int64_t lo, int64_t hi) const;
  // For each of `flags` that is given: its output path is writable (CheckOutputWritable),
  // so that a long run does not end by failing to save its result.
  Status CheckOutputs(const std::vector<std::string>& flags) const;
  StatusOr<double> GetDouble(const std::string& flag, double fallback) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> values_;
  char** argv_ = nullptr;
};

// The bound of --threads: at least 1, at most 4 x the hardware threads (and 256).
int MaxThreads();
// --threads, when given, in [1, MaxThreads()]; `fallback` (0: every core) otherwise.
StatusOr<int> ThreadsFlag(const Args& args, int fallback = 0);

// The --dim flag of every command that reads a model, and the load options it gives.
FlagSpec DimFlag();
StatusOr<LoadOptions> ModelLoadOptions(const Args& args);

// "  --name VALUE   help" lines for a usage message.
std::string FlagsHelp(const std::vector<FlagSpec>& specs);

// The one way a program reports a failure: "error: COMMAND: MESSAGE" on stderr;
// returns the exit code 1. (Args' own errors do not name the command: this does.)
// graphopt's commands return a Status and its dispatcher calls this (cli/command.h).
int CommandError(const std::string& command, const std::string& message);

}  // namespace graphopt
