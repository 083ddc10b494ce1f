// The learned entries of the registry (baselines/planner.h), by kind:
//   learned methods      go, colocrl and hdp search from scratch to their budget
//                        (rl/learned_search.h); zero-shot plans in one pass of a
//                        pre-trained policy (rl/zero_shot.h)
//   presets              go with a preset's options first (SearchPresets: go-one,
//                        policy-alone, search-only); finetune runs a pre-trained policy
//                        alone for a number of steps
//   task configurations  the columns of the multi-task table (rl/task_configurations.h)
// No LibTorch in this header.
//
// Their options (PlannerInfo::configure) are those `graphopt optimize --policy` takes
// (the driver's keys, then the method's own: rl/learned_search.h ParseLearnedSearchOptions),
// parsed over the settings' budget, threads and seed (an option may override them)
// into a LearnedSearchConfig in PlannerSettings::config.
#pragma once

#include <cstdint>
#include <string>

#include "baselines/planner.h"
#include "graph/graph.h"
#include "rl/learned_search.h"

namespace graphopt {

// Adds the entries above to `registry`; a second call adds nothing.
void RegisterLearnedPlanners(PlannerRegistry* registry = &PlannerRegistry::Global());

// The preset that fine-tunes a pre-trained policy (rl/learned_search.h SearchPresets).
inline constexpr const char* kFinetunePreset = "finetune";

// Steps of finetune when the budget sets none.
inline constexpr int64_t kFinetuneDefaultSteps = 50;

// The finetune recipe on a go config (the preset "finetune", rl/learned_search.h
// SearchPresets) for `steps` steps: the policy alone from the pre-trained policy, the
// heads and a learned placement logit per unit (PpoConfig::unit_bias) on the frozen
// pre-trained trunk learn from their own samples for half of them, then imitate the
// best sample (the self warm start), kFinetuneMethodStepOps op decisions a step. No
// time limit.
Status ApplyFinetuneRecipe(int64_t steps, LearnedSearchConfig* config);

// The pre-trained policy of a graph: `pretrained` itself if it is a file, else the
// folder's policy pre-trained without the graph's family (no-<family>.pt).
StatusOr<std::string> PolicyForGraph(const std::string& pretrained, const Graph& graph);

}  // namespace graphopt
