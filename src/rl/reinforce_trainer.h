// ReinforceTrainer: the training loop of the published REINFORCE placers, ColocRL
// (rl/colocrl.h) and HDP (rl/hdp.h). The base class owns the loop; a placer gives two
// hooks: SampleBatch (the placements of one step, from its network) and
// LogProbAndEntropy (the log-probability of each of them, and the policy's entropy).
//
// One step (Step, final): seed the step's rng from the seed and the step number,
// sample the batch (denormals flushed), build each placement's plan (rl/rollout.h
// PlanBuilder: critical-path scheduling, the same for every method; with the
// framework's defaults for the tasks the config leaves), simulate them in one
// BatchSimulator batch, score them (rl/reinforce.h ScoreReinforceBatch: the reward
// against the reference, the best plan kept), then one Adam step on
// loss = -mean((R - b) log p) with the gradient norm clipped, and move the baseline
// b <- decay * b + (1 - decay) * mean reward. No entropy bonus, no advantage
// normalization, no warm start: the published methods. Plans found elsewhere are
// ignored (OfferPlan returns false).
//
// Determinism and checkpoints: the rng of step i is derived from the seed and i, so
// the same seed and config give the same plans and parameters at one thread, and a
// trainer restored from a checkpoint (<method>_policy.pt, _optimizer.pt, _state.json)
// continues as an uninterrupted one.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "core/status.h"
#include "policy/actions.h"
#include "policy/features.h"
#include "rl/reinforce.h"
#include "rl/rollout.h"
#include "rl/trainer.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

// What the loop takes from a placer's config.
struct ReinforceSettings {
  std::string reward;            // "sqrt" or "linear" (PlacementReward)
  double oom_step_factor = 10;   // a plan that does not fit counts as this x reference
  double baseline_decay = 0.9;   // of the moving-average baseline
  double max_grad_norm = 1.0;    // <= 0: no clipping
  bool critical_path_priorities = true;  // of the plans built (rl/rollout.h)
  std::string config_text;       // the config's ToString: the checkpoints' identity
  std::function<double(int64_t step)> learning_rate;  // Adam's rate at each step
};

// The settings of a ColocRlConfig or HdpConfig, with its learning-rate schedule.
template <class Config>
ReinforceSettings ReinforceSettingsOf(const Config& c, std::function<double(int64_t)> learning_rate) {
  return {c.reward, c.oom_step_factor, c.baseline_decay, c.max_grad_norm, c.critical_path_priorities, c.ToString(),
          std::move(learning_rate)};
}

class ReinforceTrainer : public Trainer {
 public:
  void set_reference_us(double reference_us) final;
  double reference_us() const final { return state_.reference_us; }
  bool OfferPlan(const Plan& plan, const PlanScore& score) final;
  TrainerStepStats Step() final;
  const Plan& best_plan() const final { return state_.best_plan; }
  const PlanScore& best_score() const final { return state_.best_score; }
  int64_t step() const final { return state_.step; }
  int64_t plans_simulated() const final { return state_.plans_simulated; }
  Status SaveCheckpoint(const std::string& dir) final;
  Status LoadCheckpoint(const std::string& dir) final;
  std::vector<std::string> CheckpointFiles() const final { return ReinforceCheckpointFiles(method()); }

 protected:
  // The log-probability [batch] of each sampled placement (with its graph for the
  // gradient) and the policy's entropy per decision, for the step's statistics.
  struct BatchLogProb {
    torch::Tensor log_prob;
    double entropy = 0;
  };

  // The checks of a placer's Create: a batch simulator, a unit to place, and the
  // defaults of the tasks its plans leave to the framework (config's `tasks`);
  // errors start with `name`.
  static StatusOr<TaskDefaults> Prepare(const std::string& name, const Simulator& simulator, BatchSimulator* batch,
                                        const PolicyInput& input, const std::string& tasks);
  // `make()` (a new trainer), or an error naming `name` if LibTorch throws.
  template <class T, class Make>
  static StatusOr<std::unique_ptr<T>> Build(const std::string& name, Make make) {
    try {
      return std::unique_ptr<T>(make());
    } catch (const c10::Error& e) {
      return InternalError(name + ": cannot build the policy: " + e.what_without_backtrace());
    }
  }

  // `simulator`, `batch` and `input` (from the same graph and cluster) must outlive
  // the trainer.
  ReinforceTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input,
                   ReinforceSettings settings, TaskDefaults defaults, uint64_t seed);
  // Called once by the placer's constructor: the network the loop trains (owned by
  // the placer, living as long as the trainer) and its Adam optimizer at rate `lr`.
  void SetModel(torch::nn::Module* module, double lr);

  // Hook 1: the placements of one step, sampled with `rng` (the placer keeps what
  // LogProbAndEntropy needs).
  virtual std::vector<Actions> SampleBatch(Rng& rng) = 0;
  // Hook 2: log p and entropy of the batch SampleBatch returned last.
  virtual BatchLogProb LogProbAndEntropy() = 0;

  const Simulator& sim_;
  BatchSimulator* batch_;
  const PolicyInput& input_;
  uint64_t seed_;
  TaskDefaults defaults_;  // of the tasks its plans leave to the framework
  PlanBuilder builder_;    // the plans of sampled actions (rl/rollout.h), with defaults_
  ReinforceState state_;

 private:
  ReinforceSettings settings_;
  torch::nn::Module* module_ = nullptr;
  std::unique_ptr<torch::optim::Adam> optimizer_;
};

}  // namespace graphopt
