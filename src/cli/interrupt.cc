#include "cli/interrupt.h"

#include <csignal>

namespace graphopt {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnInterrupt(int) { g_interrupted.store(true); }

}  // namespace

ScopedInterrupt::ScopedInterrupt() {
  g_interrupted.store(false);
  previous_ = std::signal(SIGINT, OnInterrupt);
}

ScopedInterrupt::~ScopedInterrupt() { std::signal(SIGINT, previous_); }

const std::atomic<bool>* ScopedInterrupt::flag() const { return &g_interrupted; }

}  // namespace graphopt
