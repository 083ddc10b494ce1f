// Running the graphopt binary from the CLI tests: its exit code and output.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace graphopt::testing {

struct CliRun {
  int exit_code;
  std::string output;  // stdout and stderr
};

inline CliRun RunShell(const std::string& command) {
  const std::string cmd = command + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  CliRun run{-1, ""};
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) run.output.append(buf.data(), n);
  const int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return run;
}

// The binary, with no default pre-trained policy unless `env` gives one.
inline CliRun Graphopt(const std::string& args, const std::string& env = "GRAPHOPT_POLICY=none") {
  return RunShell(env + " " + GRAPHOPT_BINARY + " " + args);
}

inline std::string Data(const std::string& rel) { return std::string(GRAPHOPT_DATA_DIR) + "/" + rel; }

inline std::string TempPath(const std::string& name) { return ::testing::TempDir() + "graphopt_cli_" + name; }

}  // namespace graphopt::testing
