// `graphopt optimize --verify K --cluster local[:N]`: after the search, the best plans
// of its K best placements (LearnedSearchResult::top_plans), the baselines' plans of
// other placements (baseline_plans) and the single-device plan are executed on this machine's cores
// (exec/verify_plans.h), a table of what each was simulated and measured at is printed, and the plan that ran fastest
// is the one the command writes. The Python module's optimize(verify=K) does the same.
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "exec/verify_plans.h"
#include "sim/plan.h"
#include "sim/simulator.h"
#include "sim/top_plans.h"

namespace graphopt {

// Executes the candidates of `top` and `baselines` (TopPlanCandidates) on `core_sets` in the rounds of VerifyOptions'
// defaults (exec/verify_plans.h; progress on stderr), prints the
// table and the line that says which plan is kept and why, and returns what was
// measured (VerifyResult::plan the plan kept, plans[best].name its candidate's name).
// Fails when no plan could be executed or on `stop`.
StatusOr<VerifyResult> VerifyFoundPlans(const Simulator& sim, const std::vector<std::vector<int>>& core_sets,
                                        const std::vector<RankedPlan>& top, const std::vector<RankedPlan>& baselines,
                                        uint64_t seed, const std::atomic<bool>* stop);

}  // namespace graphopt
