// The baselines that need no search (single device, TensorFlow's default) and
// RunBaseline, which runs a baseline of the planner registry by name
// (baselines/planner.h) with its stages, and the "fusion" stage when asked: tf-default
// keeps its own fusion (elementwise ops into their producers, as XLA does).
#include "baselines/baseline.h"

#include <algorithm>

#include "baselines/planner.h"
#include "core/strings.h"

namespace graphopt {

std::vector<std::string> BaselineNames() {
  std::vector<std::string> names;
  for (const PlannerInfo* p : PlannerRegistry::Global().Planners()) {
    if (p->kind == PlannerKind::kBaseline && p->standard) names.push_back(p->name);
  }
  return names;
}

StatusOr<Plan> RunBaseline(const std::string& method, const Graph& graph, const Cluster& cluster,
                           const CostModel& cost_model, const BaselineOptions& options) {
  const PlannerRegistry& registry = PlannerRegistry::Global();
  const std::string planner = method.substr(0, method.find('+'));
  const PlannerInfo* info = registry.Find(planner);
  if (info == nullptr || info->kind != PlannerKind::kBaseline) {
    // "plan:" without its FILE: what it lacks, not the list.
    const PlannerInfo* base = registry.Find(planner.substr(0, planner.find(':')));
    if (info == nullptr && base != nullptr && !base->argument.empty()) {
      return registry.Get(planner).status().WithContext("baseline " + method);
    }
    std::vector<std::string> known;
    for (const PlannerInfo* p : registry.Planners()) {
      if (p->kind == PlannerKind::kBaseline) known.push_back(PlannerUsageName(*p));
    }
    return NotFound("baseline " + method + ": unknown baseline \"" + planner + "\" (known: " + Join(known, ", ") + ")");
  }
  GO_ASSIGN_OR_RETURN(Pipeline pipeline, ParsePipeline(method, registry));
  const PlanStage* fusion = registry.FindStage("fusion");
  if (options.fusion && std::find(pipeline.stages.begin(), pipeline.stages.end(), fusion) == pipeline.stages.end()) {
    pipeline.stages.insert(pipeline.stages.begin(), fusion);
  }
  PlannerSettings settings;
  settings.seed = options.seed;
  settings.accelerators_only = options.accelerators_only;
  return PlanWith(pipeline, settings, PlanContext{graph, cluster, cost_model});
}

Plan SingleDevicePlan(const Graph& graph, const Cluster& cluster) {
  return DefaultPlan(graph, cluster.FirstAccelerator());
}

Plan TfDefaultPlan(const Graph& graph, const Cluster& cluster) {
  // Every op kind of ours has a GPU kernel, so "the first accelerator that can run it"
  // is the first accelerator for all of them.
  Plan plan = DefaultPlan(graph, cluster.FirstAccelerator());
  ApplyDefaultFusion(graph, &plan);
  return plan;
}

}  // namespace graphopt
