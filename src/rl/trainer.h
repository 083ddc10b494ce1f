// Trainer: one learned placer being trained on one graph and cluster, with the
// simulator as its environment. The search driver (rl/learned_search.h) runs any trainer
// the same way: progress, time limit, Ctrl-C, checkpoints, convergence trace; GO's
// PPO trainer (rl/ppo.h), ColocRL (rl/colocrl.h) and HDP (rl/hdp.h) implement it.
//
// Contract:
//  - Step() does one training iteration: sample plans from the policy, simulate them
//    (BatchSimulator, every core), update the policy. It keeps the best plan it has
//    seen (PlanScore order: fitting plans first, then faster).
//  - Rewards are relative to reference_us() (the best baseline's step time, set by the
//    driver before the first step), so one configuration fits graphs of any scale.
//  - Deterministic: the same seed and config give the same plans and parameters at
//    one thread, and a trainer restored from a checkpoint continues exactly as an
//    uninterrupted one would.
//  - Checkpoints: SaveCheckpoint writes the trainer's own files into an existing
//    folder (policy, optimizer, state), each atomically (write then rename);
//    LoadCheckpoint restores them and fails with a message naming the file if they
//    are missing, corrupt or for another configuration.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "rl/local_search.h"  // PlanScore
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

struct TrainerStepStats {
  int64_t step = 0;                  // steps done after this one
  double mean_reward = 0;
  double best_reward_in_batch = 0;
  double best_step_us_in_batch = 0;  // best sampled plan of this step, inf if none fits
  int oom_samples = 0;
  double loss = 0;
  double entropy = 0;  // mean entropy per decision
  double seconds = 0;
  bool improved = false;  // the best plan changed in this step
  // How far the step's samples were from the trainer's best plan before the step:
  // the mean fraction of units placed elsewhere, of ops at another priority level,
  // of ops with another fusion flag (-1: no best plan yet, the task is not decided,
  // or the trainer does not measure it).
  double units_off = -1;
  double levels_off = -1;
  double fuse_off = -1;
};

class Trainer {
 public:
  virtual ~Trainer() = default;

  // "go", "colocrl", "hdp".
  virtual std::string method() const = 0;

  // The step time rewards are relative to (> 0).
  virtual void set_reference_us(double reference_us) = 0;
  virtual double reference_us() const = 0;

  // A plan found elsewhere (a baseline, the local search). A trainer that can learn
  // from it keeps it as its best if it is better (and returns true); one that cannot
  // (the published ColocRL and HDP) ignores it and returns false.
  virtual bool OfferPlan(const Plan& plan, const PlanScore& score) = 0;
  // Supervised steps towards the best plan before reinforcement learning; returns the
  // mean probability per decision reached by the task that imitates it least (0 if
  // the trainer has no warm start).
  virtual double WarmStart(const std::function<bool()>& stop) {
    (void)stop;
    return 0;
  }

  virtual TrainerStepStats Step() = 0;

  virtual const Plan& best_plan() const = 0;
  virtual const PlanScore& best_score() const = 0;
  virtual int64_t step() const = 0;
  virtual int64_t plans_simulated() const = 0;

  virtual Status SaveCheckpoint(const std::string& dir) = 0;
  virtual Status LoadCheckpoint(const std::string& dir) = 0;
  // The names (inside the folder) of the files SaveCheckpoint writes; LoadCheckpoint
  // needs every one of them.
  virtual std::vector<std::string> CheckpointFiles() const = 0;
};

}  // namespace graphopt
