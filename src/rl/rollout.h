// The bridge between the policy's actions and plans, for training (no LibTorch here).
//
// ActionsToPlan is the plan a trainer simulates for a set of sampled actions: the
// policy's plan (policy/actions.h ToPlan) with, if asked, the scheduling decision
// refined by critical-path priorities: the policy's priority level stays the primary
// key and the critical-path length (the longest path to a sink with the op times on
// the sampled devices and the transfers between them) breaks the ties, so a policy
// that has learnt nothing about scheduling yet (all ops on one level) schedules
// critical-path-first, and every level it raises is a deliberate override.
//
// PlanToActions is the inverse for placement and fusion (a unit goes where its first
// op is, fusion flags are copied) with every op on one priority level: the target of
// the warm start (imitating the best baseline) and the form in which a plan found
// elsewhere (a baseline, the local search) joins a training batch.
#pragma once

#include <vector>

#include "baselines/baseline.h"
#include "graph/graph.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "rl/task_defaults.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"
#include "sim/plan_legalizer.h"

namespace graphopt {

// Scale of a priority level when critical-path priorities break ties: larger than any
// critical-path length in us (1e12 us is 11.6 days).
inline constexpr double kPriorityLevelScale = 1e12;

Plan ActionsToPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, const PolicyInput& input,
                   const Actions& actions, bool critical_path_priorities);

// ActionsToPlan for the many action sets a trainer samples from one graph, cluster
// and input: the critical-path scheduler (topological order, edges, kernel times) is
// built once instead of per plan. Everything passed in must outlive the builder.
// Build is const and thread-safe and gives exactly ActionsToPlan's plan; BuildAll
// spreads a batch over `threads` threads (the plans in the batch's order).
class PlanBuilder {
 public:
  PlanBuilder(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, const PolicyInput& input,
              bool critical_path_priorities);
  // From now on every plan gets the defaults of the tasks `defaults` does not decide
  // (rl/task_defaults.h; null: every task decided). It must outlive the builder.
  void set_task_defaults(const TaskDefaults* defaults) { defaults_ = defaults; }
  Plan Build(const Actions& actions) const;
  std::vector<Plan> BuildAll(const std::vector<Actions>& actions, int threads) const;

 private:
  const Graph& graph_;
  const Cluster& cluster_;
  const PolicyInput& input_;
  bool critical_path_priorities_;
  CriticalPathScheduler scheduler_;
  PlanLegalizer legalizer_;
  const TaskDefaults* defaults_ = nullptr;
};


// `level` is the priority level every op gets (clamped to [0, levels - 1]).
Actions PlanToActions(const PolicyInput& input, const Plan& plan, int level = 0);

}  // namespace graphopt
