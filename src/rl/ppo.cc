#include "rl/ppo.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/files.h"
#include "core/strings.h"
#include "rl/rollout.h"
#include "rl/score_json.h"
#include "rl/training_util.h"

namespace graphopt {

Status PpoConfig::Validate() const {
  auto bad = [](const std::string& m) { return InvalidArgument("PPO config: " + m); };
  if (samples_per_step < 1) return bad("samples_per_step must be >= 1");
  if (epochs < 1) return bad("epochs must be >= 1");
  if (!(clip > 0)) return bad("clip must be > 0");
  if (!(lr > 0)) return bad("lr must be > 0");
  if (entropy < 0 || entropy_min < 0) return bad("entropy coefficients must be >= 0");
  if (!(entropy_decay > 0 && entropy_decay <= 1)) return bad("entropy_decay must be in (0, 1]");
  if (!(baseline_decay >= 0 && baseline_decay < 1)) return bad("baseline_decay must be in [0, 1)");
  if (oom_penalty < 0) return bad("oom_penalty must be >= 0");
  if (!(temperature > 0)) return bad("temperature must be > 0");
  if (warm_start_steps < 0) return bad("warm_start_steps must be >= 0");
  if (warm_start_level < 0) return bad("warm_start_level must be >= 0");
  if (imitation < 0) return bad("imitation must be >= 0");
  return Status::Ok();
}

std::string PpoConfig::ToString() const {
  return StrFormat(
      "samples=%d,epochs=%d,clip=%g,lr=%g,entropy=%g,entropy_decay=%g,entropy_min=%g,baseline_decay=%g,"
      "normalize_advantages=%d,oom_penalty=%g,temperature=%g,max_grad_norm=%g,include_best=%d,"
      "critical_path_priorities=%d,warm_start_level=%d,warm_start_steps=%d,warm_start_target=%g,imitation=%g",
      samples_per_step, epochs, clip, lr, entropy, entropy_decay, entropy_min, baseline_decay, normalize_advantages ? 1 : 0,
      oom_penalty, temperature, max_grad_norm, include_best ? 1 : 0, critical_path_priorities ? 1 : 0, warm_start_level,
      warm_start_steps, warm_start_target, imitation);
}

StatusOr<PpoConfig> PpoConfig::FromString(const std::string& text) {
  PpoConfig c;
  GO_ASSIGN_OR_RETURN(auto values, ParseKeyValues(text, "PPO config"));
  for (const auto& [key, value] : values) {
    const std::string context = "PPO config " + key;
    int* int_field = key == "samples" || key == "samples_per_step" ? &c.samples_per_step
                     : key == "epochs"                              ? &c.epochs
                     : key == "warm_start_level"                    ? &c.warm_start_level
                     : key == "warm_start_steps"                    ? &c.warm_start_steps
                                                                    : nullptr;
    double* double_field = key == "clip"                ? &c.clip
                           : key == "lr"                ? &c.lr
                           : key == "entropy"           ? &c.entropy
                           : key == "entropy_decay"     ? &c.entropy_decay
                           : key == "entropy_min"       ? &c.entropy_min
                           : key == "baseline_decay"    ? &c.baseline_decay
                           : key == "oom_penalty"       ? &c.oom_penalty
                           : key == "temperature"       ? &c.temperature
                           : key == "max_grad_norm"     ? &c.max_grad_norm
                           : key == "warm_start_target" ? &c.warm_start_target
                           : key == "imitation"         ? &c.imitation
                                                        : nullptr;
    bool* bool_field = key == "normalize_advantages"       ? &c.normalize_advantages
                       : key == "include_best"             ? &c.include_best
                       : key == "critical_path_priorities" ? &c.critical_path_priorities
                                                           : nullptr;
    if (int_field != nullptr) {
      GO_ASSIGN_OR_RETURN(int64_t v, ParseInt(value, context));
      *int_field = static_cast<int>(std::clamp<int64_t>(v, -(1 << 30), 1 << 30));
    } else if (double_field != nullptr) {
      GO_ASSIGN_OR_RETURN(*double_field, ParseDouble(value, context));
    } else if (bool_field != nullptr) {
      GO_ASSIGN_OR_RETURN(*bool_field, ParseBool(value, context));
    } else {
      return InvalidArgument("PPO config: unknown key \"" + key + "\"");
    }
  }
  GO_RETURN_IF_ERROR(c.Validate());
  return c;
}

PpoTrainer::PpoTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input, GoPolicy policy,
                       PpoConfig config, uint64_t seed)
    : sim_(simulator),
      batch_(batch),
      input_(input),
      policy_(std::move(policy)),
      config_(config),
      builder_(simulator.graph(), simulator.cluster(), simulator.cost_model(), input, config.critical_path_priorities),
      seed_(seed) {
  const Status valid = config_.Validate();
  GO_CHECK_MSG(valid.ok(), valid.message());
  GO_CHECK(batch_ != nullptr);
  PolicyInput broken = input_;
  BreakDeviceSymmetry(&broken);
  tensors_ = ToTensors(broken);
  optimizer_ = std::make_unique<torch::optim::Adam>(policy_->parameters(), torch::optim::AdamOptions(config_.lr));
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
  return true;
}

