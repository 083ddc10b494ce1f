#include "rl/zero_shot.h"

#include <chrono>
#include <vector>

#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/ppo_config.h"
#include "rl/rollout.h"
#include "rl/training_util.h"
#include "sim/batch.h"

namespace graphopt {

StatusOr<ZeroShotResult> ZeroShotPlan(const Simulator& sim, const std::string& policy_path,
                                      const ZeroShotOptions& options) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  if (options.samples < 0) return InvalidArgument("zero-shot samples must be >= 0");
  if (!(options.temperature > 0)) return InvalidArgument("zero-shot temperature must be > 0");
  if (options.coupled_samples < 0) return InvalidArgument("zero-shot coupled samples must be >= 0");
  ConfigureTorchThreads(options.threads);
  GO_ASSIGN_OR_RETURN(GoPolicy policy, LoadGoPolicy(policy_path));
  GO_ASSIGN_OR_RETURN(const PolicyInput input,
                      BuildPolicyInput(sim.graph(), sim.cluster(), sim.cost_model(),
                                       UnitsPerDeviceOptions(sim.cluster(), options.units_per_device)));
  ZeroShotResult result;
  result.num_units = input.num_units;
  std::vector<Actions> actions;
  const Clock::time_point forward_start = Clock::now();
  try {
    torch::NoGradGuard no_grad;
    ScopedFlushDenormal flush;
    policy->eval();
    const PolicyTensors tensors = ToTensors(input);
    const PolicyOutput out = policy->forward(tensors);
    actions.push_back(policy->Greedy(tensors, out));
    Rng rng(TrainingStepSeed(options.seed, 0));
    for (const bool coupled : {false, true}) {
      const int n = coupled ? options.coupled_samples : options.samples;
      if (n == 0) continue;
      for (Actions& a : policy->Sample(tensors, out, rng, n, options.temperature, coupled)) actions.push_back(std::move(a));
    }
  } catch (const c10::Error& e) {
    return InternalError(std::string("zero-shot forward pass: ") + e.what_without_backtrace());
  }
  result.forward_seconds = std::chrono::duration<double>(Clock::now() - forward_start).count();
  BatchSimulator batch(sim, options.threads);
  const PlanBuilder builder(sim.graph(), sim.cluster(), sim.cost_model(), input, PpoConfig().critical_path_priorities);
  const std::vector<Plan> plans = builder.BuildAll(actions, batch.num_threads());
  const std::vector<StatusOr<SimResult>> results = batch.Run(plans);
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!results[i].ok()) continue;
    const PlanScore score = PlanScore::Of(*results[i]);
    if (i == 0) result.greedy_score = score;
    const bool coupled = i > static_cast<size_t>(options.samples);  // after the greedy plan and the independent samples
    if (i > 0 && !coupled && score.BetterThan(result.best_sample_score)) result.best_sample_score = score;
    if (coupled && score.BetterThan(result.best_coupled_score)) result.best_coupled_score = score;
    if (score.BetterThan(result.score)) {
      result.score = score;
      result.plan = plans[i];
      result.from_greedy = i == 0;
      result.from_coupled = coupled;
    }
  }
  if (!result.score.scored()) return FailedPrecondition("zero-shot: no plan of the policy could be simulated");
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace graphopt
