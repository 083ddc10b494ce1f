// ProgressBar: one self-overwriting status line on stderr for long work
// (training, benchmark suites). On a terminal it redraws in place at most a few
// times per second; otherwise (CI logs, pipes) it prints a plain line at most every
// few seconds so logs stay short.
#pragma once

#include <chrono>
#include <string>

namespace graphopt {

class ProgressBar {
 public:
  // total <= 0 means an unknown total (no percentage is shown).
  ProgressBar(std::string label, int64_t total);
  ~ProgressBar();
  // Sets the current count and a free-form suffix (e.g. "best 0.213 s").
  void Update(int64_t done, const std::string& suffix = "");
  // Prints the final line and a newline.
  void Finish(const std::string& suffix = "");

 private:
  void Draw(bool force);
  std::string label_;
  int64_t total_;
  int64_t done_ = 0;
  std::string suffix_;
  bool tty_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace graphopt