void PpoTrainer::set_best(const Plan& plan, const PlanScore& score, const Actions* actions) {
  best_plan_ = plan;
  best_score_ = score;
  best_actions_ = actions != nullptr ? *actions : PlanToActions(input_, plan, config_.warm_start_level);
  has_best_actions_ = true;
}

double PpoTrainer::WarmStart(const std::function<bool()>& stop) {
  if (!has_best_actions_) return 0;
  ScopedFlushDenormal flush;
  policy_->train();
  double prob = 0;
  for (int i = 0; i < config_.warm_start_steps; ++i) {
    if (stop && stop()) break;
    const PolicyOutput out = policy_->forward(tensors_);
    const Evaluation e = policy_->Evaluate(tensors_, out, {best_actions_});
    const torch::Tensor mean_log_prob = (e.log_prob / e.num_decisions.clamp_min(1)).mean();
    prob = std::exp(mean_log_prob.item<double>());
    if (prob >= config_.warm_start_target) break;
    optimizer_->zero_grad();
    (-mean_log_prob).backward();
    if (config_.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(policy_->parameters(), config_.max_grad_norm);
    optimizer_->step();
  }
  return prob;
}

PpoStepStats PpoTrainer::Step() {
  const auto start = std::chrono::steady_clock::now();
  PpoStepStats stats;
  stats.step = step_;
  Rng rng(TrainingStepSeed(seed_, step_));
  policy_->train();

  // Sample from one forward pass (its graph serves the first epoch too).
  PolicyOutput out;
  std::vector<Actions> actions;
  {
    ScopedFlushDenormal flush;
    out = policy_->forward(tensors_);
    actions = policy_->Sample(tensors_, out, rng, config_.samples_per_step, config_.temperature);
  }
  const int sampled = static_cast<int>(actions.size());
  const bool best_in_batch = config_.include_best && has_best_actions_;
  if (best_in_batch) actions.push_back(best_actions_);
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
      stats.improved = true;
    }
  }

  // Advantages against the running baseline.
  if (!has_baseline_) {
    running_baseline_ = stats.mean_reward;
    has_baseline_ = true;
  }
  torch::Tensor reward = torch::from_blob(rewards.data(), {b}, torch::kFloat).clone();
  torch::Tensor advantage = reward - static_cast<float>(running_baseline_);
  // A floor on the spread: a batch of near-equal rewards must not blow up into huge advantages.
  if (config_.normalize_advantages && b > 1) advantage = advantage / reward.std().clamp_min(0.01);
  running_baseline_ = config_.baseline_decay * running_baseline_ + (1 - config_.baseline_decay) * stats.mean_reward;

  {
    ScopedFlushDenormal flush;
    torch::Tensor old_log_prob;
    for (int epoch = 0; epoch < config_.epochs; ++epoch) {
      if (epoch > 0) out = policy_->forward(tensors_);
      const Evaluation e = policy_->Evaluate(tensors_, out, actions);
      const torch::Tensor log_prob = e.TaskMeanLogProb();
      if (epoch == 0) old_log_prob = log_prob.detach();
      const torch::Tensor ratio = torch::exp(log_prob - old_log_prob);
      const torch::Tensor surrogate =
          torch::min(ratio * advantage, torch::clamp(ratio, 1 - config_.clip, 1 + config_.clip) * advantage);
      // The bonus is on placement only when placement is decided: the scheduling and
      // fusion heads start from priors (GoPolicyConfig::level_prior) that a bonus
      // on their entropy would pull towards uniform random schedules.
      const bool placed = e.placement_decisions.max().item<double>() > 0;
      const torch::Tensor entropy = placed ? (e.placement_entropy / e.placement_decisions.clamp_min(1)).mean()
                                           : (e.entropy / e.num_decisions.clamp_min(1)).mean();
      torch::Tensor loss = -surrogate.mean() - entropy_coef_ * entropy;
      // Self-imitation: raise the probability of the best plan so far (the last member
      // of the batch), so samples explore around it.
      if (best_in_batch && config_.imitation > 0) loss = loss - config_.imitation * log_prob[b - 1];
      optimizer_->zero_grad();
      loss.backward();
      if (config_.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(policy_->parameters(), config_.max_grad_norm);
      optimizer_->step();
      if (epoch == 0) {
        stats.loss = loss.item<double>();
        stats.entropy = entropy.item<double>();
      }
    }
  }
  entropy_coef_ = std::max(config_.entropy_min, entropy_coef_ * config_.entropy_decay);
  ++step_;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

Plan PpoTrainer::GreedyPlan() {
  torch::NoGradGuard no_grad;
  Actions a;
  {
    ScopedFlushDenormal flush;
    const PolicyOutput out = policy_->forward(tensors_);
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

Status PpoTrainer::SaveCheckpoint(const std::string& dir) {
  try {
    GO_RETURN_IF_ERROR(SaveGoPolicy(policy_, dir + "/policy.pt"));
    const std::string tmp = dir + "/optimizer.pt.tmp";
    torch::serialize::OutputArchive archive;
    optimizer_->save(archive);
    archive.save_to(tmp);
    if (std::rename(tmp.c_str(), (dir + "/optimizer.pt").c_str()) != 0) return IoError("cannot write " + dir + "/optimizer.pt");
  } catch (const std::exception& e) {
    return IoError("cannot write the checkpoint in " + dir + ": " + e.what());
  }
  const State s = state();
  nlohmann::json j{{"format", "graphopt-ppo-state"},
                   {"version", 1},
                   {"config", config_.ToString()},
                   {"step", s.step},
                   {"plans_simulated", s.plans_simulated},
                   {"running_baseline", s.running_baseline},
                   {"has_baseline", s.has_baseline},
                   {"entropy_coef", s.entropy_coef},
                   {"reference_us", s.reference_us},
                   {"best", PlanScoreToJson(best_score_)},
                   {"best_actions", nlohmann::json{{"unit_device", best_actions_.unit_device},
                                                   {"priority_level", best_actions_.priority_level},
                                                   {"fuse", best_actions_.fuse}}}};
  return WriteFileAtomic(dir + "/ppo_state.json", j.dump() + "\n");
}

Status PpoTrainer::LoadCheckpoint(const std::string& dir) {
  const std::string path = dir + "/ppo_state.json";
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  GO_ASSIGN_OR_RETURN(GoPolicy loaded, LoadGoPolicy(dir + "/policy.pt"));
  if (loaded->config().ToString() != policy_->config().ToString()) {
    return FailedPrecondition(dir + "/policy.pt: the checkpoint's policy config (" + loaded->config().ToString() +
                              ") differs from this run's (" + policy_->config().ToString() + ")");
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    if (j.value("format", "") != "graphopt-ppo-state" || j.value("version", 0) != 1) {
      return ParseError(path + ": not a PPO trainer state (format graphopt-ppo-state, version 1)");
    }
    {
      torch::NoGradGuard no_grad;
      auto dst = policy_->named_parameters();
      for (const auto& item : loaded->named_parameters()) dst[item.key()].copy_(item.value());
      auto dst_buffers = policy_->named_buffers();
      for (const auto& item : loaded->named_buffers()) dst_buffers[item.key()].copy_(item.value());
    }
    if (FileExists(dir + "/optimizer.pt")) {
      torch::serialize::InputArchive archive;
      archive.load_from(dir + "/optimizer.pt");
      optimizer_->load(archive);
    }
    State s;
    s.step = j.at("step").get<int64_t>();
    s.plans_simulated = j.at("plans_simulated").get<int64_t>();
    s.running_baseline = j.at("running_baseline").get<double>();
    s.has_baseline = j.at("has_baseline").get<bool>();
    s.entropy_coef = j.at("entropy_coef").get<double>();
    s.reference_us = j.at("reference_us").get<double>();
    set_state(s);
    Actions a;
    const nlohmann::json& ja = j.at("best_actions");
    a.unit_device = ja.at("unit_device").get<std::vector<int32_t>>();
    a.priority_level = ja.at("priority_level").get<std::vector<int32_t>>();
    a.fuse = ja.at("fuse").get<std::vector<uint8_t>>();
    const PlanScore best = PlanScoreFromJson(j.at("best"));
    if (a.unit_device.size() == static_cast<size_t>(input_.num_units) && best.scored()) {
      set_best(builder_.Build(a),
               best, &a);
    }
  } catch (const std::exception& e) {
    return ParseError(path + ": " + e.what());
  }
  return Status::Ok();
}

}  // namespace graphopt
