// PPO training of the GO policy on one graph and cluster, with the simulator as the
// environment.
//
// One Step(): a forward pass of the policy, `samples_per_step` action sets sampled
// from it (plus, optionally, the best plan found so far as one more member of the
// batch, so that plans found by other means, the baselines and the local search,
// pull the policy towards them), their plans (rl/rollout.h ActionsToPlan) simulated
// together on every core (BatchSimulator), one reward per plan, advantages against a
// running baseline (an exponential moving average of the batch mean rewards),
// normalized by the batch's standard deviation, then `epochs` passes of the clipped
// PPO objective with an entropy bonus, Adam and gradient-norm clipping. With
// trunk_every = k > 1, only every k-th step runs the trunk (forward and backward);
// the steps between sample from and train the heads on that step's trunk output.
//
// Reward: -sqrt(step time / reference), the reference being the best baseline's step
// time (so a plan as fast as the best baseline scores -1), minus `oom_penalty` for a
// plan that does not fit in memory (GO's shape). The ratio is formed from the mean
// log-probability per decision of each task, summed over the tasks
// (Evaluation::TaskMeanLogProb): a sample has one decision per unit and per op,
// tens of thousands, and the ratio of their summed log-probabilities would leave the
// clipping range after any update; per task, so that a few dozen block placements
// weigh as much as tens of thousands of per-op scheduling decisions. The entropy
// bonus is on the placement alone (see Step).
//
// The trainer keeps the best plan it has seen (PlanScore order: fitting plans first)
// with its score, the step it was found at and the number of plans simulated by
// then. Deterministic: the same seed, policy and config give the same samples,
// rewards and parameters at one thread (the rng of step i is derived from the seed
// and i, so a resumed trainer continues exactly as an uninterrupted one).
#pragma once

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "dist/world.h"
#include "policy/go_policy.h"
#include "rl/data_parallel.h"
#include "rl/head_tuning.h"
#include "rl/ppo_config.h"
#include "rl/local_search.h"
#include "rl/rollout.h"
#include "rl/trainer.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

using PpoStepStats = TrainerStepStats;

class PpoTrainer : public Trainer {
 public:
  // `simulator`, `batch` and `input` (from the same graph and cluster) must outlive
  // the trainer; the policy is shared (the caller may save it).
  PpoTrainer(const Simulator& simulator, BatchSimulator* batch, const PolicyInput& input, GoPolicy policy,
             PpoConfig config, uint64_t seed);

  // The step time rewards are relative to (> 0).
  std::string method() const override { return "go"; }
  void set_reference_us(double reference_us) override { reference_us_ = reference_us; }
  double reference_us() const override { return reference_us_; }

  // Offers a plan found elsewhere (baseline, local search): kept if better than the
  // best. Returns true if it became the best.
  bool OfferPlan(const Plan& plan, const PlanScore& score) override;
  // OfferPlan for a plan whose priority levels are not to be learned: a teacher's plan
  // has none (PlanToActions reads every op at warm_start_level, and imitating that
  // teaches the scheduling head one level for every op). Until a plan of the trainer's
  // own becomes the best, the best plan's copy in each batch takes the priority levels
  // of the step's first sample: its placement and fusion are imitated, its levels are
  // the policy's and are scored like any sample's (rl/pretrain.h,
  // PretrainConfig::sample_teacher_levels). Checkpoints keep the mark.
  bool OfferPlanWithSampledLevels(const Plan& plan, const PlanScore& score);
  // The best plan is an offered one whose levels each batch samples (above).
  bool best_levels_sampled() const { return best_levels_sampled_; }
  // Supervised steps that raise the policy's probability of the best plan's actions
  // (at most warm_start_steps), each task's mean log-probability per decision
  // weighing the same; stops once every task's mean probability per decision reaches
  // warm_start_target. Returns the least of them (Evaluation::LeastTaskProbability).
  // With PpoConfig::frozen_trunk the trunk is frozen first (FreezeTrunk) and the
  // steps train the heads alone. stop (may be null) is polled between steps. A best
  // plan offered with sampled levels (OfferPlanWithSampledLevels) is imitated without
  // its scheduling task.
  double WarmStart(const std::function<bool()>& stop = nullptr) override;
  PpoStepStats Step() override;
  // Step() in parts, so that several trainers (of several graphs, in one process or
  // over MPI ranks) train one policy together (rl/pretrain.h): Rollout() samples and
  // scores this step's plans and sets their advantages; then for each epoch
  // e < config().epochs: ZeroGrad() once, Backward(e) of every trainer (their
  // gradients add up in the shared policy), the caller combines them (the sum over the
  // ranks, divided by the number of trainers), and OptimizerStep() once (gradient
  // clipping, the shared Adam); FinishStep() ends every trainer's step. Step() is
  // exactly these calls for one trainer.
  void Rollout();
  void ZeroGrad();
  void Backward(int epoch);
  void OptimizerStep();
  PpoStepStats FinishStep();
  // Data-parallel over the ranks of `world` (rl/data_parallel.h; null or a world of
  // one: one process, as without it). Every rank calls Step() and WarmStart()
  // together. In a step, rank r samples its share from the rng of
  // (RankSeed(seed, r), step) (rank 0's is one process's) and only rank 0 adds the best
  // plan; each rank's loss is its part of the whole batch's mean, and the gradients
  // are summed over the ranks before every optimizer step (averaged in the warm start,
  // whose steps end on every rank together). Fails if a rank would have no sample.
  Status set_world(World* world);

