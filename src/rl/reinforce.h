// The REINFORCE plumbing of the published placers, ColocRL (rl/colocrl.h) and HDP
// (rl/hdp.h): the reward of a plan, the scoring of a batch against a running
// baseline, the trainer state besides the network and its optimizer, and that state's
// checkpoint files.
#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/features.h"
#include "rl/local_search.h"
#include "rl/rollout.h"
#include "rl/trainer.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

// -sqrt(step / reference) or -(step / reference); a plan that does not fit (or was
// not scored) counts as oom_step_factor * reference.
double PlacementReward(const PlanScore& score, double reference_us, const std::string& reward, double oom_step_factor);

// The trainer state of a REINFORCE placer besides its parameters and optimizer.
struct ReinforceState {
  int64_t step = 0;
  int64_t plans_simulated = 0;
  double baseline = 0;
  bool has_baseline = false;
  double reference_us = 1;
  Plan best_plan;
  PlanScore best_score;
  std::vector<int32_t> best_unit_device;  // actions of the best plan (empty: none yet)
};

// Scores one REINFORCE batch: the reward of every plan (results[i] is plans[i]'s,
// unit_devices[i] its actions), the batch statistics in *stats, the best plan in
// *state (plans of better samples are moved from), and the running baseline set to
// the first batch's mean reward. Returns the rewards.
// The defaults of the tasks a REINFORCE placer's plans leave to the framework
// (ColocRlConfig::tasks, HdpConfig::tasks): "placement", the framework's schedule and
// fusion; "all", none (the plans as built).
StatusOr<TaskDefaults> ReinforceTaskDefaults(const std::string& tasks, const Simulator& sim);

std::vector<float> ScoreReinforceBatch(const std::vector<StatusOr<SimResult>>& results, std::vector<Plan>* plans,
                                       const std::vector<std::vector<int32_t>>& unit_devices, const std::string& reward,
                                       double oom_step_factor, ReinforceState* state, TrainerStepStats* stats);

// Identity of a checkpoint: what must match to load it.
struct ReinforceCheckpointId {
  std::string method;  // "colocrl", "hdp": file prefix and format name
  std::string config;  // the config's ToString
  uint64_t seed = 0;
};

// Writes <dir>/<method>_policy.pt, _optimizer.pt and _state.json, each atomically.
Status SaveReinforceCheckpoint(const std::string& dir, const ReinforceCheckpointId& id, const Simulator& sim,
                               const PolicyInput& input, torch::nn::Module& module, torch::optim::Optimizer& optimizer,
                               const ReinforceState& state);
// Restores them into `module`, `optimizer` and `state` (the best plan rebuilt from
// its actions by `builder`, the trainer's); fails naming the file if one is missing, corrupt, or made for
// another graph, cluster, method, config or seed. Nothing is changed on failure.
// The files of a REINFORCE checkpoint of `method` ("<method>_policy.pt", ...).
std::vector<std::string> ReinforceCheckpointFiles(const std::string& method);
Status LoadReinforceCheckpoint(const std::string& dir, const ReinforceCheckpointId& id, const Simulator& sim,
                               const PolicyInput& input, const PlanBuilder& builder, torch::nn::Module& module,
                               torch::optim::Adam& optimizer, ReinforceState* state);

}  // namespace graphopt
