// LearnedSearch's state (rl/learned_search.h), shared by learned_search.cc (the search's steps),
// learned_search_phases.cc (its phases), learned_search_ranks.cc (data parallelism) and
// learned_search_checkpoint.cc (its checkpoints). Internal: include rl/learned_search.h.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/rng.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "rl/baseline_scores.h"
#include "rl/checkpoint.h"
#include "rl/learned_search.h"
#include "rl/local_search.h"
#include "rl/ppo.h"
#include "rl/sample_polish.h"
#include "rl/task_defaults.h"
#include "rl/trainer.h"
#include "rl/training_util.h"
#include "sim/batch.h"

namespace graphopt {
namespace learned_search_internal {

using Clock = std::chrono::steady_clock;

// The seed of the local search's moves at a step.
inline uint64_t PolishSeed(uint64_t seed, int64_t step) {
  return MixBits((seed + 0x51ED270B27D5A1ull) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(step));
}

// The convergence trace as JSON (the convergence file's points, the checkpoint's trace).
nlohmann::json TraceJson(const std::vector<ConvergencePoint>& trace);

}  // namespace learned_search_internal

struct LearnedSearch::Impl {
  const Simulator& sim;
  LearnedSearchConfig config;
  GoPolicyConfig policy_config;
  PpoConfig ppo_config;
  PolicyInput input;
  PolicyInputOptions input_options;
  TaskDefaults defaults;  // of the tasks the search does not decide
  Plan units_plan;        // the plan the units are split by (empty: none)
  std::unique_ptr<BatchSimulator> batch;
  std::unique_ptr<LocalSearch> local_search;  // the polish (ingredient 4)
  std::unique_ptr<SamplePolish> sample_polish;  // ingredient 5
  std::unique_ptr<Trainer> trainer;
  PpoTrainer* ppo = nullptr;  // the trainer, if the method is go

  Plan best;
  PlanScore best_score;
  TopPlans top;  // config.keep_plans of the plans offered
  TopPlans baseline_top;  // with config.keep_plans: the baselines' plans, one per placement
  // Ingredient 6: whether the policy still explores.
  bool exploring = false;
  CheckpointIdentity identity;  // set by Create when checkpoints are on
  LearnedSearchResult result;
  double elapsed_offset = 0;  // seconds of earlier runs (resume)
  SearchHandles handles;      // as Create got them
  // Data-parallel (SearchHandles::world when distributed; null: one process), and the
  // plans the other ranks had simulated at the last ShareBest.
  World* world = nullptr;
  int64_t others_plans = 0;
  learned_search_internal::Clock::time_point start;

  Impl(const Simulator& s, LearnedSearchConfig c, SearchHandles h)
      : sim(s),
        config(std::move(c)),
        top(config.keep_plans),
        baseline_top(config.keep_plans > 0 ? kMaxTopPlans : 0),
        handles(std::move(h)) {}

  // A fresh network, or the pre-trained one.
  StatusOr<GoPolicy> NewPolicy() const;

  // A GO trainer on `input` with NewPolicy's policy, the defaults of the tasks not
  // decided and this run's world; with frozen_start and a pre-trained policy, its
  // trunk frozen. LibTorch's errors are thrown.
  StatusOr<std::unique_ptr<PpoTrainer>> NewGoTrainer();

  // The pre-trained policy's zero-shot plan as the first plan.
  Status PlanZeroShot();

  // The GO policy explores on its own (ingredient 6) instead of imitating the best plan.
  bool Explores() const { return ppo != nullptr && exploring; }
  bool ExplorationOver(double run_seconds, int64_t steps_this_run) const;
  // Plans found by other means join the trainer's batches.
  bool TrainerImitates() const { return trainer != nullptr && !Explores(); }
  // The trainer is offered a plan found outside it (the zero-shot plan, a baseline's,
  // the local search's); with sample_offered_levels, GO's trainer imitates its
  // placement and fusion and samples its priority levels (PpoTrainer::OfferPlanWithSampledLevels).
  void OfferToTrainer(const Plan& plan, const PlanScore& score);

  double Seconds() const {
    return elapsed_offset + std::chrono::duration<double>(learned_search_internal::Clock::now() - start).count();
  }
  int64_t Plans() const { return result.plans_simulated + others_plans; }
  // The seed of this rank's own draws (the local search's moves).
  uint64_t Seed() const { return RankSeed(config.seed, world != nullptr ? world->rank() : 0); }
  bool Root() const { return world == nullptr || world->root(); }

