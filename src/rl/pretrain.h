// Pre-training: one GO policy trained by PPO (rl/ppo.h) over a stream of graphs and
// clusters (rl/pretrain_tasks.h), so that it plans graphs it never saw: zero-shot
// (rl/zero_shot.h) or after a few fine-tuning steps (LearnedSearchConfig::pretrained).
//
// The policy and one Adam are shared by every task: task i gets a PPO trainer of its
// own (its graph's input, simulator and reward reference, a running baseline and
// best plan of its own), which trains the shared policy with the shared optimizer
// for steps_per_task steps before the stream moves on (the GO paper switches batch
// of graphs every 1,000 steps on its GPUs; here a task is a few hundred ms a step,
// so the default switches after 40). The graph embedding of the network (parameter
// superposition) conditions it on the graph; the devices are inputs, so the clusters
// may differ from task to task. The entropy bonus decays over the whole run, not per
// task. The reward's reference is the fastest of three cheap baselines (single
// device, TensorFlow default, the human expert), so that rewards are on one scale
// across tasks; with imitate_baselines, the best of every baseline is the task's first
// best plan (a teacher).
//
// Graphs per step (G, data-parallel): a step trains G tasks together, as GO pre-trains
// on batches of graphs: slot g (0 <= g < G) trains tasks g, G + g, 2G + g, ... (all
// slots switch task together every steps_per_task steps); each slot's trainer samples
// and scores its plans and adds its gradient, and one Adam step follows with their
// mean. Under MPI (dist/world.h: `mpirun -np N`, N <= G) each rank runs some of the
// slots (with G = N rank g runs slot g; with G > N a round's graphs are dealt to the
// ranks by op count, largest first to the least loaded, since a step waits for its
// slowest rank) and the gradients are summed over the ranks (World::SumAll) before the
// step, so every rank takes the same step and holds the same policy. With one rank
// and G = 2 the gradients of the two slots add up in place, with two ranks in the sum:
// the same float additions (a + b == b + a), so -np 1 and -np 2 give the same policy
// bit for bit at a fixed thread count; with G >= 3 the order of the additions
// differs between rank layouts (rounding-level differences that the sampling then
// amplifies). G = 1 is the plain one-task-at-a-time run.
//
// Checkpoints (checkpoint_dir, every checkpoint_every steps and at the end): a folder
// step-<S>/ per checkpoint with the shared weights (policy.pt, optimizer.pt, written by
// rank 0) and slot-<g>/ per slot (the trainer's state, ppo_state.json and its best
// plan, written by the slot's rank); then rank 0 writes pretrain_state.json (the
// stream's position, counters, the options that decide the run, a record of every
// task, the folder of the checkpoint), atomically, and removes the older step-*
// folders. A run stopped at any moment (a killed rank included) leaves the last
// complete checkpoint named by the state. A run whose folder holds a checkpoint
// resumes from it exactly, with any number of ranks up to G: the slots are the
// graphs', not the ranks'. No LibTorch in this header.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "policy/features.h"
#include "policy/go_policy_config.h"
#include "rl/ppo_config.h"
#include "rl/pretrain_tasks.h"

