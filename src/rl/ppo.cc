#include "rl/ppo.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "rl/rollout.h"
#include "rl/training_util.h"

namespace graphopt {
namespace {

// The mean fraction of `samples`' decisions that differ from `best`'s, per task
// (TrainerStepStats::units_off and the rest).
void SampleDistance(const std::vector<Actions>& samples, const Actions& best, TrainerStepStats* stats) {
  auto off = [&](auto member) {
    const auto& b = best.*member;
    if (b.empty() || samples.empty()) return -1.0;
    double sum = 0;
    for (const Actions& a : samples) {
      const auto& v = a.*member;
      if (v.size() != b.size()) return -1.0;
      size_t differ = 0;
      for (size_t i = 0; i < v.size(); ++i) differ += v[i] != b[i];
      sum += static_cast<double>(differ) / static_cast<double>(v.size());
    }
    return sum / static_cast<double>(samples.size());
  };
  stats->units_off = off(&Actions::unit_device);
  stats->levels_off = off(&Actions::priority_level);
  stats->fuse_off = off(&Actions::fuse);
}

// The trunk's part of a forward pass, without gradient (the heads recompute the rest).
PolicyOutput DetachedTrunk(const PolicyOutput& out) {
  PolicyOutput t;
  t.node_states = out.node_states.detach();
  t.device_embeddings = out.device_embeddings.detach();
  t.graph_embedding = out.graph_embedding.detach();
  if (out.film.defined()) t.film = out.film.detach();
  return t;
}

}  // namespace

Status PpoTrainer::set_world(World* world) {
  ranks_ = DataParallel();
  GO_ASSIGN_OR_RETURN(ranks_, DataParallel::Over(world, config_.samples_per_step));
  return Status::Ok();
}

PpoTrainer::PpoTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input, GoPolicy policy,
                       PpoConfig config, uint64_t seed)
    : sim_(simulator),
      batch_(batch),
      input_(input),
      policy_(std::move(policy)),
      config_(config),
      tuning_(input, config, policy_->config().tasks),
      builder_(simulator.graph(), simulator.cluster(), simulator.cost_model(), input, config.critical_path_priorities),
      seed_(seed) {
  const Status valid = config_.Validate();
  GO_CHECK_MSG(valid.ok(), valid.message());
  GO_CHECK(batch_ != nullptr);
  tensors_ = ToTensors(input_);
  optimizer_ = tuning_.NewAdam(policy_);
  entropy_coef_ = config_.entropy;
  config_.warm_start_level = std::min(config_.warm_start_level, policy_->config().priority_levels - 1);
}

double PpoTrainer::Reward(const PlanScore& score) const {
  if (!score.scored()) return -10.0 - config_.oom_penalty;
  const double r = -std::sqrt(std::max(0.0, score.step_time_us) / reference_us_);
  return score.oom ? r - config_.oom_penalty : r;
}

bool PpoTrainer::OfferPlan(const Plan& plan, const PlanScore& score) {
  if (!score.BetterThan(best_score_)) return false;
  best_plan_ = plan;
  best_score_ = score;
  best_actions_ = PlanToActions(input_, plan, config_.warm_start_level);
  has_best_actions_ = true;
  best_levels_sampled_ = false;
  return true;
}

bool PpoTrainer::OfferPlanWithSampledLevels(const Plan& plan, const PlanScore& score) {
  if (!OfferPlan(plan, score)) return false;
  best_levels_sampled_ = true;
  return true;
}

void PpoTrainer::set_best(const Plan& plan, const PlanScore& score, const Actions* actions) {
  best_plan_ = plan;
  best_score_ = score;
  best_actions_ = actions != nullptr ? *actions : PlanToActions(input_, plan, config_.warm_start_level);
  has_best_actions_ = true;
  best_levels_sampled_ = false;
}

void PpoTrainer::FreezeTrunk() {
  if (tuning_.frozen()) return;
  tuning_.Freeze(policy_, tensors_);
  cached_trunk_ = PolicyOutput();
  optimizer_ = tuning_.NewAdam(policy_);
}

