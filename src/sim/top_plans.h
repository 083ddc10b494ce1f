// TopPlans: the K best distinct plans a search offered, best first, for a caller that
// checks the simulator's pick by executing several of them (optimize --verify).
//
// Only plans that fit in memory are kept, in PlanScore order (an equal step time keeps
// the plan offered first ahead), and one plan per placement: a plan that places every op
// as a kept plan does replaces it if it is better and is dropped otherwise. So the K
// plans are K different placements, each with the best scheduling and fusion offered
// for it: what execution checks is where the simulator may be wrong the most (a plan
// split over devices that share a machine), not K variants of one plan's fusion.
#pragma once

#include <string>
#include <vector>

#include "sim/plan.h"
#include "sim/plan_score.h"

namespace graphopt {

// The most plans a TopPlans keeps (optimize --verify's bound).
inline constexpr int kMaxTopPlans = 16;

struct RankedPlan {
  Plan plan;
  PlanScore score;
  std::string source;  // what found it (ConvergencePoint::source's words)
};

class TopPlans {
 public:
  // Keeps at most `capacity` plans, clamped to [0, kMaxTopPlans]; 0 keeps none.
  explicit TopPlans(int capacity = 0);

  // Keeps `plan` if it fits, is among the capacity best and is better than the kept
  // plan of its placement, if any (which it replaces); returns whether it was kept
  // (the worst kept plan may leave).
  bool Offer(const Plan& plan, const PlanScore& score, const std::string& source);

  int capacity() const { return capacity_; }
  const std::vector<RankedPlan>& plans() const { return plans_; }

 private:
  int capacity_;
  std::vector<RankedPlan> plans_;
};

}  // namespace graphopt