namespace graphopt {

struct PretrainConfig {
  PretrainStreamOptions stream;  // its seed is set from `seed` by Create
  int steps_per_task = 40;
  int64_t max_steps = 0;       // 0: no limit
  double time_limit_s = 1800;  // this run's wall time (<= 0: no limit)
  GoPolicyConfig policy;        // the network (policy/go_policy_config.h); its seed: seed + 1 if left at 1
  // A policy file (SaveGoPolicy) to start from instead of a fresh network: its network
  // and weights, trained on with a fresh optimizer and entropy schedule (e.g. a policy
  // pre-trained under another simulator, or on fewer graphs). `policy` must then be
  // left at its defaults: the network is the file's. "": a fresh network.
  std::string init_policy;
  PpoConfig ppo;               // each task's PPO trainer (rl/ppo_config.h)
  int units_per_device = kDefaultUnitsPerDevice;  // decision units, as PolicySampling::units_per_device
  // Graphs trained together per step (G, above). 0: the checkpoint's when resuming,
  // else one per rank.
  int graphs_per_step = 0;
  // A teacher per task: every baseline (plain and with greedy fusion) is planned and
  // the fastest that fits is offered to the task's trainer as its best plan, so that it
  // joins every batch and PPO's imitation term pulls the policy towards it (the
  // policy's own samples replace it once one is faster). Off: the policy learns from
  // its own samples alone.
  bool imitate_baselines = false;
  // With imitate_baselines: the teacher's placement and fusion are imitated, not its
  // priority levels (it has none; read at level 0, imitating it teaches the scheduling
  // head level 0 for every op): its copy in each batch takes the levels of the step's
  // first sample (PpoTrainer::OfferPlanWithSampledLevels). Measured without GNMT: the
  // head still settles on level 0 (docs/experiments/history-pretrain.md, "Teachers' plans
  // without their levels").
  bool sample_teacher_levels = false;
  uint64_t seed = 0;
  int threads = 0;             // simulator and LibTorch threads (<= 0: every core)
  std::string checkpoint_dir;  // "": no checkpoints
  int checkpoint_every = 50;   // steps
};

// What pre-training did on one task.
struct PretrainTaskRecord {
  PretrainTask task;
  int num_units = 0;
  std::string reference;      // the baseline of the reward's reference
  double reference_us = 0;
  int steps = 0;              // steps trained on it
  double first_batch_us = 0;  // fastest fitting sample of its first step (0: none fit)
  double last_batch_us = 0;   // of its last step
  double best_us = 0;         // fastest fitting sample of any of its steps
  double seconds = 0;         // wall time, set-up included
};

struct PretrainProgress {
  int64_t step = 0;  // steps done (all runs)
  double seconds = 0;
  int64_t plans = 0;
  const PretrainTask* task = nullptr;  // the first of the step's tasks
  int graphs = 1;                     // tasks trained together in a step
  int task_step = 0;            // steps done on this task
  double batch_best_ratio = 0;  // fastest fitting sample of the step / reference (0: none fit)
};

struct PretrainResult {
  int64_t steps = 0;
  int64_t plans = 0;
  double seconds = 0;  // wall time of every run
  std::vector<PretrainTaskRecord> tasks;  // in stream order, every run
  std::string stop_reason;  // "steps", "time limit", "interrupted"
  bool resumed = false;
  int graphs_per_step = 1;
  int ranks = 1;
  std::string init_fingerprint;  // of PretrainConfig::init_policy's weights ("": none)
};

class Pretrainer {
 public:
  // Fails on bad options (stream, policy, PPO).
  static StatusOr<std::unique_ptr<Pretrainer>> Create(PretrainConfig config);
  ~Pretrainer();

  // Trains until max_steps, the time limit or `stop` (on any rank). Resumes from the
  // checkpoint folder if it holds a checkpoint of a run with the same options. Under
  // MPI every rank calls it; the result's tasks and progress are rank 0's to report.
  StatusOr<PretrainResult> Run(const std::atomic<bool>* stop = nullptr,
                               const std::function<void(const PretrainProgress&)>& progress = nullptr);
  // Saves the policy (policy/go_policy.h SaveGoPolicy, atomic); every rank holds it.
  Status SavePolicy(const std::string& path);
  // A fingerprint of the policy's parameters (FNV-1a of their bytes, in hex): equal
  // exactly when every parameter is bit for bit the same (policy files are not
  // byte-stable: the archive's layout varies from save to save).
  std::string PolicyFingerprint() const;
  // The network trained: PretrainConfig::policy, or the init_policy file's.
  const GoPolicyConfig& policy_config() const;
  // The policy's parameters (the floats every step sums over the ranks, plus one
  // flag per parameter tensor).
  int64_t ParameterCount() const;

 private:
  struct Impl;
  explicit Pretrainer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The report of a run as JSON ("graphopt-pretrain-report", version 1): the options
// (with "init": the policy file started from, and its fingerprint), the counters, the
// policy's fingerprint and the task records.
std::string PretrainReportJson(const PretrainConfig& config, const PretrainResult& result,
                               const std::string& fingerprint);

}  // namespace graphopt