PolicyOutput PpoTrainer::Forward() {
  if (!tuning_.frozen()) return policy_->forward(tensors_);
  return tuning_.Forward(policy_, tensors_);
}

void PpoTrainer::DropTrunkGradients() {
  const std::vector<torch::Tensor> heads = policy_->HeadParameters();
  for (const torch::Tensor& p : policy_->parameters()) {
    const bool head = std::any_of(heads.begin(), heads.end(), [&](const torch::Tensor& h) { return h.is_same(p); });
    if (!head) p.mutable_grad() = torch::Tensor();
  }
}

void PpoTrainer::UseOptimizer(std::shared_ptr<torch::optim::Adam> optimizer) {
  GO_CHECK(optimizer != nullptr);
  GO_CHECK_MSG(!tuning_.frozen(), "a trainer with a frozen trunk has an optimizer of its own");
  const auto& params = optimizer->param_groups().at(0).params();
  const std::vector<torch::Tensor> mine = policy_->parameters();
  GO_CHECK_MSG(params.size() == mine.size(), "the shared optimizer trains another policy");
  for (size_t i = 0; i < mine.size(); ++i) GO_CHECK_MSG(params[i].is_same(mine[i]), "the shared optimizer trains another policy");
  optimizer_ = std::move(optimizer);
}

