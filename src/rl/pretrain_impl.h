// Inside pre-training (rl/pretrain.h): the state of a run, shared by the training
// loop (pretrain.cc) and its checkpoints (pretrain_checkpoint.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "dist/world.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/checkpoint.h"
#include "rl/ppo.h"
#include "rl/pretrain.h"
#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

// One task's environment: its graph, simulator, policy input and trainer (the trainer
// refers to the others, so the environment is built in place and never moved).
struct PretrainEnv {
  PretrainTask task;
  Graph graph;
  std::unique_ptr<Simulator> sim;
  PolicyInput input;
  std::unique_ptr<BatchSimulator> batch;
  std::unique_ptr<PpoTrainer> trainer;
};

// One of the G graphs of a step, run by this rank: slot g trains task round * G + g.
struct PretrainSlot {
  int64_t slot = 0;
  std::unique_ptr<PretrainEnv> env;  // null between rounds
  PretrainTaskRecord record;
  TrainerStepStats last;  // its last step
};

struct Pretrainer::Impl {
  using Clock = std::chrono::steady_clock;

  PretrainConfig config;
  PretrainStream stream;
  GoPolicyConfig policy_config;
  GoPolicy policy{nullptr};
  std::string init_fingerprint;  // of config.init_policy's weights ("": a fresh network)
  std::shared_ptr<torch::optim::Adam> optimizer;  // shared by every trainer; null before the first
  World* world = nullptr;
  int graphs = 1;             // G
  int64_t round = 0;          // this round trains tasks round * G .. round * G + G - 1
  int task_step = 0;          // steps done on this round's tasks
  double entropy_coef = 0;
  // Resumed at a round's end: the next round's trainers load this checkpoint's weights.
  std::string pending_weights;
  std::vector<PretrainSlot> slots;  // this rank's in this round, in slot order (empty between rounds)
  // Counters of every run; tasks: on rank 0, the records of the finished rounds (the
  // current round's are the slots', gathered when needed).
  PretrainResult result;
  double elapsed_offset = 0;
  Clock::time_point start;

  Impl(PretrainConfig c, PretrainStream s) : config(std::move(c)), stream(std::move(s)) {}

  double Seconds() const { return elapsed_offset + std::chrono::duration<double>(Clock::now() - start).count(); }
  // Everything that decides the run's decisions (budgets, threads and ranks may change;
  // graphs per step are checked apart: a run that does not set them takes the
  // checkpoint's).
  CheckpointIdentity Identity() const;
  // This round's slots of this rank (no environments yet). With one graph per rank,
  // slot g is rank g's; with more graphs than ranks, the round's graphs are dealt by
  // their op counts, largest first, each to the rank with the fewest ops so far (a
  // step waits for the slowest rank). A function of the round alone, so every rank
  // and every resumed run deals alike.
  void AssignSlots();

  // Task `index`'s environment; its record (reference, teacher) in *record if not null.
  StatusOr<std::unique_ptr<PretrainEnv>> BuildTask(int64_t index, PretrainTaskRecord* record);
  // The round's slots (AssignSlots) and their environments (new trainers, the run's
  // entropy coefficient; the pending weights loaded).
  Status StartRound();
  // One data-parallel step of every slot (pretrain.h).
  Status TrainStep();
  // The slots' gradients made the mean over all G slots (summed over the ranks).
  Status CombineGradients();
  // Every slot's current record, on rank 0 in slot order (empty elsewhere). Collective.
  StatusOr<std::vector<PretrainTaskRecord>> GatherRecords();

  // Checkpoints (pretrain_checkpoint.cc). Save is collective: it writes a checkpoint
  // if the run has a folder and returns the current round's records (GatherRecords;
  // none between rounds). Load is called by every rank and returns whether it resumed.
  StatusOr<std::vector<PretrainTaskRecord>> Save();
  StatusOr<bool> Load();
};

// A task record as JSON and back (pretrain_checkpoint.cc).
nlohmann::json PretrainRecordJson(const PretrainTaskRecord& r);
StatusOr<PretrainTaskRecord> PretrainRecordFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace graphopt
