#include "exec/measured_reward.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "exec/executor.h"

namespace graphopt {

PlanMeasure MeasuredReward(const Simulator& simulator, std::vector<std::vector<int>> core_sets,
                           MeasuredRewardOptions options) {
  return [&simulator, core_sets = std::move(core_sets), options](const Plan& plan) -> StatusOr<SimResult> {
    GO_ASSIGN_OR_RETURN(SimResult result, simulator.Simulate(plan));
    if (result.oom) return result;
    ExecOptions exec_options;
    exec_options.seed = options.seed;
    GO_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                        Executor::Create(simulator.graph(), simulator.cluster(), core_sets, plan, exec_options));
    std::vector<double> times;
    for (int i = 0; i < options.warmup + std::max(1, options.steps); ++i) {
      GO_ASSIGN_OR_RETURN(SimResult step, executor->RunStep());
      if (i >= options.warmup) times.push_back(step.step_time_us);
    }
    std::sort(times.begin(), times.end());
    result.step_time_us = times[times.size() / 2];
    return result;
  };
}

}  // namespace graphopt
