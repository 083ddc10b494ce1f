// The baselines that need no search (single device, TensorFlow's default) and the
// dispatch of every baseline by name.
//
// RunBaseline applies greedy fusion (ApplyGreedyFusion) to the placement when asked,
// except to tf-default, whose definition already includes its fusion (elementwise ops
// into their producers, as XLA does); it checks every plan with ValidatePlan before
// returning it.
#include "baselines/baseline.h"
#include "core/strings.h"

namespace graphopt {

const std::vector<std::string>& BaselineNames() {
  static const std::vector<std::string> kNames = {"single", "tf-default", "expert", "metis", "scotch", "heft"};
  return kNames;
}

StatusOr<Plan> RunBaseline(const std::string& method, const Graph& graph, const Cluster& cluster,
                           const CostModel& cost_model, const BaselineOptions& options) {
  auto run = [&]() -> StatusOr<Plan> {
    if (method == "single") return SingleDevicePlan(graph, cluster);
    if (method == "tf-default") return TfDefaultPlan(graph, cluster);
    if (method == "expert") return ExpertPlan(graph, cluster, cost_model);
    if (method == "metis") return MetisPlan(graph, cluster, cost_model, options);
    if (method == "scotch") return ScotchPlan(graph, cluster, cost_model, options);
    if (method == "heft") return HeftPlan(graph, cluster, cost_model);
    return NotFound("unknown baseline \"" + method + "\" (known: " + Join(BaselineNames(), ", ") + ")");
  };
  StatusOr<Plan> plan = run();
  if (!plan.ok()) return plan.status().WithContext("baseline " + method);
  if (options.fusion && method != "tf-default") ApplyGreedyFusion(graph, &plan.value());
  const Status valid = ValidatePlan(graph, cluster, *plan);
  if (!valid.ok()) return InternalError("baseline " + method + " produced an invalid plan: " + valid.message());
  return plan;
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
