// LearnedSearch: the search driver of every learned method on one graph and one
// cluster: it runs a Trainer (GO's PPO, ColocRL's or HDP's REINFORCE: rl/trainer.h)
// with the ingredients below around it, as `graphopt optimize` and the learned
// planners of the registry run it (the GO optimizer when the method is "go"). No
// LibTorch in this header (the trainer lives behind it), so the CLI can include it
// cheaply.
//
// Ingredients, each of which the config can switch off (for ablations):
//  1. baselines: every baseline (and its greedy-fusion variant) is planned and
//     simulated; the best plan that fits becomes the initial best plan, and the best
//     plain baseline's step time the reward's reference. The optimizer only ever
//     replaces its best plan by a strictly better one, so its result is never slower
//     than the best baseline: by construction, not by luck.
//  2. warm start: supervised steps that make the policy imitate the initial best plan
//     before PPO, so that its samples start around the best heuristic instead of
//     from a uniform placement.
//  3. PPO (rl/ppo.h): per step a batch of sampled plans simulated in parallel; the
//     best sampled plan replaces the best plan if it is better.
//  4. polish (rl/local_search.h): after each PPO step, a slice of local search (a
//     fixed number of simulations) on the best plan; improvements join the next PPO
//     batch, so the policy is pulled towards them.
//  5. sample polish: once the polish of the best plan has converged (a local
//     optimum), plans of the policy are polished instead (slices of the same size,
//     one descent carried across steps until it converges): the policy proposes
//     starting points in other basins, the local search descends from them, and a
//     descent that ends below the best plan replaces it (an iterated local search
//     whose perturbations the policy samples).
//  6. explore: for the first part of the budget (the fraction `explore` of this
//     run's time limit, of max_steps, of whichever is reached first with both, or,
//     without either, of kExploreStepsWithoutLimit steps),
//     the policy learns from its own samples alone, as it does without the search:
//     no plan found by other means joins its batches, no warm start, no plan units.
//     Once the polish of the best baseline has converged, the sample polish
//     descends from the best plan the policy has sampled (restarted whenever the
//     policy samples a better one): the policy proposes basins the heuristics do not
//     reach. Then the policy imitates the best plan found by any means (plan units,
//     warm start, the best plan in every batch; ingredients 2 and 3) and the sample
//     polish descends from its samples (ingredient 5), taking the best of the latest
//     batch whenever a descent has converged. explore=0: imitation from the start.
// The run stops at max_steps, the time limit, an external stop flag (Ctrl-C) or, with
// PPO off, when the local search has converged. It records a convergence trace (best
// step time against wall-clock seconds and plans simulated, with the ingredient that
// found each improvement). Checkpoints (policy, Adam state, trainer state, search
// cursor, trace and best plan) go to checkpoint_dir every checkpoint_every steps and
// at the end; a run whose checkpoint_dir holds a checkpoint resumes from it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/options.h"
#include "core/status.h"
#include "dist/world.h"
#include "policy/go_policy_config.h"
#include "rl/baseline_scores.h"
#include "rl/colocrl_config.h"
#include "rl/hdp_config.h"
#include "rl/local_search.h"
#include "rl/ppo_config.h"
#include "rl/zero_shot.h"
#include "sim/batch.h"
#include "sim/plan.h"
#include "sim/simulator.h"
#include "sim/top_plans.h"

