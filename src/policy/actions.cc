#include "policy/actions.h"

namespace graphopt {

Actions DefaultActions(const PolicyInput& input) {
  Actions a;
  a.unit_device.assign(static_cast<size_t>(input.num_units), input.default_device);
  a.priority_level.assign(static_cast<size_t>(input.num_ops), 0);
  a.fuse.assign(static_cast<size_t>(input.num_ops), 0);
  return a;
}

Plan ToPlan(const Graph& graph, const Cluster& cluster, const PolicyInput& input, const Actions& actions,
            const PlanLegalizer* legalizer) {
  GO_CHECK_MSG(graph.num_ops() == input.num_ops, "policy input built from another graph");
  const size_t n = static_cast<size_t>(graph.num_ops());
  Plan plan;
  plan.device.assign(n, input.default_device);
  if (!actions.unit_device.empty()) {
    GO_CHECK(actions.unit_device.size() == static_cast<size_t>(input.num_units));
    for (size_t i = 0; i < n; ++i) {
      const OpId op = input.order[i];
      plan.device[static_cast<size_t>(op)] = actions.unit_device[static_cast<size_t>(input.node_unit[i])];
    }
  }
  plan.priority.assign(n, 0.0);
  if (!actions.priority_level.empty()) {
    GO_CHECK(actions.priority_level.size() == n);
    for (size_t i = 0; i < n; ++i) plan.priority[i] = static_cast<double>(actions.priority_level[i]);
  }
  plan.fuse_with_producer.assign(n, 0);
  if (!actions.fuse.empty()) {
    GO_CHECK(actions.fuse.size() == n);
    for (size_t i = 0; i < n; ++i) plan.fuse_with_producer[i] = actions.fuse[i] ? 1 : 0;
  }
  if (legalizer != nullptr) {
    GO_CHECK_MSG(&legalizer->graph() == &graph, "PlanLegalizer built for another graph");
    legalizer->MakeValid(cluster, &plan);
  } else {
    MakePlanValid(graph, cluster, &plan);
  }
  return plan;
}

}  // namespace graphopt
