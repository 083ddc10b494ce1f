// The eight configurations of the GO paper's multi-task table: which of placement,
// scheduling and fusion are learned, jointly or each by a policy of its own, and which
// keep a default (rl/task_defaults.h):
//
//   tf-default   TF default placement, ready order, TF default fusion (a baseline)
//   hp-only      the human expert's placement, ready order, TF default fusion
//   pl-only      GO placement; scheduling and fusion default
//   pl|sch       GO placement and GO scheduling, each trained alone (the other task at
//                its default), the two decisions combined; fusion default
//   pl+sch       GO placement and scheduling, one policy; fusion default
//   sch+fu       the expert's placement; GO scheduling and fusion, one policy
//   pl|sch|fu    three policies, each trained alone, the decisions combined
//   pl+sch+fu    GO, all three in one policy and one pass
//
// A learned configuration gets one budget (steps or seconds): a configuration of k
// separately trained policies splits it into k equal parts, so every learned column of
// the table had the same budget. Combining decisions trained apart: the placement of
// the placement policy, the priorities of the scheduling policy, the fusion flags of
// the fusion policy; flags that cross devices or close a cycle on the combined
// placement are dropped (sim/plan.h MakePlanValid), the tasks no policy decided take
// their defaults.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "rl/learned_search.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

// Each is also an entry of the planner registry (kind "task configuration", rl/planners.h),
// but tf-default, which is the baseline of that name.
struct TaskConfiguration {
  std::string name;     // "pl+sch+fu"
  std::string summary;  // one line
  // Trained with the budget of a learned column; false: a baseline's plan with defaults.
  bool learned = true;
  std::function<StatusOr<Plan>(const Simulator& simulator, const LearnedSearchConfig& base)> plan;
  // All three tasks in one policy: the table's summary says what its schedule and
  // fusion are worth against the defaults on its placement (eval/task_effects.h).
  bool all_tasks = false;
};

// The eight, in the paper's order (the column order of eval/results.h
// TaskConfigurationNames).
const std::vector<TaskConfiguration>& TaskConfigurations();
// NotFound listing the names if unknown.
StatusOr<const TaskConfiguration*> FindTaskConfiguration(const std::string& name);

// The plan of configuration `name` for the simulator's graph and cluster. `base` is
// the GO search of every learned part (its options: everything on, or the policy
// alone), with the budget of the whole configuration; its policy options must not set
// tasks. Fails on an unknown name (listing the names) or a search that fails.
StatusOr<Plan> PlanTaskConfiguration(const std::string& name, const Simulator& simulator,
                                     const LearnedSearchConfig& base);

}  // namespace graphopt
