#include "rl/task_configurations.h"

#include <algorithm>
#include <cmath>

#include "baselines/baseline.h"
#include "core/strings.h"
#include "policy/go_policy_config.h"
#include "rl/task_defaults.h"

namespace graphopt {
namespace {

// A GO search deciding `tasks` with a 1/parts share of the budget.
StatusOr<Plan> Learn(const Simulator& sim, const LearnedSearchConfig& base, uint32_t tasks, int parts,
                     const std::string& fixed_placement = "") {
  LearnedSearchConfig c = base;
  if (!c.policy) c.policy.emplace();
  c.policy->tasks = tasks;
  c.fixed_placement = fixed_placement;
  if (c.budget.max_steps > 0) c.budget.max_steps = std::max<int64_t>(1, c.budget.max_steps / parts);
  if (c.budget.time_limit_s > 0) c.budget.time_limit_s /= parts;
  GO_ASSIGN_OR_RETURN(auto search, LearnedSearch::Create(sim, c));
  GO_ASSIGN_OR_RETURN(LearnedSearchResult r, search->Run());
  return r.plan;
}

// The decisions of separately trained policies on one plan: the first decides
// placement, then as listed; what none decided takes its default.
StatusOr<Plan> Combined(const Simulator& sim, const LearnedSearchConfig& base, const std::vector<uint32_t>& tasks) {
  const int parts = static_cast<int>(tasks.size());
  Plan plan = DefaultPlan(sim.graph());
  uint32_t decided = 0;
  for (uint32_t t : tasks) {
    GO_ASSIGN_OR_RETURN(const Plan learned, Learn(sim, base, t, parts));
    if (t == kTaskPlacement) plan.device = learned.device;
    if (t == kTaskScheduling) plan.priority = learned.priority;
    if (t == kTaskFusion) plan.fuse_with_producer = learned.fuse_with_producer;
    decided |= t;
  }
  MakePlanValid(sim.graph(), sim.cluster(), &plan);
  GO_ASSIGN_OR_RETURN(const TaskDefaults defaults,
                      TaskDefaults::Create(decided, "", sim.graph(), sim.cluster(), sim.cost_model()));
  defaults.Apply(sim.graph(), &plan);
  return plan;
}

}  // namespace

const std::vector<TaskConfiguration>& TaskConfigurations() {
  using Base = const LearnedSearchConfig&;
  constexpr bool kLearned = true, kDefaults = false;  // TaskConfiguration::learned
  constexpr bool kOnePolicyForAll = true;             // TaskConfiguration::all_tasks
  static const std::vector<TaskConfiguration> kConfigurations = {
      {"tf-default", "TF default placement, ready order, TF default fusion (the baseline tf-default)", kDefaults,
       [](const Simulator& sim, Base) { return RunBaseline("tf-default", sim.graph(), sim.cluster(), sim.cost_model()); }},
      {"hp-only", "the human expert's placement, ready order, TF default fusion", kDefaults,
       [](const Simulator& sim, Base) -> StatusOr<Plan> {
         GO_ASSIGN_OR_RETURN(Plan plan, RunBaseline("expert", sim.graph(), sim.cluster(), sim.cost_model()));
         ApplyDefaultFusion(sim.graph(), &plan);
         return plan;
       }},
      {"pl-only", "GO placement; scheduling and fusion default", kLearned,
       [](const Simulator& sim, Base base) { return Learn(sim, base, kTaskPlacement, 1); }},
      {"pl|sch", "GO placement and GO scheduling, each trained alone, combined; fusion default", kLearned,
       [](const Simulator& sim, Base base) { return Combined(sim, base, {kTaskPlacement, kTaskScheduling}); }},
      {"pl+sch", "GO placement and scheduling in one policy; fusion default", kLearned,
       [](const Simulator& sim, Base base) { return Learn(sim, base, kTaskPlacement | kTaskScheduling, 1); }},
      {"sch+fu", "the expert's placement; GO scheduling and fusion in one policy", kLearned,
       [](const Simulator& sim, Base base) { return Learn(sim, base, kTaskScheduling | kTaskFusion, 1, "expert"); }},
      {"pl|sch|fu", "three GO policies, each trained alone, their decisions combined", kLearned,
       [](const Simulator& sim, Base base) {
         return Combined(sim, base, {kTaskPlacement, kTaskScheduling, kTaskFusion});
       }},
      {"pl+sch+fu", "GO: placement, scheduling and fusion in one policy and one pass", kLearned,
       [](const Simulator& sim, Base base) { return Learn(sim, base, kAllTasks, 1); }, kOnePolicyForAll},
  };
  return kConfigurations;
}

StatusOr<const TaskConfiguration*> FindTaskConfiguration(const std::string& name) {
  std::vector<std::string> known;
  for (const TaskConfiguration& c : TaskConfigurations()) {
    if (c.name == name) return &c;
    known.push_back(c.name);
  }
  return NotFound("unknown task configuration \"" + name + "\" (known: " + Join(known, ", ") + ")");
}

StatusOr<Plan> PlanTaskConfiguration(const std::string& name, const Simulator& sim, const LearnedSearchConfig& base) {
  if (base.policy && base.policy->tasks != kAllTasks) {
    return InvalidArgument("the task configurations set the tasks themselves: the options must not (tasks=" +
                           TasksToString(base.policy->tasks) + ")");
  }
  GO_ASSIGN_OR_RETURN(const TaskConfiguration* configuration, FindTaskConfiguration(name));
  return configuration->plan(sim, base);
}

}  // namespace graphopt
