// The search's phases (rl/learned_search_impl.h): its start (the baselines, the
// reward's reference, the zero-shot plan), the offers of plans to the best plan and to
// the trainer, a step of the trainer, a slice of the polish, the imitation's start with
// the units split by the best plan, the sample polish and the end of a run.
// learned_search.cc runs them step by step.
#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "rl/learned_search_impl.h"

namespace graphopt {

StatusOr<GoPolicy> LearnedSearch::Impl::NewPolicy() const {
  if (config.pretrained.file.empty()) return GoPolicy(policy_config);
  GO_ASSIGN_OR_RETURN(GoPolicy policy, LoadGoPolicy(config.pretrained.file));
  GO_RETURN_IF_ERROR(policy->RestrictTasks(policy_config.tasks));
  if (config.pretrained.fresh_priority) policy->RestartPriorityOutput(config.seed);
  return policy;
}

StatusOr<std::unique_ptr<PpoTrainer>> LearnedSearch::Impl::NewGoTrainer() {
  GO_ASSIGN_OR_RETURN(GoPolicy policy, NewPolicy());
  auto fresh = std::make_unique<PpoTrainer>(sim, batch.get(), input, policy, ppo_config, config.seed);
  UseDefaults(fresh.get());
  GO_RETURN_IF_ERROR(fresh->set_world(world));
  if (config.pretrained.frozen_start && !config.pretrained.file.empty()) fresh->FreezeTrunk();
  return fresh;
}

Status LearnedSearch::Impl::PlanZeroShot() {
  GO_ASSIGN_OR_RETURN(const ZeroShotResult z, ZeroShotPlan(sim, config.pretrained.file, SearchZeroShotOptions(config)));
  result.plans_simulated += z.num_plans;
  result.zero_shot_score = z.score;
  result.zero_shot_seconds = z.seconds;
  Plan plan = z.plan;
  PlanScore score = z.score;
  if (!WithDefaults(&plan, &score)) return Status::Ok();
  if (handles.measure) {  // ranked by the simulator, scored like every other plan
    StatusOr<SimResult> r = Score(plan);
    if (!r.ok()) return Status::Ok();
    score = PlanScore::Of(*r);
  }
  Offer(plan, score, "zero-shot");
  if (trainer) OfferToTrainer(plan, score);
  return Status::Ok();
}

bool LearnedSearch::Impl::ExplorationOver(double run_seconds, int64_t steps_this_run) const {
  // With both limits, the one that binds first: the run stops at whichever comes first.
  const bool steps_over = config.budget.max_steps > 0 &&
                          result.steps >= static_cast<int64_t>(config.ingredients.explore * config.budget.max_steps);
  const bool time_over =
      config.budget.time_limit_s > 0 && run_seconds >= config.ingredients.explore * config.budget.time_limit_s;
  if (config.budget.max_steps > 0 || config.budget.time_limit_s > 0) return steps_over || time_over;
  return steps_this_run >= static_cast<int64_t>(config.ingredients.explore * kExploreStepsWithoutLimit);
}

void LearnedSearch::Impl::OfferToTrainer(const Plan& plan, const PlanScore& score) {
  if (ppo != nullptr && config.sampling.sample_offered_levels) {
    ppo->OfferPlanWithSampledLevels(plan, score);
  } else {
    trainer->OfferPlan(plan, score);
  }
}

bool LearnedSearch::Impl::Offer(const Plan& plan, const PlanScore& score, const std::string& source) {
  top.Offer(plan, score, source);
  if (!score.BetterThan(best_score)) return false;
  best = plan;
  best_score = score;
  result.seconds_to_best = Seconds();
  result.trace.push_back(ConvergencePoint{result.seconds_to_best, Plans(), trainer ? trainer->step() : result.steps,
                                          score.step_time_us, score.fits(), source});
  if (source == "policy") ++result.improvements_policy;
  if (source == "polish") ++result.improvements_polish;
  if (source == "sample-polish") ++result.improvements_sample_polish;
  return true;
}

bool LearnedSearch::Impl::WithDefaults(Plan* plan, PlanScore* score) {
  if (defaults.all()) return true;
  defaults.Apply(sim.graph(), plan);
  StatusOr<SimResult> r = Score(*plan);
  ++result.plans_simulated;
  if (!r.ok()) return false;
  *score = PlanScore::Of(*r);
  return true;
}

void LearnedSearch::Impl::RunBaselines(bool seed_best) {
  BaselineScoring scoring;
  scoring.fused = true;
  scoring.seed = config.seed;
  scoring.score = [this](const Plan& plan) { return Score(plan); };
  result.baselines = ScoreBaselines(sim, scoring, [this, seed_best](const BaselineScore& b, Plan* plan) {
    if (plan == nullptr) return;
    ++result.plans_simulated;
    const bool keep = config.keep_plans > 0;
    PlanScore offered = b.score;
    if (!b.error.empty() || !(seed_best || keep) || !WithDefaults(plan, &offered)) return;
    if (seed_best) Offer(*plan, offered, "baseline:" + b.method);
    if (keep) baseline_top.Offer(*plan, offered, b.method);
  });
  result.baseline_plans = baseline_top.plans();
  if (const BaselineScore* best_plain = BestPlainBaseline(result.baselines)) {
    result.best_baseline = best_plain->method;
    result.best_baseline_score = best_plain->score;
  }
}

Status LearnedSearch::Impl::SplitUnitsBy(const Plan& plan) {
  PolicyInputOptions options = input_options;
  options.split_by_device = plan.device;
  GO_ASSIGN_OR_RETURN(PolicyInput split, BuildPolicyInput(sim.graph(), sim.cluster(), sim.cost_model(), options));
  trainer.reset();
  ppo = nullptr;
  input = std::move(split);
  try {
    GO_ASSIGN_OR_RETURN(std::unique_ptr<PpoTrainer> fresh, NewGoTrainer());
    ppo = fresh.get();
    trainer = std::move(fresh);
  } catch (const std::exception& e) {
    return InternalError(std::string("creating the go policy on the plan's units: ") + e.what());
  }
  units_plan = plan;
  return Status::Ok();
}

void LearnedSearch::Impl::PolishPolicySample(const std::function<bool()>& stop) {
  const PlanScore& sampled = exploring ? ppo->best_score() : ppo->last_sample_score();
  if (!sampled.scored()) return;
  const Plan& plan = exploring ? ppo->best_plan() : ppo->last_sample_plan();
  Rng rng(learned_search_internal::PolishSeed(Seed() ^ 0x5A5A5A5Aull, result.steps));
  const std::optional<LocalSearchStats> ls =
      sample_polish->Step(plan, sampled, exploring, rng, config.polish.evaluations, stop);
  if (!ls) return;
  result.plans_simulated += ls->evaluations;
  if (Offer(sample_polish->plan(), sample_polish->score(), "sample-polish") && !exploring) {
    OfferToTrainer(best, best_score);
    local_search->Reset();
  }
}

Status LearnedSearch::Impl::StartImitation(double reference, const std::function<bool()>& stop) {
  exploring = false;
  if (sample_polish) sample_polish->Forget();  // the next descent starts from the imitating policy's samples
  if (!trainer || !best_score.scored()) return Status::Ok();
  if (ppo && config.ingredients.plan_units && config.ingredients.baselines) {
    GO_RETURN_IF_ERROR(SplitUnitsBy(best));
    trainer->set_reference_us(reference);
  }
  OfferToTrainer(best, best_score);
  if (config.ingredients.warm_start) trainer->WarmStart(stop);
  return Status::Ok();
}

StatusOr<double> LearnedSearch::Impl::Start(bool resumed) {
  // Baselines are always scored (for the report); they seed the search only on a
  // fresh run with baselines enabled. A resumed run's count of plans is the
  // checkpoint's; over several ranks, rank 0 counts the plans of earlier runs.
  const int64_t plans = result.plans_simulated;
  RunBaselines(config.ingredients.baselines && !resumed);
  if (resumed) result.plans_simulated = Root() ? plans : 0;
  // Reference of the reward: the best plain baseline that fits, else the fastest
  // baseline, else 1 s.
  double reference = result.best_baseline_score.fits() ? result.best_baseline_score.step_time_us : 0;
  if (reference <= 0) {
    for (const BaselineScore& b : result.baselines) {
      if (b.error.empty() && b.score.scored() && (reference <= 0 || b.score.step_time_us < reference)) {
        reference = b.score.step_time_us;
      }
    }
  }
  if (reference <= 0) reference = 1e6;
  if (resumed) return reference;
  if (!config.pretrained.file.empty()) GO_RETURN_IF_ERROR(PlanZeroShot());
  // Without baselines and without PPO, the local search starts from one device.
  if (!best_score.scored() && !trainer) {
    Plan start_plan = SingleDevicePlan(sim.graph(), sim.cluster());
    StatusOr<SimResult> r = Score(start_plan);
    if (r.ok()) Offer(start_plan, PlanScore::Of(*r), "start:single");
  }
  exploring = ppo != nullptr && config.ingredients.explore > 0;
  if (trainer) {
    trainer->set_reference_us(reference);
    if (best_score.scored() && TrainerImitates()) OfferToTrainer(best, best_score);
  }
  return reference;
}

void LearnedSearch::Impl::PolishBest(int64_t step, int64_t evaluations, const std::function<bool()>& stop) {
  Plan plan = best;
  PlanScore score = best_score;
  Rng rng(learned_search_internal::PolishSeed(Seed(), step));
  const LocalSearchStats ls = local_search->Polish(&plan, &score, rng, evaluations, stop);
  result.plans_simulated += ls.evaluations;
  if (Offer(plan, score, "polish") && TrainerImitates()) OfferToTrainer(best, best_score);
}

StatusOr<double> LearnedSearch::Impl::TrainerStep() {
  TrainerStepStats s;
  const int64_t before = trainer->plans_simulated();
  if (ppo) {
    ppo->set_coupled_fraction(Explores() ? config.sampling.explore_coupled : 0);
    ppo->set_coupled_by_layer(config.sampling.coupled_layers);
    ppo->set_coupled_uniform(config.sampling.coupled_uniform);
  }
  try {
    s = trainer->Step();
  } catch (const std::exception& e) {
    return InternalError(config.method + " training step: " + e.what());
  }
  result.plans_simulated += trainer->plans_simulated() - before;
  (Explores() ? result.explore_distance : result.imitate_distance).Add(s.units_off, s.levels_off, s.fuse_off);
  if (std::isfinite(s.best_step_us_in_batch))
    result.policy_best_us = std::min(result.policy_best_us, s.best_step_us_in_batch);
  // (Exploring, the policy's plans are polished by the sample polish instead.)
  if (Offer(trainer->best_plan(), trainer->best_score(), "policy") && local_search && !Explores()) {
    local_search->Reset();
  }
  return s.best_step_us_in_batch;
}

LearnedSearchProgress LearnedSearch::Impl::Progress(double last_batch_best_us) const {
  LearnedSearchProgress p;
  p.step = result.steps;
  p.seconds = Seconds();
  p.best = best_score;
  p.best_baseline_us = result.best_baseline_score.fits() ? result.best_baseline_score.step_time_us : 0;
  p.last_batch_best_us = last_batch_best_us;
  p.plans = Plans();
  return p;
}

StatusOr<LearnedSearchResult> LearnedSearch::Impl::Finish(const std::string& reason) {
  result.stop_reason = reason;
  GO_RETURN_IF_ERROR(ShareBest());
  result.plans_simulated = Plans();
  others_plans = 0;
  result.seconds = Seconds();
  result.num_units = ppo ? input.num_units : 0;
  result.units_split = !units_plan.device.empty();
  GO_RETURN_IF_ERROR(SaveCheckpoint());
  if (!best_score.scored()) {
    return FailedPrecondition("the " + config.method + " search found no plan that could be simulated");
  }
  result.plan = best;
  result.score = best_score;
  // The best plan is among the top plans even when it was found before them (a
  // checkpoint written without top plans, or by another rank).
  top.Offer(best, best_score, result.trace.empty() ? "best" : result.trace.back().source);
  result.top_plans = top.plans();
  return result;
}

}  // namespace graphopt