namespace graphopt {

// The time limit of a search (optimize --time-limit, bench's per row) unless one is given.
inline constexpr double kDefaultSearchSeconds = 120;

// Steps the policy explores (ingredient 6) in a run with neither a time nor a step limit.
inline constexpr int64_t kExploreStepsWithoutLimit = 100;

// Ingredients 1-6 above, each of which an ablation can switch off.
struct SearchIngredients {
  bool baselines = true;       // 1: start from the best baseline plan
  bool warm_start = true;      // 2: imitate the starting plan before PPO
  bool train = true;           // 3: train the policy (PPO; the method's own trainer)
  bool polish = true;          // 4: local search on the best plan after each step
  bool polish_samples = true;  // 5: once that converged, local search on the policy's samples
  // With a heuristic start (baselines on): once the best baseline is polished, the
  // units are split by that plan's placement (PolicyInputOptions::split_by_device)
  // and the policy restarts on them, so it can express the plan it imitates exactly
  // and its samples are that plan with whole units moved. Never with the policy
  // alone (no plan from outside exists then).
  bool plan_units = true;
  // 6: the fraction of the budget (in [0, 1]) the policy explores.
  double explore = 0.5;
};

// The local search of ingredients 4 and 5.
struct PolishOptions {
  LocalSearchConfig search;  // its moves and batch (rl/local_search.h)
  int64_t evaluations = 48;  // simulations per step (<= 0: until converged)
};

// What the GO policy decides and how its samples are drawn.
struct PolicySampling {
  // Decision units: at most this many per device the policy may place on, parts of
  // a METIS partition of the graph (policy/units.h); 0: one per colocation group, as
  // GO decides.
  int units_per_device = kDefaultUnitsPerDevice;
  // PPO steps sample at least this many op decisions in all: samples_per_step grows
  // on graphs of fewer than step_ops / samples_per_step ops (StepSamples), so a step
  // costs about the same on any graph. 0: samples_per_step as given. Fine-tuning a
  // pre-trained policy (a budget of steps, not of seconds) takes kFinetuneStepOps.
  int64_t step_ops = 0;
  // The fraction of the exploring steps' samples whose placement is drawn coupled
  // (PpoTrainer::set_coupled_fraction: the units of a sample move together, as in the
  // zero-shot pass's coupled samples); imitating steps sample independently. 0 by
  // default: slower on the validation graphs (docs/experiments/history-pretrain.md,
  // "The exploring half of fine-tuning").
  double explore_coupled = 0;
  // Those samples couple the units of each layer alone (PpoTrainer::set_coupled_by_layer):
  // a sample moves whole layers, each apart, rather than every unit together.
  bool coupled_layers = false;
  // With coupled_layers, the probability that a layer of those samples takes a device
  // drawn uniformly from the allowed ones instead (PpoTrainer::set_coupled_uniform).
  double coupled_uniform = 0;
  // Plans offered to GO's trainer from outside it (the zero-shot plan, baselines, the
  // local search) have no priority levels of their own (read at level 0, the warm start
  // and the imitation teach level 0 for every op): with this, their placement and
  // fusion are imitated and their levels sampled from the policy
  // (PpoTrainer::OfferPlanWithSampledLevels; the warm start leaves the scheduling head
  // alone). Off by default: slower on the validation graphs
  // (docs/experiments/history-pretrain.md, "Teachers' plans without their levels").
  bool sample_offered_levels = false;
};

// A start from a pre-trained policy (go only).
struct PretrainedStart {
  // The policy file (rl/pretrain.h); "": a fresh network. Its network config is used
  // (LearnedSearchConfig::policy must be unset), and before any training its zero-shot
  // plan is the search's first plan (source "zero-shot"), a plan decoded from the
  // policy, so the policy alone may use it.
  std::string file;
  // That zero-shot pass (rl/zero_shot.h: the greedy plan, 128 independent samples,
  // 256 coupled ones, the fastest accelerator's and the memory-budgeted plans; on an
  // unseen machine the greedy plan is often far from the policy's best sample:
  // docs/policy-changelog.md, docs/experiments/2026-11-25-zero-shot-coupled-samples.md,
  // docs/experiments/2026-11-26-zero-shot-memory-budget.md). Its units_per_device,
  // threads and seed are the search's (SearchZeroShotOptions).
  ZeroShotOptions zero_shot;
  // Training starts with the scheduling head's output layer afresh
  // (GoPolicyImpl::RestartPriorityOutput, seeded by the seed): the pre-trained one puts
  // every unit on priority level 0 with certainty, so no sample tries another schedule
  // (docs/experiments/history-pretrain.md, "Fine-tuning with the scheduling head
  // afresh"). The zero-shot plan is the pre-trained policy's, before it.
  bool fresh_priority = false;
  // The trunk is frozen from the first step (as the warm start freezes it;
  // PpoConfig::frozen_trunk), so the exploring steps train the heads and, with
  // unit_bias, a logit per unit, instead of the whole network at lr: on an unseen
  // family the pre-trained placement is near uniform and the whole network barely
  // moves it in a few dozen steps. Off by default: slower on the validation graphs
  // (docs/experiments/history-pretrain.md, "The exploring half of fine-tuning").
  bool frozen_start = false;
};

// When the search stops, and the cores it uses.
struct SearchBudget {
  int64_t max_steps = 0;                        // 0: no limit
  double time_limit_s = kDefaultSearchSeconds;  // <= 0: no limit
  int threads = 0;                              // simulator and LibTorch threads (<= 0: every core)
};

struct SearchCheckpoints {
  std::string dir;  // "": no checkpoints; a folder holding one: the run resumes from it
  int every = 10;   // steps
};

// A method's own config: none (go, whose configs are `policy` and `ppo`), ColocRL's
// or HDP's.
using MethodConfigVariant = std::variant<std::monostate, ColocRlConfig, HdpConfig>;

// Every field has its default here; ParseLearnedSearchOptions sets them by key
// (kLearnedSearchOptions, docs/options.md).
struct LearnedSearchConfig {
  std::string method = "go";  // rl/methods.h LearnedMethodNames
  uint64_t seed = 0;
  // go: the network (policy/go_policy_config.h). Unset: the defaults or, with a
  // pre-trained file, the file's network (setting it then is an error).
  std::optional<GoPolicyConfig> policy;
  PpoConfig ppo;  // go: its PPO trainer (rl/ppo_config.h)
  // colocrl, hdp: their config, set through the method's descriptor (rl/methods.h
  // LearnedMethod::set_key); std::monostate: the method's defaults.
  MethodConfigVariant method_config;
  SearchIngredients ingredients;
  PolishOptions polish;
  PolicySampling sampling;
  PretrainedStart pretrained;
  // The tasks decided are the GO policy's (`policy` key tasks, default all; other
  // methods decide placement only, as published, and this does not apply to them);
  // the others take their defaults (rl/task_defaults.h) in every plan scored, the
  // baselines it starts from included. With placement not decided: the baseline
  // whose placement every plan keeps ("" is tf-default's).
  std::string fixed_placement;
  SearchBudget budget;
  SearchCheckpoints checkpoints;
  // How many of the best distinct plans the search offered the result keeps
  // (LearnedSearchResult::top_plans; optimize --verify executes them), at most
  // kMaxTopPlans; 0: only the best plan. Not an option key: it changes no plan.
  int keep_plans = 0;
};

// What a search runs with besides its config: handles that outlive it.
struct SearchHandles {
  // Data-parallel over the ranks of this world (go only; null or a world of one: one
  // process). Every rank runs the search with the same config and
  // the same policy: each PPO step's samples are shared out over the ranks and their
  // gradients summed (PpoTrainer::set_world); each rank's local search draws its own
  // moves (rank 0's are one process's); after every step the best plan of any rank
  // becomes every rank's (its source kept), and rank 0 decides when to stop and when
  // the exploration ends, so every rank takes the same steps. Rank 0 alone writes
  // checkpoints (which any number of ranks resumes) and reports progress; the result's
  // counts are over every rank. The bench's rows run one search per rank instead.
  World* world = nullptr;
  // A measured reward (ColocRL's, as published): every plan the search scores (the
  // trainer's samples, the local search's moves, the baselines and the reference) is
  // scored by this instead of the simulator, one after another (sim/batch.h
  // BatchSimulator::set_measure; exec/measured_reward.h measures on this machine's
  // cores). Null: simulated. A zero-shot pass from a pre-trained policy still ranks
  // its many samples by the simulator; its plan is measured when offered.
  PlanMeasure measure;
};

// step_ops of optimize --finetune-steps.
inline constexpr int64_t kFinetuneStepOps = 1 << 20;
// step_ops of the finetune preset and method: 6x kFinetuneStepOps
// (docs/experiments/history-pretrain.md, "Fine-tuning: a frozen trunk and more samples").
inline constexpr int64_t kFinetuneMethodStepOps = int64_t{6} << 20;

// The PPO samples per step of a graph of num_ops ops: samples_per_step, or more so
// that they hold at least step_ops ops in all (step_ops <= 0: samples_per_step).
int StepSamples(int samples_per_step, int64_t step_ops, int num_ops);

// The driver's own keys, each bound to a field of LearnedSearchConfig's groups, with
// their ranges and meanings (core/options.h; docs/options.md lists them).
extern const OptionTable<LearnedSearchConfig> kLearnedSearchOptions;

// The defaults of a method: go runs every ingredient; the published placers (colocrl,
// hdp) run as their papers describe them: no baseline seed, warm start or polish
// (the baselines are still scored, for the report). Fails on an unknown method.
StatusOr<LearnedSearchConfig> DefaultSearchConfig(const std::string& method);

// A named set of options: the key `preset=NAME` among the options, or `optimize
// --preset NAME`; the other keys given override its values.
struct SearchPreset {
  std::string name;
  std::string options;  // "key=value,..." as ParseLearnedSearchOptions takes them
  std::string summary;  // one line
};
// go-one, policy-alone, search-only, finetune.
const std::vector<SearchPreset>& SearchPresets();
// NotFound naming the known presets.
StatusOr<const SearchPreset*> FindSearchPreset(const std::string& name);

// Parses "key=value,..." over `base` (core/options.h has the rule), whose method
// must be set; a key `preset=NAME` applies the preset's options first, then the
// others: a key of kLearnedSearchOptions sets the driver's field; any other key is the
// method's (LearnedMethod::set_key): for go, a key of kPpoOptions sets `ppo`, one of
// kGoPolicyOptions `policy`; for colocrl and hdp, one of its table sets
// `method_config`; an unknown key fails listing the keys of the driver and the
// method. The result is validated by the method.
StatusOr<LearnedSearchConfig> ParseLearnedSearchOptions(const std::string& text, LearnedSearchConfig base);
// The options of `c` that change the search's decisions, as one string (a checkpoint's
// identity: rl/checkpoint_identity.h): the method's own config in canonical form ("" when
// unset), the effective network and PPO configs in canonical form (`policy`, `ppo`:
// a pre-trained policy's network, the samples a step takes on this graph) and the
// driver's ingredients. Budgets, threads and the checkpoint cadence are left out:
// they may change between runs of a checkpoint.
std::string LearnedSearchIdentityConfig(const LearnedSearchConfig& c, const std::string& policy, const std::string& ppo,
                                        bool measured);
// The zero-shot options of a search from a pre-trained policy: its zero_shot_samples,
// units per device, threads and seed.
ZeroShotOptions SearchZeroShotOptions(const LearnedSearchConfig& c);
// Every key ParseLearnedSearchOptions accepts for base.method, with its value in `base`
// (or the method's default), its range and meaning: one line each, by config.
std::string LearnedSearchOptionsHelp(const LearnedSearchConfig& base);

struct ConvergencePoint {
  double seconds = 0;       // wall-clock since the search started (resumed runs continue)
  int64_t plans = 0;        // plans simulated by then
  int64_t step = 0;         // PPO steps done by then
  double best_step_us = 0;  // step time of the best plan
  bool fits = true;
  // What found it: "baseline:expert", "zero-shot", "policy" (a sample of the policy in
  // training), "polish" (the polish of the best plan), "sample-polish".
  std::string source;
};

// The source of the plan the last point's plan descends from: the polish of the best
// plan ("polish") improves the plan before it, so the origin is the last point whose
// source is not "polish" ("polish" if there is none; "" for an empty trace).
std::string PlanOrigin(const std::vector<ConvergencePoint>& trace);

struct LearnedSearchProgress {
  int64_t step = 0;
  double seconds = 0;
  PlanScore best;
  double best_baseline_us = 0;  // 0 if no plain baseline fits
  double last_batch_best_us = 0;
  int64_t plans = 0;
};

struct LearnedSearchResult {
  Plan plan;
  PlanScore score;
  std::vector<ConvergencePoint> trace;
  std::vector<BaselineScore> baselines;
  std::string best_baseline;  // fastest plain baseline that fits, "" if none
  PlanScore best_baseline_score;
  double seconds = 0;          // total, resumed runs included
  double seconds_to_best = 0;  // when the final plan was found
  int64_t steps = 0;
  int64_t plans_simulated = 0;
  double policy_best_us = 0;  // best plan sampled by PPO alone (inf if none fits)
  int improvements_policy = 0;
  int improvements_polish = 0;
  int improvements_sample_polish = 0;
  int num_units = 0;           // decision units of the GO policy at the end (0: no GO policy)
  bool units_split = false;    // the units were split by the polished best baseline (plan_units)
  double explore_seconds = 0;  // when the exploration ended (0: it did not happen or has not ended)
  // How far the policy's samples were from the best plan (TrainerStepStats::units_off
  // and the rest), averaged over this run's steps of each phase (-1: not measured).
  struct SampleDistance {
    double units = -1, levels = -1, fuse = -1;
    int64_t steps = 0;
    void Add(double units_off, double levels_off, double fuse_off);
  };
  SampleDistance explore_distance, imitate_distance;
  PlanScore zero_shot_score;     // the pre-trained policy's zero-shot plan (unscored without one)
  double zero_shot_seconds = 0;  // its wall time
  std::string stop_reason;       // "steps", "time limit", "interrupted", "converged"
  bool resumed = false;
  // With keep_plans: the best distinct plans that fit among those the search offered
  // as candidates for its best (every baseline's it starts from, the zero-shot plan,
  // the policy's best sample of each step, each polish), best first; the first is
  // `plan` when it fits. Kept in checkpoints.
  std::vector<RankedPlan> top_plans;
  // With keep_plans: the plans of the baselines the search scored at its start (their
  // greedy-fusion variants included), as the search's defaults complete them, one per
  // placement (the best of each), best first, whether or not they are among the top
  // plans: a caller that executes the top plans can check the plain planners' too.
  // Made again by a resumed run, not kept in checkpoints.
  std::vector<RankedPlan> baseline_plans;
};

class LearnedSearch {
 public:
  // `simulator` must outlive the search. Fails on bad config strings or a policy
  // input that cannot be built.
  static StatusOr<std::unique_ptr<LearnedSearch>> Create(const Simulator& simulator, LearnedSearchConfig config,
                                                         SearchHandles handles = {});
  ~LearnedSearch();

  // Runs the search. `stop` (may be null) is polled between steps; `progress` (may be
  // null) is called after every step.
  StatusOr<LearnedSearchResult> Run(const std::atomic<bool>* stop = nullptr,
                                    const std::function<void(const LearnedSearchProgress&)>& progress = nullptr);

 private:
  struct Impl;
  explicit LearnedSearch(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The convergence trace as JSON ("graphopt-convergence", version 1).
std::string ConvergenceJson(const std::vector<ConvergencePoint>& trace);

}  // namespace graphopt