  const Plan& best_plan() const override { return best_plan_; }
  const PlanScore& best_score() const override { return best_score_; }
  int64_t step() const override { return step_; }
  int64_t plans_simulated() const override { return plans_simulated_; }
  // policy.pt, optimizer.pt and ppo_state.json in `dir`; with trunk_every > 1 also
  // trunk.pt, the trunk output the steps until the next trunk step reuse; with a unit
  // bias, unit_bias.pt; with a fusion bias, fusion_bias.pt.
  Status SaveCheckpoint(const std::string& dir) override;
  Status LoadCheckpoint(const std::string& dir) override;
  std::vector<std::string> CheckpointFiles() const override { return {"policy.pt", "optimizer.pt", "ppo_state.json"}; }
  // The checkpoint in two parts, for trainers that share one policy and optimizer
  // (rl/pretrain.h): the weights (policy.pt, optimizer.pt) and the trainer's own
  // state (ppo_state.json, its best plan, the cached trunk output). LoadState restores
  // the state alone (the weights are the shared policy's; a trainer with a frozen
  // trunk has weights of its own and is refused); each is read and checked before
  // anything changes.
  Status SaveWeights(const std::string& dir);
  Status SaveState(const std::string& dir);
  Status LoadState(const std::string& dir);
  // From now on only the heads learn, on the trunk's output computed now, with the
  // unit and fusion biases the config asks for (rl/head_tuning.h), and an Adam of
  // their own (which becomes optimizer()). Idempotent. Checkpoints record it; a
  // resumed trainer recomputes the trunk.
  void FreezeTrunk();
  bool trunk_frozen() const { return tuning_.frozen(); }
  GoPolicy& policy() { return policy_; }
  // The trainer's Adam, to share: a trainer of another graph that is given it by
  // UseOptimizer goes on with its moments, so that one policy learns over many graphs
  // with one optimizer (rl/pretrain.h). Both trainers must train the same policy,
  // whole (trunk not frozen).
  std::shared_ptr<torch::optim::Adam> shared_optimizer() { return optimizer_; }
  void UseOptimizer(std::shared_ptr<torch::optim::Adam> optimizer);
  // Loads the weights of a checkpoint (policy.pt and optimizer.pt of `dir`, both
  // checked before either is used) into this trainer's policy and, in place, its
  // optimizer; the trainer's own state (step, baseline, best plan) is left as is.
  Status LoadWeights(const std::string& dir);
  const PpoConfig& config() const { return config_; }
  // The defaults of the tasks not decided go into every plan built from now on
  // (rl/task_defaults.h; it must outlive the trainer).
  void set_task_defaults(const TaskDefaults* defaults) { builder_.set_task_defaults(defaults); }
  // The fraction (in [0, 1]) of the following steps' samples whose placement is drawn
  // coupled (policy/coupled_sampling.h: the units of a sample move together, each
  // unit's device still drawn from its own distribution), the rest independently; the
  // loss takes their log-probabilities as an independent sample's. Not part of the
  // trainer's state: its caller sets it before each step (LearnedSearch: while exploring).
  void set_coupled_fraction(double fraction) { coupled_fraction_ = std::clamp(fraction, 0.0, 1.0); }
  // Coupled samples couple the units of each layer alone (GoPolicyImpl::Sample's
  // by_layer); set like the fraction.
  void set_coupled_by_layer(bool by_layer) { coupled_by_layer_ = by_layer; }
  // With by_layer, the probability that a layer of a coupled sample takes a device
  // drawn uniformly from the allowed ones (GoPolicyImpl::Sample's layer_uniform); set
  // like the fraction.
  void set_coupled_uniform(double p) { coupled_uniform_ = std::clamp(p, 0.0, 1.0); }
  // The greedy (most likely) plan of the current policy and its score.
  Plan GreedyPlan();

