// Every baseline planned and scored, once for each of its users: the search's starting
// plans and reward reference (rl/learned_search.h), the zero-shot table of `graphopt
// optimize`, and pre-training's references and teachers (rl/pretrain.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "rl/local_search.h"  // PlanScore
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

struct BaselineScore {
  std::string method;  // "expert", or "expert+fusion" for its greedy-fusion variant
  std::string error;   // non-empty: the baseline failed (to plan, or to be scored)
  PlanScore score;
  bool plain = true;   // a plain baseline (not a +fusion variant)
};

struct BaselineScoring {
  // The baselines, in this order (empty: every standard one, BaselineNames()).
  std::vector<std::string> methods;
  // Each baseline's greedy-fusion variant too, right after it (not for a baseline
  // that decides its own fusion: that would be the same plan).
  bool fused = false;
  uint64_t seed = 0;  // BaselineOptions::seed
  // How a plan is scored; null: simulated by the simulator given.
  std::function<StatusOr<SimResult>(const Plan& plan)> score;
};

// Plans and scores the baselines of `options` one after another, in order; each is
// given to `each` (may be null) as soon as it is scored, with its plan (null if the
// baseline failed to plan; then nothing was scored). Returns their scores, in order.
std::vector<BaselineScore> ScoreBaselines(
    const Simulator& simulator, const BaselineScoring& options,
    const std::function<void(const BaselineScore& score, Plan* plan)>& each = nullptr);

// The fastest plain baseline that fits among `scores` (the first of equal ones); null
// if none fits.
const BaselineScore* BestPlainBaseline(const std::vector<BaselineScore>& scores);

}  // namespace graphopt
