// PlanScore: how every part of the optimizer compares two simulated plans.
//
// A plan that fits in memory beats any plan that does not; among fitting plans the
// lower step time wins; among out-of-memory plans the smaller overflow wins (so a
// search that starts from an OOM plan is pulled towards plans that fit). The default
// score is no plan at all, worse than any scored one.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "sim/simulator.h"

namespace graphopt {

struct PlanScore {
  double step_time_us = std::numeric_limits<double>::infinity();
  bool oom = true;
  int64_t overflow_bytes = std::numeric_limits<int64_t>::max();

  static PlanScore Of(const SimResult& result);
  // A valid plan was scored (the default score is worse than any scored plan).
  bool scored() const { return step_time_us < std::numeric_limits<double>::infinity(); }
  bool fits() const { return scored() && !oom; }
  // Strictly better by the order above; step times must improve by `margin` (relative).
  bool BetterThan(const PlanScore& other, double margin = 0) const;
  std::string ToString() const;  // "0.3123 s" or "OOM by 1.2 GB (0.31 s)"
};

}  // namespace graphopt
