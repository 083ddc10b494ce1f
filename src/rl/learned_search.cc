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
using learned_search_internal::PolishSeed;
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

StatusOr<std::unique_ptr<LearnedSearch>> LearnedSearch::Create(const Simulator& simulator, LearnedSearchConfig config) {
  auto impl = std::make_unique<Impl>(simulator, std::move(config));
  GO_ASSIGN_OR_RETURN(const LearnedMethod* method, FindLearnedMethod(impl->config.method));
  if (impl->config.world != nullptr && impl->config.world->distributed()) {
    if (!method->go_policy) {
      return InvalidArgument("the search over several ranks is GO's; " + impl->config.method +
                             " trains in one process (under mpirun, bench runs its rows on the ranks)");
    }
    impl->world = impl->config.world;
  }
  GO_RETURN_IF_ERROR(method->validate(impl->config));
  impl->policy_config = impl->config.policy.value_or(GoPolicyConfig{});
  if (!impl->config.pretrained.empty()) {
    if (!method->go_policy) return InvalidArgument("a pre-trained policy is a GO policy: method must be go");
    if (impl->config.policy.has_value()) {
      return InvalidArgument("the network options (" + impl->config.policy->ToString() +
                             ") cannot be combined with a pre-trained policy, whose network is " +
                             impl->config.pretrained + "'s");
    }
    GO_ASSIGN_OR_RETURN(const GoPolicy pretrained, LoadGoPolicy(impl->config.pretrained));
    impl->policy_config = pretrained->config();
  }
  impl->ppo_config = impl->config.ppo;
  impl->ppo_config.samples_per_step =
      StepSamples(impl->ppo_config.samples_per_step, impl->config.step_ops, simulator.graph().num_ops());
  if (impl->policy_config.seed == GoPolicyConfig().seed) impl->policy_config.seed = impl->config.seed + 1;
  ConfigureTorchThreads(impl->config.threads);
  impl->input_options = UnitsPerDeviceOptions(simulator.cluster(), impl->config.units_per_device, impl->policy_config.layer_units);
  GO_ASSIGN_OR_RETURN(impl->input, BuildPolicyInput(simulator.graph(), simulator.cluster(), simulator.cost_model(),
                                                    impl->input_options));
  const uint32_t tasks = method->go_policy ? impl->policy_config.tasks : kAllTasks;
  if (!method->go_policy && !impl->config.fixed_placement.empty()) {
    return InvalidArgument("a fixed placement is for go with placement left out of its tasks, not " + impl->config.method);
  }
  GO_ASSIGN_OR_RETURN(impl->defaults, TaskDefaults::Create(tasks, impl->config.fixed_placement, simulator.graph(),
                                                           simulator.cluster(), simulator.cost_model()));
  const TaskDefaults* defaults = impl->defaults.all() ? nullptr : &impl->defaults;
  impl->batch = std::make_unique<BatchSimulator>(simulator, impl->config.threads);
  if (impl->config.measure) impl->batch->set_measure(impl->config.measure);
  if (impl->config.polish) {
    impl->polish = std::make_unique<LocalSearch>(simulator, impl->batch.get(), impl->config.polish_config);
    impl->polish->set_task_defaults(defaults);
  }
  if (impl->config.polish && impl->config.polish_samples) {
    impl->sample_polish =
        std::make_unique<SampleDescent>(simulator, impl->batch.get(), impl->config.polish_config, defaults);
  }
  if (impl->config.ppo_enabled) {
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
  if (!impl->config.checkpoint_dir.empty()) {
    impl->identity = CheckpointIdentity::Of(simulator, impl->config.method, LearnedSearchIdentityConfig(impl->config, impl->policy_config.ToString(), impl->ppo_config.ToString()), impl->config.seed);
  }
  return std::unique_ptr<LearnedSearch>(new LearnedSearch(std::move(impl)));
}

StatusOr<LearnedSearchResult> LearnedSearch::Run(const std::atomic<bool>* stop,
                                       const std::function<void(const LearnedSearchProgress&)>& progress) {
  Impl& m = *impl_;
  m.start = Clock::now();
  m.result.ppo_best_us = std::numeric_limits<double>::infinity();
  GO_ASSIGN_OR_RETURN(const bool resumed, m.LoadCheckpoint());
  m.result.resumed = resumed;
  // Baselines are always scored (for the report); they seed the search only on a
  // fresh run with baselines enabled.
  {
    const bool seed_from_baselines = m.config.baselines && !resumed;
    const bool keep = m.config.baselines;
    m.config.baselines = seed_from_baselines;
    const int64_t plans = m.result.plans_simulated;
    const double to_best = m.result.seconds_to_best;
    m.RunBaselines();
    if (resumed) {
      m.result.plans_simulated = plans;
      m.result.seconds_to_best = to_best;
    }
    m.config.baselines = keep;
  }
  // Over several ranks, rank 0 counts the plans of earlier runs.
  if (resumed && !m.Root()) m.result.plans_simulated = 0;
  // Reference of the reward: the best plain baseline, else the single-device plan.
  double reference = m.result.best_baseline_score.fits() ? m.result.best_baseline_score.step_time_us : 0;
  if (reference <= 0) {
    for (const BaselineScore& b : m.result.baselines) {
      if (b.error.empty() && b.score.scored() && (reference <= 0 || b.score.step_time_us < reference)) reference = b.score.step_time_us;
    }
  }
  if (reference <= 0) reference = 1e6;
  if (!resumed && !m.config.pretrained.empty()) GO_RETURN_IF_ERROR(m.PlanZeroShot());
  // Without baselines and without PPO, the local search starts from one device.
  if (!resumed && !m.best_score.scored() && !m.trainer) {
    Plan start = SingleDevicePlan(m.sim.graph(), m.sim.cluster());
    StatusOr<SimResult> r = m.Score(start);
    if (r.ok()) m.Offer(start, PlanScore::Of(*r), "start:single");
  }
  if (!resumed) m.exploring = m.ppo != nullptr && m.config.explore > 0;
  if (m.trainer) {
    if (!resumed) {
      m.trainer->set_reference_us(reference);
      if (m.best_score.scored() && m.TrainerImitates()) m.OfferToTrainer(m.best, m.best_score);
    }
  }

  const double run_limit = m.config.time_limit_s;
  const Clock::time_point run_start = m.start;
  auto time_up = [&] {
    return run_limit > 0 && std::chrono::duration<double>(Clock::now() - run_start).count() >= run_limit;
  };
  auto stopped = [&] { return stop != nullptr && stop->load(); };
  // Polish the best baseline first (cheap and deterministic), then explore or imitate.
  if (!resumed && m.polish && m.best_score.scored()) {
    Plan plan = m.best;
    PlanScore score = m.best_score;
    Rng rng(PolishSeed(m.Seed(), -1));
    const LocalSearchStats ls = m.polish->Polish(&plan, &score, rng, 0, [&] { return stopped() || time_up(); });
    m.result.plans_simulated += ls.evaluations;
    if (m.Offer(plan, score, "polish") && m.TrainerImitates()) m.OfferToTrainer(m.best, m.best_score);
  }
  // (The units are split by the best plan: the same on every rank.)
  GO_RETURN_IF_ERROR(m.ShareBest());
  if (!resumed && !m.Explores()) GO_RETURN_IF_ERROR(m.StartImitation(reference, [&] { return stopped() || time_up(); }));
  int64_t steps_this_run = 0;
  double last_batch_best = 0;
  std::string reason;
  while (true) {
    Impl::Agreement now;
    now.reason = StopReason(stop, time_up(), m.result.steps, m.config.max_steps);
    now.converged = !m.trainer && (!m.polish || m.polish->converged());
    now.explore_over = m.Explores() &&
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
      GO_RETURN_IF_ERROR(m.StartImitation(reference, [&] { return stopped() || time_up(); }));
    }
    if (m.trainer) {
      TrainerStepStats s;
      const int64_t before = m.trainer->plans_simulated();
      if (m.ppo) m.ppo->set_coupled_fraction(m.Explores() ? m.config.explore_coupled : 0);
      try {
        s = m.trainer->Step();
      } catch (const std::exception& e) {
        return InternalError(m.config.method + " training step: " + e.what());
      }
      m.result.plans_simulated += m.trainer->plans_simulated() - before;
      (m.Explores() ? m.result.explore_distance : m.result.imitate_distance).Add(s.units_off, s.levels_off, s.fuse_off);
      last_batch_best = s.best_step_us_in_batch;
      if (std::isfinite(s.best_step_us_in_batch)) m.result.ppo_best_us = std::min(m.result.ppo_best_us, s.best_step_us_in_batch);
      // (Exploring, the policy's plans are polished by the sample polish instead.)
      if (m.Offer(m.trainer->best_plan(), m.trainer->best_score(), m.ppo ? "ppo" : m.config.method) && m.polish &&
          !m.Explores()) {
        m.polish->Reset();
      }
    }
    if (m.polish && !m.polish->converged() && m.best_score.scored()) {
      Plan plan = m.best;
      PlanScore score = m.best_score;
      Rng rng(PolishSeed(m.Seed(), m.result.steps));
      const LocalSearchStats ls = m.polish->Polish(&plan, &score, rng, m.config.polish_evaluations, [&] {
        return stopped() || time_up();
      });
      m.result.plans_simulated += ls.evaluations;
      if (m.Offer(plan, score, "polish") && m.TrainerImitates()) m.OfferToTrainer(m.best, m.best_score);
    } else if (m.sample_polish && m.ppo) {
      m.PolishPolicySample([&] { return stopped() || time_up(); });
    }
    GO_RETURN_IF_ERROR(m.ShareBest());
    ++m.result.steps;
    ++steps_this_run;
    if (progress) {
      LearnedSearchProgress p;
      p.step = m.result.steps;
      p.seconds = m.Seconds();
      p.best = m.best_score;
      p.best_baseline_us = m.result.best_baseline_score.fits() ? m.result.best_baseline_score.step_time_us : 0;
      p.last_batch_best_us = last_batch_best;
      p.plans = m.Plans();
      progress(p);
    }
    if (!m.config.checkpoint_dir.empty() && m.result.steps % m.config.checkpoint_every == 0) {
      GO_RETURN_IF_ERROR(m.SaveCheckpoint());
    }
  }
  m.result.stop_reason = reason;
  GO_RETURN_IF_ERROR(m.ShareBest());
  m.result.plans_simulated = m.Plans();
  m.others_plans = 0;
  m.result.seconds = m.Seconds();
  m.result.num_units = m.ppo ? m.input.num_units : 0;
  m.result.units_split = !m.units_plan.device.empty();
  GO_RETURN_IF_ERROR(m.SaveCheckpoint());
  if (!m.best_score.scored()) return FailedPrecondition("the GO search found no plan that could be simulated");
  m.result.plan = m.best;
  m.result.score = m.best_score;
  return m.result;
}

}  // namespace graphopt