double PpoTrainer::WarmStart(const std::function<bool()>& stop) {
  if (!has_best_actions_) return 0;
  ScopedFlushDenormal flush;
  policy_->train();
  if (config_.frozen_trunk) {
    FreezeTrunk();
  } else if (!tuning_.frozen()) {
    cached_trunk_ = PolicyOutput();  // the whole network changes: the next step computes the trunk
  }
  double prob = 0;
  for (int i = 0; i < config_.warm_start_steps; ++i) {
    if (ranks_.AnyRank(stop && stop())) break;
    const PolicyOutput out = Forward();
    Evaluation e = policy_->Evaluate(tensors_, out, {best_actions_});
    if (best_levels_sampled_) {
      // Levels the plan does not have are not imitated: no scheduling task here.
      e.scheduling_log_prob = torch::zeros_like(e.scheduling_log_prob);
      e.scheduling_decisions = torch::zeros_like(e.scheduling_decisions);
    }
    prob = e.LeastTaskProbability();
    if (ranks_.AnyRank(prob >= config_.warm_start_target)) break;
    optimizer_->zero_grad();
    // Per task, as the PPO ratio: a mean over all decisions is the scheduling and
    // fusion decisions' (one per op), and left the few dozen unit placements where
    // they were (GNMT-4: 0.25 per unit on 4 devices after 40 steps).
    (-e.TaskMeanLogProb().mean()).backward();
    ranks_.AverageGradients(TrainedParameters());
    if (config_.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(TrainedParameters(), config_.max_grad_norm);
    optimizer_->step();
  }
  return prob;
}

PolicyOutput PpoTrainer::StepForward(bool heads_only) {
  return heads_only ? policy_->Heads(tensors_, cached_trunk_) : Forward();
}

PpoStepStats PpoTrainer::Step() {
  Rollout();
  for (int epoch = 0; epoch < config_.epochs; ++epoch) {
    ZeroGrad();
    Backward(epoch);
    ranks_.SumGradients(TrainedParameters());
    OptimizerStep();
  }
  return FinishStep();
}

void PpoTrainer::Rollout() {
  GO_CHECK_MSG(!pending_.active, "Rollout twice without FinishStep");
  pending_ = PendingStep();
  pending_.active = true;
  pending_.start = std::chrono::steady_clock::now();
  PpoStepStats& stats = pending_.stats;
  stats.step = step_;
  const int rank = ranks_.rank();
  const int share = ranks_.Share(config_.samples_per_step);
  Rng rng(TrainingStepSeed(RankSeed(seed_, rank), step_));
  policy_->train();

  // Sample from one forward pass (its graph serves the first epoch too). Between the
  // trunk_every-th steps the heads run on the last trunk step's output.
  const bool caching = !tuning_.frozen() && config_.trunk_every > 1;
  pending_.heads_only = caching && cached_trunk_.node_states.defined() && step_ % config_.trunk_every != 0;
  std::vector<Actions>& actions = pending_.actions;
  {
    ScopedFlushDenormal flush;
    pending_.out = StepForward(pending_.heads_only);
    if (caching && !pending_.heads_only) cached_trunk_ = DetachedTrunk(pending_.out);
    const int coupled = static_cast<int>(std::lround(coupled_fraction_ * share));
    if (share > coupled) actions = policy_->Sample(tensors_, pending_.out, rng, share - coupled, config_.temperature);
    if (coupled > 0) {
      for (Actions& a :
           policy_->Sample(tensors_, pending_.out, rng, coupled, config_.temperature, true, coupled_by_layer_,
                           coupled_uniform_)) {
        actions.push_back(std::move(a));
      }
    }
  }
  const int sampled = static_cast<int>(actions.size());
  if (has_best_actions_) SampleDistance(actions, best_actions_, &stats);
  pending_.best_in_batch = config_.include_best && has_best_actions_ && rank == 0;
  if (pending_.best_in_batch) {
    actions.push_back(best_actions_);
    // An offered plan without levels of its own: the first sample's (share >= 1 on rank 0).
    if (best_levels_sampled_ && !actions.front().priority_level.empty()) {
      actions.back().priority_level = actions.front().priority_level;
    }
  }
  const std::vector<Plan> plans = builder_.BuildAll(actions, batch_->num_threads());
  std::vector<StatusOr<SimResult>> results = batch_->Run(plans);
  plans_simulated_ += static_cast<int64_t>(plans.size());

  const int b = static_cast<int>(actions.size());
  std::vector<float> rewards(static_cast<size_t>(b));
  stats.best_step_us_in_batch = std::numeric_limits<double>::infinity();
  stats.best_reward_in_batch = -std::numeric_limits<double>::infinity();
  last_sample_score_ = PlanScore();
  for (int i = 0; i < b; ++i) {
    PlanScore score;
    if (results[static_cast<size_t>(i)].ok()) score = PlanScore::Of(*results[static_cast<size_t>(i)]);
    if (i < sampled && score.BetterThan(last_sample_score_)) {
      last_sample_score_ = score;
      last_sample_plan_ = plans[static_cast<size_t>(i)];
    }
    rewards[static_cast<size_t>(i)] = static_cast<float>(Reward(score));
    stats.mean_reward += rewards[static_cast<size_t>(i)] / b;
    if (i < sampled) {
      if (score.oom) ++stats.oom_samples;
      if (score.fits()) stats.best_step_us_in_batch = std::min(stats.best_step_us_in_batch, score.step_time_us);
      stats.best_reward_in_batch = std::max(stats.best_reward_in_batch, static_cast<double>(rewards[static_cast<size_t>(i)]));
    }
    if (score.BetterThan(best_score_)) {
      best_score_ = score;
      best_plan_ = plans[static_cast<size_t>(i)];
      best_actions_ = actions[static_cast<size_t>(i)];
      has_best_actions_ = true;
      best_levels_sampled_ = false;
      stats.improved = true;
    }
  }

  // Data-parallel: the whole batch's mean and spread.
  pending_.batch_total = b;
  double spread = 0;
  if (ranks_.distributed()) {
    const DataParallel::Moments m = ranks_.BatchMoments(rewards);
    pending_.batch_total = m.count;
    stats.mean_reward = m.mean;
    spread = m.spread;
  }
  // Advantages against the running baseline.
  if (!has_baseline_) {
    running_baseline_ = stats.mean_reward;
    has_baseline_ = true;
  }
  torch::Tensor reward = torch::from_blob(rewards.data(), {b}, torch::kFloat).clone();
  torch::Tensor advantage = reward - static_cast<float>(running_baseline_);
  // A floor on the spread: a batch of near-equal rewards must not blow up into huge advantages.
  if (config_.normalize_advantages && pending_.batch_total > 1) {
    advantage = ranks_.distributed() ? advantage / static_cast<float>(std::max(spread, 0.01))
                                  : advantage / reward.std().clamp_min(0.01);
  }
  pending_.advantage = advantage;
  running_baseline_ = config_.baseline_decay * running_baseline_ + (1 - config_.baseline_decay) * stats.mean_reward;
}

void PpoTrainer::ZeroGrad() { optimizer_->zero_grad(); }

void PpoTrainer::Backward(int epoch) {
  GO_CHECK_MSG(pending_.active, "Backward without Rollout");
  ScopedFlushDenormal flush;
  if (epoch > 0) pending_.out = StepForward(pending_.heads_only);
  const std::vector<Actions>& actions = pending_.actions;
  const int b = static_cast<int>(actions.size());
  const torch::Tensor& advantage = pending_.advantage;
  const Evaluation e = policy_->Evaluate(tensors_, pending_.out, actions);
  const torch::Tensor log_prob = e.TaskMeanLogProb();
  if (epoch == 0) pending_.old_log_prob = log_prob.detach();
  const torch::Tensor ratio = torch::exp(log_prob - pending_.old_log_prob);
  const torch::Tensor surrogate =
      torch::min(ratio * advantage, torch::clamp(ratio, 1 - config_.clip, 1 + config_.clip) * advantage);
  // The bonus is on placement only when placement is decided: the scheduling and
  // fusion heads start from priors (GoPolicyConfig::level_prior) that a bonus
  // on their entropy would pull towards uniform random schedules.
  const bool placed = e.placement_decisions.max().item<double>() > 0;
  const torch::Tensor entropy_each = placed ? e.placement_entropy / e.placement_decisions.clamp_min(1)
                                            : e.entropy / e.num_decisions.clamp_min(1);
  const torch::Tensor entropy = entropy_each.mean();
  // Data-parallel: this rank's part of the whole batch's means (the ranks' gradients add up).
  torch::Tensor loss = !ranks_.distributed()
                           ? -surrogate.mean() - entropy_coef_ * entropy
                           : (-surrogate.sum() - entropy_coef_ * entropy_each.sum()) / pending_.batch_total;
  // Self-imitation: raise the probability of the best plan so far (the last member
  // of the batch), so samples explore around it.
  if (pending_.best_in_batch && config_.imitation > 0) loss = loss - config_.imitation * log_prob[b - 1];
  loss.backward();
  if (pending_.heads_only) DropTrunkGradients();
  if (epoch == 0) {
    pending_.stats.loss = loss.item<double>();
    pending_.stats.entropy = entropy.item<double>();
  }
}

void PpoTrainer::OptimizerStep() {
  ScopedFlushDenormal flush;
  if (config_.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(TrainedParameters(), config_.max_grad_norm);
  optimizer_->step();
}

PpoStepStats PpoTrainer::FinishStep() {
  GO_CHECK_MSG(pending_.active, "FinishStep without Rollout");
  PpoStepStats stats = pending_.stats;
  entropy_coef_ = std::max(config_.entropy_min, entropy_coef_ * config_.entropy_decay);
  ++step_;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - pending_.start).count();
  pending_ = PendingStep();
  return stats;
}

Plan PpoTrainer::GreedyPlan() {
  torch::NoGradGuard no_grad;
  Actions a;
  {
    ScopedFlushDenormal flush;
    const PolicyOutput out = Forward();
    a = policy_->Greedy(tensors_, out);
  }
  return builder_.Build(a);
}

PpoTrainer::State PpoTrainer::state() const {
  State s;
  s.step = step_;
  s.plans_simulated = plans_simulated_;
  s.running_baseline = running_baseline_;
  s.has_baseline = has_baseline_;
  s.entropy_coef = entropy_coef_;
  s.reference_us = reference_us_;
  return s;
}

void PpoTrainer::set_state(const State& s) {
  step_ = s.step;
  plans_simulated_ = s.plans_simulated;
  running_baseline_ = s.running_baseline;
  has_baseline_ = s.has_baseline;
  entropy_coef_ = s.entropy_coef;
  if (s.reference_us > 0) reference_us_ = s.reference_us;
}

}  // namespace graphopt
