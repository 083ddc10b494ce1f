// The tasks an optimizer decides, and what the others get (the GO paper's multi-task
// table): a task it does not decide takes TensorFlow's default, or a fixed placement.
//
//   placement   not decided: every op where a fixed plan puts it (tf-default's by
//               default: all on the first GPU; `graphopt optimize --fixed-placement
//               expert` for the paper's sch+fu row)
//   scheduling  not decided: priority 0 everywhere, i.e. ready order
//   fusion      not decided: TensorFlow's default fusion on the plan's devices
//               (greedy fusion of elementwise ops, baselines/baseline.h)
//
// Every plan the optimizer scores goes through Apply (the plans its policy samples,
// the baselines it starts from, its local search's moves), so a task it does not
// decide is never optimized by the back door. With every task decided, Apply is the
// identity.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "baselines/fusion.h"
#include "core/status.h"
#include "graph/graph.h"
#include "policy/go_policy_config.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"
#include "sim/plan_legalizer.h"

namespace graphopt {

class TaskDefaults {
 public:
  // Every task decided.
  TaskDefaults() = default;
  // `fixed_placement` names the baseline whose placement is used when placement is
  // not decided ("" is tf-default); it is an error when placement is decided. When
  // fusion is not decided, `graph` must outlive the defaults (their fusion reads it).
  static StatusOr<TaskDefaults> Create(uint32_t tasks, const std::string& fixed_placement, const Graph& graph,
                                       const Cluster& cluster, const CostModel& cost_model);

  uint32_t tasks() const { return tasks_; }
  bool decides(PolicyTask task) const { return (tasks_ & task) != 0; }
  bool all() const { return tasks_ == kAllTasks; }
  const std::string& fixed_placement() const { return fixed_name_; }
  // "placement+scheduling+fusion", with "; placement of expert" when it is fixed.
  std::string ToString() const;

  // Puts the defaults into the tasks not decided (placement, then fusion on the
  // resulting devices, then priorities). The plan must be complete and valid; it
  // stays valid. `legalizer`, if given, must be built for `graph` (faster); the
  // default fusion is built once by Create for Create's graph.
  void Apply(const Graph& graph, Plan* plan, const PlanLegalizer* legalizer = nullptr) const;

 private:
  uint32_t tasks_ = kAllTasks;
  std::string fixed_name_;
  std::vector<DeviceId> fixed_device_;
  std::shared_ptr<const GreedyFusion> default_fusion_;  // fusion not decided: Create's graph's
};

}  // namespace graphopt
