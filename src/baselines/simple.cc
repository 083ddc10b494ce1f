// The baselines that need no search (single device, TensorFlow's default) and
// RunBaseline, which runs a baseline of the planner registry by name
// (baselines/planner.h) with the "fusion" stage when asked: tf-default keeps its own
// fusion (elementwise ops into their producers, as XLA does).
#include "baselines/baseline.h"
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
  const PlannerInfo* info = registry.Find(method);
  if (info == nullptr || info->kind != PlannerKind::kBaseline) {
    std::vector<std::string> known;
    for (const PlannerInfo* p : registry.Planners()) {
      if (p->kind == PlannerKind::kBaseline) known.push_back(p->name);
    }
    return NotFound("baseline " + method + ": unknown baseline \"" + method + "\" (known: " + Join(known, ", ") + ")");
  }
  Pipeline pipeline;
  pipeline.name = method;
  pipeline.planner = info;
  if (options.fusion) pipeline.stages.push_back(registry.FindStage("fusion"));
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
