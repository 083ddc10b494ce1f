// Ctrl-C for long commands (optimize, pretrain): while a ScopedInterrupt lives, SIGINT
// sets a flag the work polls between steps (and stops cleanly, saving what it has)
// instead of killing the process; the previous handler comes back when it ends.
#pragma once

#include <atomic>

namespace graphopt {

class ScopedInterrupt {
 public:
  ScopedInterrupt();
  ~ScopedInterrupt();
  ScopedInterrupt(const ScopedInterrupt&) = delete;
  ScopedInterrupt& operator=(const ScopedInterrupt&) = delete;
  // Set once Ctrl-C was pressed.
  const std::atomic<bool>* flag() const;

 private:
  void (*previous_)(int);
};

}  // namespace graphopt
