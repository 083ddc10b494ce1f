// The search's phases (rl/learned_search_impl.h): its starting plans (the baselines, the
// zero-shot plan), the offers of plans to the best plan and to the trainer, the
// imitation's start with the units split by the best plan, and the sample polish.
// learned_search.cc runs them step by step.
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "rl/learned_search_impl.h"

namespace graphopt {

StatusOr<GoPolicy> LearnedSearch::Impl::NewPolicy() const {
  if (config.pretrained.empty()) return GoPolicy(policy_config);
  GO_ASSIGN_OR_RETURN(GoPolicy policy, LoadGoPolicy(config.pretrained));
  if (config.fresh_priority) policy->RestartPriorityOutput(config.seed);
  return policy;
}

StatusOr<std::unique_ptr<PpoTrainer>> LearnedSearch::Impl::NewGoTrainer() {
  GO_ASSIGN_OR_RETURN(GoPolicy policy, NewPolicy());
  auto fresh = std::make_unique<PpoTrainer>(sim, batch.get(), input, policy, ppo_config, config.seed);
  UseDefaults(fresh.get());
  GO_RETURN_IF_ERROR(fresh->set_world(world));
  if (config.frozen_start && !config.pretrained.empty()) fresh->FreezeTrunk();
  return fresh;
}

Status LearnedSearch::Impl::PlanZeroShot() {
  GO_ASSIGN_OR_RETURN(const ZeroShotResult z, ZeroShotPlan(sim, config.pretrained, SearchZeroShotOptions(config)));
  result.plans_simulated += z.num_plans;
  result.zero_shot_score = z.score;
  result.zero_shot_seconds = z.seconds;
  Plan plan = z.plan;
  PlanScore score = z.score;
  if (!WithDefaults(&plan, &score)) return Status::Ok();
  if (config.measure) {  // ranked by the simulator, scored like every other plan
    StatusOr<SimResult> r = Score(plan);
    if (!r.ok()) return Status::Ok();
    score = PlanScore::Of(*r);
  }
  Offer(plan, score, "zero-shot");
  if (trainer) OfferToTrainer(plan, score);
  return Status::Ok();
}

bool LearnedSearch::Impl::ExplorationOver(double run_seconds, int64_t steps_this_run) const {
  if (config.max_steps > 0) return result.steps >= static_cast<int64_t>(config.explore * config.max_steps);
  if (config.time_limit_s > 0) return run_seconds >= config.explore * config.time_limit_s;
  return steps_this_run >= static_cast<int64_t>(config.explore * kExploreStepsWithoutLimit);
}

void LearnedSearch::Impl::OfferToTrainer(const Plan& plan, const PlanScore& score) {
  if (ppo != nullptr && config.sample_offered_levels) {
    ppo->OfferPlanWithSampledLevels(plan, score);
  } else {
    trainer->OfferPlan(plan, score);
  }
}

bool LearnedSearch::Impl::Offer(const Plan& plan, const PlanScore& score, const std::string& source) {
  if (!score.BetterThan(best_score)) return false;
  best = plan;
  best_score = score;
  result.seconds_to_best = Seconds();
  result.trace.push_back(ConvergencePoint{result.seconds_to_best, Plans(), trainer ? trainer->step() : result.steps,
                                          score.step_time_us, score.fits(), source});
  if (source == "ppo" || (trainer && source == trainer->method())) ++result.improvements_ppo;
  if (source == "polish") ++result.improvements_polish;
  if (source == "ppo+polish") ++result.improvements_sample_polish;
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

void LearnedSearch::Impl::RunBaselines() {
  BaselineScoring scoring;
  scoring.fused = true;
  scoring.seed = config.seed;
  scoring.score = [this](const Plan& plan) { return Score(plan); };
  result.baselines = ScoreBaselines(sim, scoring, [this](const BaselineScore& b, Plan* plan) {
    if (plan == nullptr) return;
    ++result.plans_simulated;
    PlanScore offered = b.score;
    if (b.error.empty() && config.baselines && WithDefaults(plan, &offered)) {
      Offer(*plan, offered, "baseline:" + b.method);
    }
  });
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
      sample_polish->Step(plan, sampled, exploring, rng, config.polish_evaluations, stop);
  if (!ls) return;
  result.plans_simulated += ls->evaluations;
  if (Offer(sample_polish->plan(), sample_polish->score(), "ppo+polish") && !exploring) {
    OfferToTrainer(best, best_score);
    polish->Reset();
  }
}

Status LearnedSearch::Impl::StartImitation(double reference, const std::function<bool()>& stop) {
  exploring = false;
  if (sample_polish) sample_polish->Forget();  // the next descent starts from the imitating policy's samples
  if (!trainer || !best_score.scored()) return Status::Ok();
  if (ppo && config.plan_units && config.baselines) {
    GO_RETURN_IF_ERROR(SplitUnitsBy(best));
    trainer->set_reference_us(reference);
  }
  OfferToTrainer(best, best_score);
  if (config.warm_start) trainer->WarmStart(stop);
  return Status::Ok();
}

}  // namespace graphopt