  // Records a new best plan if it is better (and keeps it among the top plans).
  bool Offer(const Plan& plan, const PlanScore& score, const std::string& source);

  // A plan's result, as the batch scores plans: simulated, or measured with a measured
  // reward (SearchHandles::measure).
  StatusOr<SimResult> Score(const Plan& plan) const { return std::move(batch->Run({plan}).front()); }

  // A plan made elsewhere (a baseline, the zero-shot plan) with the defaults of the
  // tasks not decided, re-scored if they apply; false if it could not be simulated.
  bool WithDefaults(Plan* plan, PlanScore* score);

  // The search's trainer (a fresh one, or one on new units) plans with the defaults.
  void UseDefaults(PpoTrainer* trainer_of_go) {
    if (!defaults.all()) trainer_of_go->set_task_defaults(&defaults);
  }

  // The start of a run (fresh or `resumed`): every baseline scored, seeding the best
  // plan on a fresh run with baselines on; on a fresh run also the pre-trained policy's
  // zero-shot plan, the single-device plan when neither baselines nor a trainer give
  // one, whether the policy explores first, and the trainer's reference and first
  // offered plan. Returns the reward's reference: the best plain baseline that fits,
  // else the fastest baseline, else 1 s.
  StatusOr<double> Start(bool resumed);

  // Ingredient 4: a slice of `evaluations` simulations (0: until converged) of the
  // local search on the best plan, its moves seeded by `step`; an improvement becomes
  // the best plan and is offered to the trainer when it imitates.
  void PolishBest(int64_t step, int64_t evaluations, const std::function<bool()>& stop);

  // Ingredient 3: one step of the trainer, whose best plan is offered as the best
  // plan; returns the best step time of its batch.
  StatusOr<double> TrainerStep();

  // The progress report after a step.
  LearnedSearchProgress Progress(double last_batch_best_us) const;

  // The end of a run stopped for `reason`: the best plan shared over the ranks, the
  // counters, the last checkpoint, the result.
  StatusOr<LearnedSearchResult> Finish(const std::string& reason);

  // Every baseline and its greedy-fusion variant, scored as the search scores plans;
  // with `seed_best`, each that fits is offered as the best plan (in order, so the
  // trace counts the plans simulated by then).
  void RunBaselines(bool seed_best);

  // The policy input with its units split by `plan`'s placement, and a fresh GO
  // trainer on it (the policy is not trained yet when this happens).
  Status SplitUnitsBy(const Plan& plan);

  // Ingredient 5: one slice of the sample polish (rl/sample_polish.h) on the
  // policy's plan, whose result is offered as the best plan.
  void PolishPolicySample(const std::function<bool()>& stop);

  // Ingredients 2, 3 and 5 after the exploration (or from the start): the units are
  // split by the best plan, the policy imitates it, and plans found by any means join
  // its batches.
  Status StartImitation(double reference, const std::function<bool()>& stop);

  // Data-parallel (learned_search_ranks.cc; every rank calls these together). Agree: rank
  // 0's stop reason and end of the exploration become every rank's, and `converged`
  // holds if it holds on every rank. ShareBest: the best plan of any rank (the first
  // rank's of the best score) becomes every rank's best, with its source; the trainer
  // is offered it when it imitates, or when it explores and the plan is a policy
  // sample; the polish restarts from it; the plans simulated and the best policy
  // sample are brought up to date over the ranks.
  struct Agreement {
    std::string reason;
    bool explore_over = false;
    bool converged = false;
  };
  StatusOr<Agreement> Agree(const Agreement& mine);
  Status ShareBest();

  // Checkpoints (learned_search_checkpoint.cc): saved every checkpoint_every steps and at
  // the end; restored if the folder has one (returns whether it did), every value
  // checked before use (checkpoint.h): identity, ranges, files, re-simulated plans.
  Status SaveCheckpoint();
  // The files of a checkpoint besides state.json.
  std::vector<std::string> CheckpointFiles() const;
  StatusOr<bool> LoadCheckpoint();
  // The top plans of a checkpoint's state (LoadCheckpoint).
  Status LoadTopPlans(const nlohmann::json& state, const CheckpointStore& store, const std::string& path);
};

}  // namespace graphopt
