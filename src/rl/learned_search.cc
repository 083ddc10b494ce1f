#include "rl/learned_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "baselines/baseline.h"
#include "core/strings.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/checkpoint.h"
#include "rl/learned_search_impl.h"
#include "rl/methods.h"
#include "rl/ppo.h"
#include "rl/rollout.h"
#include "rl/training_util.h"
#include "sim/batch.h"

namespace graphopt {

using learned_search_internal::Clock;
using learned_search_internal::TraceJson;

std::string ConvergenceJson(const std::vector<ConvergencePoint>& trace) {
  nlohmann::json j{{"format", "graphopt-convergence"}, {"version", 1}, {"points", TraceJson(trace)}};
  return j.dump(1) + "\n";
}

// (LearnedSearch::Impl: rl/learned_search_impl.h)

std::string PlanOrigin(const std::vector<ConvergencePoint>& trace) {
  for (auto it = trace.rbegin(); it != trace.rend(); ++it) {
    if (it->source != "polish") return it->source;
  }
  return trace.empty() ? "" : "polish";
}

void LearnedSearchResult::SampleDistance::Add(double units_off, double levels_off, double fuse_off) {
  if (units_off < 0) return;
  const double n = static_cast<double>(steps);
  auto mean = [&](double old, double v) { return v < 0 ? old : (old < 0 ? v : (old * n + v) / (n + 1)); };
  units = mean(units, units_off);
  levels = mean(levels, levels_off);
  fuse = mean(fuse, fuse_off);
  ++steps;
}

LearnedSearch::LearnedSearch(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LearnedSearch::~LearnedSearch() = default;

StatusOr<std::unique_ptr<LearnedSearch>> LearnedSearch::Create(const Simulator& simulator, LearnedSearchConfig config,
                                                               SearchHandles handles) {
  auto impl = std::make_unique<Impl>(simulator, std::move(config), std::move(handles));
  GO_ASSIGN_OR_RETURN(const LearnedMethod* method, FindLearnedMethod(impl->config.method));
  if (impl->handles.world != nullptr && impl->handles.world->distributed()) {
    if (!method->go_policy) {
      return InvalidArgument("the search over several ranks is GO's; " + impl->config.method +
                             " trains in one process (under mpirun, bench runs its rows on the ranks)");
    }
    impl->world = impl->handles.world;
  }
  GO_RETURN_IF_ERROR(method->validate(impl->config));
  impl->policy_config = impl->config.policy.value_or(GoPolicyConfig{});
  if (!impl->config.pretrained.file.empty()) {
    if (!method->go_policy) return InvalidArgument("a pre-trained policy is a GO policy: method must be go");
    // Of the network's options only `tasks` goes with a pre-trained policy: the part of
    // its tasks the search decides (bench's placement tables give placement).
    if (impl->config.policy.has_value()) {
      GoPolicyConfig others = *impl->config.policy;
      others.tasks = GoPolicyConfig().tasks;
      if (others.ToString() != GoPolicyConfig().ToString()) {
        return InvalidArgument("the network options (" + impl->config.policy->ToString() +
                               ") cannot be combined with a pre-trained policy, whose network is " +
                               impl->config.pretrained.file + "'s (only tasks, a part of its tasks, can be given)");
      }
    }
    GO_ASSIGN_OR_RETURN(GoPolicy pretrained, LoadGoPolicy(impl->config.pretrained.file));
    if (impl->config.policy.has_value()) {
      GO_RETURN_IF_ERROR(
          pretrained->RestrictTasks(impl->config.policy->tasks).WithContext(impl->config.pretrained.file));
    }
    impl->policy_config = pretrained->config();
  }
  impl->ppo_config = impl->config.ppo;
  impl->ppo_config.samples_per_step =
      StepSamples(impl->ppo_config.samples_per_step, impl->config.sampling.step_ops, simulator.graph().num_ops());
  if (impl->policy_config.seed == GoPolicyConfig().seed) impl->policy_config.seed = impl->config.seed + 1;
  ConfigureTorchThreads(impl->config.budget.threads);
  impl->input_options = UnitsPerDeviceOptions(simulator.cluster(), impl->config.sampling.units_per_device,
                                              impl->policy_config.layer_units);
  GO_ASSIGN_OR_RETURN(impl->input, BuildPolicyInput(simulator.graph(), simulator.cluster(), simulator.cost_model(),
                                                    impl->input_options));
  const uint32_t tasks = method->go_policy ? impl->policy_config.tasks : kAllTasks;
  if (!method->go_policy && !impl->config.fixed_placement.empty()) {
    return InvalidArgument("a fixed placement is for go with placement left out of its tasks, not " +
                           impl->config.method);
  }
  GO_ASSIGN_OR_RETURN(impl->defaults, TaskDefaults::Create(tasks, impl->config.fixed_placement, simulator.graph(),
                                                           simulator.cluster(), simulator.cost_model()));
  const TaskDefaults* defaults = impl->defaults.all() ? nullptr : &impl->defaults;
  impl->batch = std::make_unique<BatchSimulator>(simulator, impl->config.budget.threads);
  if (impl->handles.measure) impl->batch->set_measure(impl->handles.measure);
  if (impl->config.ingredients.polish) {
    impl->local_search = std::make_unique<LocalSearch>(simulator, impl->batch.get(), impl->config.polish.search);
    impl->local_search->set_task_defaults(defaults);
  }
  if (impl->config.ingredients.polish && impl->config.ingredients.polish_samples) {
    impl->sample_polish =
        std::make_unique<SamplePolish>(simulator, impl->batch.get(), impl->config.polish.search, defaults);
  }
  if (impl->config.ingredients.train) {
    try {
      if (method->go_policy) {
        GO_ASSIGN_OR_RETURN(std::unique_ptr<PpoTrainer> ppo, impl->NewGoTrainer());
        impl->ppo = ppo.get();
        impl->trainer = std::move(ppo);
      } else {
        GO_ASSIGN_OR_RETURN(impl->trainer, method->create(simulator, impl->batch.get(), impl->input, impl->config));
      }
    } catch (const std::exception& e) {
      return InternalError("creating the " + impl->config.method + " policy: " + e.what());
    }
  }
  if (!impl->config.checkpoints.dir.empty()) {
    impl->identity = CheckpointIdentity::Of(
        simulator, impl->config.method,
        LearnedSearchIdentityConfig(impl->config, impl->policy_config.ToString(), impl->ppo_config.ToString(),
                                    static_cast<bool>(impl->handles.measure)),
        impl->config.seed);
  }
  return std::unique_ptr<LearnedSearch>(new LearnedSearch(std::move(impl)));
}

StatusOr<LearnedSearchResult> LearnedSearch::Run(const std::atomic<bool>* stop,
                                                 const std::function<void(const LearnedSearchProgress&)>& progress) {
  Impl& m = *impl_;
  m.start = Clock::now();
  m.result.policy_best_us = std::numeric_limits<double>::infinity();
  GO_ASSIGN_OR_RETURN(const bool resumed, m.LoadCheckpoint());
  m.result.resumed = resumed;
  GO_ASSIGN_OR_RETURN(const double reference, m.Start(resumed));

  const double run_limit = m.config.budget.time_limit_s;
  const Clock::time_point run_start = m.start;
  auto time_up = [&] {
    return run_limit > 0 && std::chrono::duration<double>(Clock::now() - run_start).count() >= run_limit;
  };
  const std::function<bool()> halt = [&] { return (stop != nullptr && stop->load()) || time_up(); };
  // Polish the best baseline first (cheap and deterministic), then explore or imitate.
  if (!resumed && m.local_search && m.best_score.scored()) m.PolishBest(-1, 0, halt);
  // (The units are split by the best plan: the same on every rank.)
  GO_RETURN_IF_ERROR(m.ShareBest());
  if (!resumed && !m.Explores()) GO_RETURN_IF_ERROR(m.StartImitation(reference, halt));
  int64_t steps_this_run = 0;
  double last_batch_best = 0;
  std::string reason;
  while (true) {
    Impl::Agreement now;
    now.reason = StopReason(stop, time_up(), m.result.steps, m.config.budget.max_steps);
    now.converged = !m.trainer && (!m.local_search || m.local_search->converged());
    now.explore_over =
        m.Explores() &&
        m.ExplorationOver(std::chrono::duration<double>(Clock::now() - run_start).count(), steps_this_run);
    GO_ASSIGN_OR_RETURN(now, m.Agree(now));
    reason = now.reason;
    if (!reason.empty()) break;
    if (now.converged) {
      reason = "converged";
      break;
    }
    if (now.explore_over) {
      m.result.explore_seconds = m.Seconds();
      GO_RETURN_IF_ERROR(m.StartImitation(reference, halt));
    }
    if (m.trainer) {
      GO_ASSIGN_OR_RETURN(last_batch_best, m.TrainerStep());
    }
    if (m.local_search && !m.local_search->converged() && m.best_score.scored()) {
      m.PolishBest(m.result.steps, m.config.polish.evaluations, halt);
    } else if (m.sample_polish && m.ppo) {
      m.PolishPolicySample(halt);
    }
    GO_RETURN_IF_ERROR(m.ShareBest());
    ++m.result.steps;
    ++steps_this_run;
    if (progress) progress(m.Progress(last_batch_best));
    if (!m.config.checkpoints.dir.empty() && m.result.steps % m.config.checkpoints.every == 0) {
      GO_RETURN_IF_ERROR(m.SaveCheckpoint());
    }
  }
  return m.Finish(reason);
}

}  // namespace graphopt
