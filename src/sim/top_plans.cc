#include "sim/top_plans.h"

#include <algorithm>

namespace graphopt {
TopPlans::TopPlans(int capacity) : capacity_(std::clamp(capacity, 0, kMaxTopPlans)) {}

bool TopPlans::Offer(const Plan& plan, const PlanScore& score, const std::string& source) {
  if (capacity_ == 0 || !score.fits()) return false;
  if (static_cast<int>(plans_.size()) == capacity_ && !score.BetterThan(plans_.back().score)) return false;
  for (auto kept = plans_.begin(); kept != plans_.end(); ++kept) {
    if (kept->plan.device != plan.device) continue;
    if (!score.BetterThan(kept->score)) return false;
    plans_.erase(kept);
    break;
  }
  // After every plan it is not better than: an equal score keeps the earlier ahead.
  auto at = std::find_if(plans_.begin(), plans_.end(), [&](const RankedPlan& kept) { return score.BetterThan(kept.score); });
  plans_.insert(at, RankedPlan{plan, score, source});
  if (static_cast<int>(plans_.size()) > capacity_) plans_.pop_back();
  return true;
}

}  // namespace graphopt
