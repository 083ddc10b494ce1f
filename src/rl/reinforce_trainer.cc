#include "rl/reinforce_trainer.h"

#include <chrono>
#include <utility>

#include "rl/training_util.h"

namespace graphopt {

StatusOr<TaskDefaults> ReinforceTrainer::Prepare(const std::string& name, const Simulator& simulator,
                                                 BatchSimulator* batch, const PolicyInput& input,
                                                 const std::string& tasks) {
  if (batch == nullptr) return InvalidArgument(name + ": no batch simulator");
  if (input.num_units < 1) return InvalidArgument(name + ": the graph has no ops to place");
  return ReinforceTaskDefaults(tasks, simulator);
}

ReinforceTrainer::ReinforceTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                                   ReinforceSettings settings, TaskDefaults defaults, uint64_t seed)
    : sim_(simulator),
      batch_(batch),
      input_(input),
      seed_(seed),
      defaults_(std::move(defaults)),
      builder_(simulator.graph(), simulator.cluster(), simulator.cost_model(), input,
               settings.critical_path_priorities),
      settings_(std::move(settings)) {
  if (!defaults_.all()) builder_.set_task_defaults(&defaults_);
}

void ReinforceTrainer::SetModel(torch::nn::Module* module, double lr) {
  module_ = module;
  optimizer_ = std::make_unique<torch::optim::Adam>(module_->parameters(), torch::optim::AdamOptions(lr));
}

void ReinforceTrainer::set_reference_us(double reference_us) {
  if (reference_us > 0) state_.reference_us = reference_us;
}

bool ReinforceTrainer::OfferPlan(const Plan& plan, const PlanScore& score) {
  (void)plan;
  (void)score;
  return false;  // the published methods learn from their own samples only
}

TrainerStepStats ReinforceTrainer::Step() {
  GO_CHECK_MSG(module_ != nullptr, "a REINFORCE placer's constructor must call SetModel");
  const auto start = std::chrono::steady_clock::now();
  TrainerStepStats stats;
  Rng rng(TrainingStepSeed(seed_, state_.step));
  module_->train();
  std::vector<Actions> actions;
  {
    ScopedFlushDenormal flush;
    actions = SampleBatch(rng);
  }
  std::vector<Plan> plans = builder_.BuildAll(actions, batch_->num_threads());
  const std::vector<StatusOr<SimResult>> results = batch_->Run(plans);
  state_.plans_simulated += static_cast<int64_t>(actions.size());

  std::vector<std::vector<int32_t>> unit_devices;
  for (Actions& a : actions) unit_devices.push_back(std::move(a.unit_device));
  const std::vector<float> rewards = ScoreReinforceBatch(results, &plans, unit_devices, settings_.reward,
                                                         settings_.oom_step_factor, &state_, &stats);
  {
    ScopedFlushDenormal flush;
    const torch::Tensor advantage = torch::tensor(rewards, torch::kFloat) - static_cast<float>(state_.baseline);
    const BatchLogProb e = LogProbAndEntropy();
    const torch::Tensor loss = -(advantage * e.log_prob).mean();
    for (auto& group : optimizer_->param_groups()) {
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(settings_.learning_rate(state_.step));
    }
    optimizer_->zero_grad();
    loss.backward();
    if (settings_.max_grad_norm > 0) torch::nn::utils::clip_grad_norm_(module_->parameters(), settings_.max_grad_norm);
    optimizer_->step();
    stats.loss = loss.item<double>();
    stats.entropy = e.entropy;
  }
  state_.baseline = settings_.baseline_decay * state_.baseline + (1 - settings_.baseline_decay) * stats.mean_reward;
  ++state_.step;
  stats.step = state_.step;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

Status ReinforceTrainer::SaveCheckpoint(const std::string& dir) {
  return SaveReinforceCheckpoint(dir, {method(), settings_.config_text, seed_}, sim_, input_, *module_, *optimizer_,
                                 state_);
}

Status ReinforceTrainer::LoadCheckpoint(const std::string& dir) {
  return LoadReinforceCheckpoint(dir, {method(), settings_.config_text, seed_}, sim_, input_, builder_, *module_,
                                 *optimizer_, &state_);
}

}  // namespace graphopt
