// The sample polish of the GO search (SearchIngredients::polish_samples): the local
// search run on plans the policy sampled, one slice of evaluations per step, a descent
// going on across steps until it converges. While the policy explores, it starts from
// the best plan the policy has sampled and restarts whenever that changes; while the
// policy imitates, it starts from the best sample of the last batch and takes a new
// one when it has converged or a sample beats the plan under descent: the policy's
// samples are the perturbations of an iterated local search, whose descents may end
// in basins the polish of the best plan does not reach.
//
// No LibTorch here: the search (rl/learned_search_phases.cc) hands it the policy's plans.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/rng.h"
#include "core/status.h"
#include "rl/checkpoint.h"
#include "rl/local_search.h"
#include "rl/task_defaults.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

class SamplePolish {
 public:
  // `simulator` and `batch` must outlive it; `defaults` (may be null) as
  // LocalSearch::set_task_defaults.
  SamplePolish(const Simulator& simulator, BatchSimulator* batch, const LocalSearchConfig& config,
                const TaskDefaults* defaults);

  // One slice of the descent. `sampled` is the policy's plan (exploring: the best it
  // has sampled; imitating: the best of the last batch) with its score; it becomes
  // the plan under descent if the rule above says so. Returns the slice's statistics,
  // or nothing if the descent has converged (no plan simulated).
  std::optional<LocalSearchStats> Step(const Plan& sampled, const PlanScore& score, bool exploring, Rng& rng,
                                       int64_t evaluations, const std::function<bool()>& stop);
  // The next Step starts a descent from the sample it is given.
  void Forget() { seen_ = PlanScore(); }

  // The plan under descent and its score.
  const Plan& plan() const { return plan_; }
  const PlanScore& score() const { return score_; }
  // A descent has started (and not been forgotten): the checkpoint has a part for it.
  bool started() const { return seen_.scored(); }

  // Checkpoints: the descent's part of the search's state ({"score", "seen", "scale",
  // "failed_scales"}) and its plan, in `dir`/descent_plan.json.
  StatusOr<nlohmann::json> Save(const CheckpointStore& store) const;
  // Restores a saved part, `where` naming it in errors: the plan re-simulated, every
  // field checked before anything changes.
  Status Load(const nlohmann::json& saved, const CheckpointStore& store, const std::string& where);

 private:
  const Simulator& sim_;
  LocalSearch search_;
  Plan plan_;
  PlanScore score_;
  PlanScore seen_;  // the policy's plan the descent started from
};

}  // namespace graphopt
