#include "rl/task_defaults.h"

#include <algorithm>

#include "baselines/baseline.h"

namespace graphopt {

StatusOr<TaskDefaults> TaskDefaults::Create(uint32_t tasks, const std::string& fixed_placement, const Graph& graph,
                                            const Cluster& cluster, const CostModel& cost_model) {
  if (tasks == 0 || (tasks & ~static_cast<uint32_t>(kAllTasks)) != 0) {
    return InvalidArgument("tasks must be a non-empty subset of placement+scheduling+fusion");
  }
  TaskDefaults d;
  d.tasks_ = tasks;
  if (!(tasks & kTaskFusion)) d.default_fusion_ = std::make_shared<const GreedyFusion>(GreedyFusion::Default(graph));
  if (tasks & kTaskPlacement) {
    if (!fixed_placement.empty()) {
      return InvalidArgument("a fixed placement (" + fixed_placement + ") needs placement left out of the tasks");
    }
    return d;
  }
  d.fixed_name_ = fixed_placement.empty() ? "tf-default" : fixed_placement;
  StatusOr<Plan> fixed = RunBaseline(d.fixed_name_, graph, cluster, cost_model);
  if (!fixed.ok()) return fixed.status().WithContext("the fixed placement");
  d.fixed_device_ = std::move(fixed->device);
  return d;
}

std::string TaskDefaults::ToString() const {
  std::string s = TasksToString(tasks_);
  if (!fixed_name_.empty()) s += "; placement of " + fixed_name_;
  return s;
}

void TaskDefaults::Apply(const Graph& graph, Plan* plan, const PlanLegalizer* legalizer) const {
  if (all()) return;
  if (!decides(kTaskPlacement)) plan->device = fixed_device_;
  if (!decides(kTaskFusion)) {
    if (default_fusion_ != nullptr && &default_fusion_->graph() == &graph) {
      default_fusion_->Apply(plan);
    } else {
      ApplyDefaultFusion(graph, plan);
    }
  } else if (!decides(kTaskPlacement)) {  // the decided fusion, on the fixed devices
    if (legalizer != nullptr) {
      legalizer->DropIllegalFusions(plan);
    } else {
      DropIllegalFusions(graph, plan);
    }
  }
  if (!decides(kTaskScheduling)) std::fill(plan->priority.begin(), plan->priority.end(), 0.0);
}

}  // namespace graphopt
