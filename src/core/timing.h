// Wall-clock timing on the monotonic clock: the one way the project times a stretch of
// work (a measurement, a row of a suite, a planner's run).
#pragma once

#include <chrono>

namespace graphopt {

using SteadyClock = std::chrono::steady_clock;

// Seconds from `start` to now.
inline double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// Seconds one call of `f` takes.
template <typename F>
double TimeOnce(F&& f) {
  const SteadyClock::time_point start = SteadyClock::now();
  f();
  return SecondsSince(start);
}

}  // namespace graphopt
