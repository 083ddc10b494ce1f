#include "exec/verify_plans.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/median.h"
#include "core/strings.h"
#include "exec/executor.h"
#include "exec/fidelity_rounds.h"

namespace graphopt {

StatusOr<std::vector<VerifyCandidate>> TopPlanCandidates(const Simulator& sim, const std::vector<RankedPlan>& top,
                                                         const std::vector<RankedPlan>& baselines) {
  std::vector<VerifyCandidate> candidates;
  for (size_t i = 0; i < top.size(); ++i) {
    candidates.push_back({StrFormat("%zu (%s)", i + 1, top[i].source.c_str()), top[i].plan, top[i].score.step_time_us});
  }
  const auto placed = [&](const Plan& plan) {
    return std::any_of(candidates.begin(), candidates.end(),
                       [&](const VerifyCandidate& c) { return c.plan.device == plan.device; });
  };
  for (const RankedPlan& b : baselines) {
    if (!placed(b.plan)) candidates.push_back({b.source + " (baseline)", b.plan, b.score.step_time_us});
  }
  const Plan single = DefaultPlan(sim.graph(), sim.cluster().FirstAccelerator());
  for (const VerifyCandidate& c : candidates) {
    if (c.plan.device == single.device && c.plan.fuse_with_producer == single.fuse_with_producer &&
        c.plan.priority == single.priority) {
      return candidates;
    }
  }
  GO_ASSIGN_OR_RETURN(const SimResult r, sim.Simulate(single));
  candidates.push_back({"single device", single, r.step_time_us});
  return candidates;
}

StatusOr<VerifyResult> VerifyPlans(const Graph& graph, const Cluster& cluster,
                                   const std::vector<std::vector<int>>& core_sets,
                                   const std::vector<VerifyCandidate>& candidates, const VerifyOptions& options) {
  if (candidates.empty()) return InvalidArgument("verify: no plans to execute");
  if (options.steps < 2 || options.steps > 1000) return InvalidArgument("verify: steps must be in [2, 1000]");
  if (options.warmup < 0 || options.warmup > 1000) return InvalidArgument("verify: warmup must be in [0, 1000]");
  VerifyResult result;
  std::vector<RoundsPlan> rounds(candidates.size());
  ExecOptions exec_options;
  exec_options.seed = options.seed;
  for (size_t i = 0; i < candidates.size(); ++i) {
    VerifiedPlan v;
    v.name = candidates[i].name;
    v.simulated_us = candidates[i].simulated_us;
    rounds[i].name = v.name;
    auto executor = Executor::Create(graph, cluster, core_sets, candidates[i].plan, exec_options);
    if (executor.ok()) {
      rounds[i].step = [e = std::shared_ptr<Executor>(std::move(*executor))] { return e->RunStep(); };
    } else {
      v.error = executor.status().message();
    }
    result.plans.push_back(std::move(v));
  }
  RoundsOptions rounds_options;
  rounds_options.warmup = options.warmup;
  rounds_options.steps = options.steps;
  rounds_options.stop = options.stop;
  rounds_options.on_round = options.on_round;
  std::vector<std::vector<double>> reference_us;
  GO_RETURN_IF_ERROR(RunRounds(rounds_options, &rounds, &reference_us).WithContext("verify"));
  std::vector<double> gaps;
  for (size_t i = 0; i < rounds.size(); ++i) {
    VerifiedPlan& v = result.plans[i];
    if (!rounds[i].error.empty()) v.error = rounds[i].error;
    if (!v.error.empty() || rounds[i].steps_us.empty()) continue;
    v.measured_us = MeasuredUs(rounds[i].steps_us);
    v.half_gap = HalfGap(rounds[i].steps_us);
    v.spread = Spread(rounds[i].steps_us);
    gaps.push_back(v.half_gap);
    if (result.best < 0 || v.measured_us < result.plans[static_cast<size_t>(result.best)].measured_us) {
      result.best = static_cast<int>(i);
    }
  }
  if (result.best < 0) {
    return FailedPrecondition("verify: none of the " + std::to_string(candidates.size()) +
                              " plans could be executed (the first: " + result.plans.front().error + ")");
  }
  result.noise_floor = Median(std::move(gaps));
  result.plan = candidates[static_cast<size_t>(result.best)].plan;
  return result;
}

}  // namespace graphopt
