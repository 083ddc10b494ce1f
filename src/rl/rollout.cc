#include "rl/rollout.h"

#include <algorithm>
#include <thread>

#include "baselines/baseline.h"

namespace graphopt {
namespace {

Plan ActionsToPlanWith(const Graph& graph, const Cluster& cluster, const PolicyInput& input, const Actions& actions,
                       const CriticalPathScheduler* scheduler, const PlanLegalizer* legalizer) {
  Plan plan = ToPlan(graph, cluster, input, actions, legalizer);
  if (scheduler != nullptr) {
    std::vector<double> levels = plan.priority;
    scheduler->Apply(&plan);
    for (size_t i = 0; i < plan.priority.size(); ++i) plan.priority[i] += levels[i] * kPriorityLevelScale;
  }
  return plan;
}

}  // namespace

Plan ActionsToPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, const PolicyInput& input,
                   const Actions& actions, bool critical_path_priorities) {
  if (!critical_path_priorities) return ActionsToPlanWith(graph, cluster, input, actions, nullptr, nullptr);
  const CriticalPathScheduler scheduler(graph, cluster, cost_model);
  return ActionsToPlanWith(graph, cluster, input, actions, &scheduler, nullptr);
}

PlanBuilder::PlanBuilder(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                         const PolicyInput& input, bool critical_path_priorities)
    : graph_(graph),
      cluster_(cluster),
      input_(input),
      critical_path_priorities_(critical_path_priorities),
      scheduler_(graph, cluster, cost_model),
      legalizer_(graph) {}

Plan PlanBuilder::Build(const Actions& actions) const {
  const bool schedule = critical_path_priorities_ && (defaults_ == nullptr || defaults_->decides(kTaskScheduling));
  Plan plan = ActionsToPlanWith(graph_, cluster_, input_, actions, schedule ? &scheduler_ : nullptr, &legalizer_);
  if (defaults_ != nullptr) defaults_->Apply(graph_, &plan, &legalizer_);
  return plan;
}

std::vector<Plan> PlanBuilder::BuildAll(const std::vector<Actions>& actions, int threads) const {
  std::vector<Plan> plans(actions.size());
  const size_t t = std::min(actions.size(), static_cast<size_t>(std::max(1, threads)));
  auto work = [&](size_t first) {
    for (size_t i = first; i < actions.size(); i += std::max<size_t>(1, t)) plans[i] = Build(actions[i]);
  };
  std::vector<std::thread> pool;
  for (size_t k = 1; k < t; ++k) pool.emplace_back(work, k);
  work(0);
  for (std::thread& th : pool) th.join();
  return plans;
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
