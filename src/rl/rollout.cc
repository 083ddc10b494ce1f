#include "rl/rollout.h"

#include "baselines/baseline.h"

namespace graphopt {

Plan ActionsToPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, const PolicyInput& input,
                   const Actions& actions, bool critical_path_priorities) {
  Plan plan = ToPlan(graph, cluster, input, actions);
  if (critical_path_priorities) {
    std::vector<double> levels = plan.priority;
    SetCriticalPathPriorities(graph, cluster, cost_model, &plan);
    for (size_t i = 0; i < plan.priority.size(); ++i) plan.priority[i] += levels[i] * kPriorityLevelScale;
  }
  return plan;
}

void BreakDeviceSymmetry(PolicyInput* input) {
  const int d = input->num_devices;
  if (d < 2) return;
  for (int i = 0; i < d; ++i) {
    input->device_features[static_cast<size_t>(i * kNumDeviceFeatures + kNumDeviceFeatures - 1)] +=
        static_cast<float>(static_cast<double>(i) / (d - 1) - 0.5);
  }
}

Actions PlanToActions(const PolicyInput& input, const Plan& plan, int level) {
  Actions a;
  a.unit_device.resize(static_cast<size_t>(input.num_units));
  for (int u = 0; u < input.num_units; ++u) {
    const int32_t node = input.unit_nodes[static_cast<size_t>(input.unit_offsets[static_cast<size_t>(u)])];
    const OpId op = input.order[static_cast<size_t>(node)];
    DeviceId d = plan.device.empty() ? input.default_device : plan.device[static_cast<size_t>(op)];
    if (d < 0 || d >= input.num_devices || !input.device_allowed[static_cast<size_t>(d)]) d = input.default_device;
    a.unit_device[static_cast<size_t>(u)] = d;
  }
  a.priority_level.assign(static_cast<size_t>(input.num_ops), std::max(0, level));
  a.fuse.assign(static_cast<size_t>(input.num_ops), 0);
  if (!plan.fuse_with_producer.empty()) {
    for (int o = 0; o < input.num_ops; ++o) a.fuse[static_cast<size_t>(o)] = plan.fuse_with_producer[static_cast<size_t>(o)];
  }
  return a;
}

}  // namespace graphopt