  // The best plan sampled in the last step (not the included best) and its score
  // (unscored before the first step, or if no sample could be simulated).
  const Plan& last_sample_plan() const { return last_sample_plan_; }
  const PlanScore& last_sample_score() const { return last_sample_score_; }

  // Trainer state besides the policy and the optimizer, for checkpoints.
  struct State {
    int64_t step = 0;
    int64_t plans_simulated = 0;
    double running_baseline = 0;
    bool has_baseline = false;
    double entropy_coef = 0;
    double reference_us = 0;
  };
  State state() const;
  void set_state(const State& state);

 private:
  // Sets the best plan without comparing (checkpoint restore); actions may be null
  // (then PlanToActions of the plan).
  void set_best(const Plan& plan, const PlanScore& score, const Actions* actions = nullptr);
  double Reward(const PlanScore& score) const;
  // The policy's output: a full forward pass, or the heads on the frozen trunk.
  PolicyOutput Forward();
  // The parameters the optimizer trains (all, or the heads once the trunk is frozen).
  std::vector<torch::Tensor> TrainedParameters() { return tuning_.Parameters(policy_); }
  // Leaves no gradient on the parameters outside the heads (not a zero one: Adam would
  // still move them by its momentum), so that the optimizer step trains the heads alone.
  void DropTrunkGradients();
  // The trunk output a checkpoint cached (trunk.pt), its shapes checked against the
  // graph and the policy.
  StatusOr<PolicyOutput> LoadTrunkCache(const std::string& path) const;
  // policy.pt and optimizer.pt of a checkpoint, read and checked against this
  // trainer's policy (the optimizer's state tried on a scratch Adam over the heads if
  // `frozen`, else over every parameter); nothing is changed.
  struct Weights {
    GoPolicy policy{nullptr};
    std::shared_ptr<torch::serialize::InputArchive> optimizer;
  };
  StatusOr<Weights> ReadWeights(const std::string& dir, bool frozen) const;
  // ppo_state.json of `dir` with the files it names (best plan re-simulated, trunk
  // cache), read and checked; nothing is changed.
  struct SavedState {
    State state;
    bool frozen = false;
    PolicyOutput cached_trunk;
    HeadTuning::Biases biases;  // undefined if the state has none
    bool has_best = false;
    Plan best_plan;
    PlanScore best_score;
    Actions best_actions;
    bool best_levels_sampled = false;
  };
  StatusOr<SavedState> ReadState(const std::string& dir) const;
  // What the trainer's state file belongs to (rl/checkpoint.h): the PPO config.
  CheckpointIdentity StateIdentity() const;
  // Applies a read state (not the weights): the trunk cache, counters, best plan.
  void ApplyState(const SavedState& saved);
  PolicyOutput StepForward(bool heads_only);
  // Copies the read policy's parameters and buffers into the policy.
  void CopyParameters(const Weights& weights);

  const Simulator& sim_;
  BatchSimulator* batch_;
  const PolicyInput& input_;
  PolicyTensors tensors_;
  GoPolicy policy_;
  std::shared_ptr<torch::optim::Adam> optimizer_;
  PpoConfig config_;
  HeadTuning tuning_;  // FreezeTrunk
  double coupled_fraction_ = 0;
  bool coupled_by_layer_ = false;
  double coupled_uniform_ = 0;
  // trunk_every > 1, trunk not frozen: the last trunk step's output; no gradient.
  PolicyOutput cached_trunk_;
  PlanBuilder builder_;  // the plans of sampled actions (rl/rollout.h)
  uint64_t seed_;
  DataParallel ranks_;  // set_world
  double reference_us_ = 1;
  int64_t step_ = 0;
  int64_t plans_simulated_ = 0;
  double running_baseline_ = 0;
  bool has_baseline_ = false;
  double entropy_coef_ = 0;
  Plan best_plan_;
  PlanScore best_score_;
  Actions best_actions_;
  bool has_best_actions_ = false;
  bool best_levels_sampled_ = false;  // OfferPlanWithSampledLevels
  Plan last_sample_plan_;
  PlanScore last_sample_score_;
  // Between Rollout() and FinishStep(): the step's samples and what their epochs need.
  struct PendingStep {
    bool active = false;
    std::chrono::steady_clock::time_point start;
    PpoStepStats stats;
    PolicyOutput out;
    std::vector<Actions> actions;
    torch::Tensor advantage;
    torch::Tensor old_log_prob;
    double batch_total = 0;  // plans in the step's batch over every rank (data-parallel)
    bool best_in_batch = false;
    bool heads_only = false;
  };
  PendingStep pending_;
};

}  // namespace graphopt
