// The configuration of GO's PPO trainer (rl/ppo.h) and its option table. No
// LibTorch here, so the search driver's option routing costs no LibTorch include.
#pragma once

#include <string>

#include "core/options.h"
#include "core/status.h"
#include "policy/go_policy_config.h"

namespace graphopt {

struct PpoConfig {
  // 32, not 16: twice the plans per step for little more time a step (the trunk's
  // forward and backward pass is shared by the batch) (docs/experiments/history-bench.md,
  // "Coherent scheduling, cheaper steps").
  int samples_per_step = 32;
  int epochs = 1;
  double clip = 0.2;
  double lr = 1e-3;             // Adam
  double entropy = 0.01;        // entropy bonus (per decision) at step 0
  double entropy_decay = 0.98;  // multiplied in at every step
  double entropy_min = 0.001;
  double baseline_decay = 0.8;  // running baseline: b <- decay * b + (1 - decay) * mean reward
  bool normalize_advantages = true;
  double oom_penalty = 2.0;              // subtracted from the reward of a plan that does not fit
  double temperature = 1.0;              // sampling temperature
  double max_grad_norm = 1.0;            // <= 0: no clipping
  bool include_best = true;              // the best plan so far joins every batch
  bool critical_path_priorities = true;  // rl/rollout.h: levels first, critical path breaks ties
  int warm_start_level = 0;              // priority level of imitated plans
  int warm_start_steps = 300;            // supervised steps towards the warm-start plan (at most)
  double warm_start_target = 0.97;       // stop once the mean probability per decision exceeds this
  // From the warm start on, the trunk is computed once and only the heads learn
  // (GoPolicyImpl::HeadParameters, with their own Adam at head_lr): a supervised step
  // costs a few small products instead of the trunk's pass and backward (GNMT-4: 7 ms,
  // not 0.5 s), and PPO steps skip both. Trained whole, 40 steps left GNMT-4's 59
  // unit placements at 0.49 per unit, and the first PPO step after a warm start
  // (Adam's first step moves every weight by lr) threw the heads' fit away.
  bool frozen_trunk = true;
  double head_lr = 1e-2;
  // With the trunk frozen, a free placement logit per unit and device ([U, D], from
  // zero) is added to the heads' logits and learns with them at unit_bias_lr.
  bool unit_bias = false;
  double unit_bias_lr = 0.1;
  // Likewise a free fusion logit per op ([N], from zero) added to the fusion head's
  // logits, at fusion_bias_lr.
  bool fusion_bias = false;
  double fusion_bias_lr = 0.1;
  // Until the trunk is frozen, the whole network learns at every trunk_every-th step
  // (step % trunk_every == 0); the steps between train the heads alone on that step's
  // trunk output (computed before its update), skipping the trunk's forward and
  // backward passes, most of a step on a large graph. 1 (the default): every step
  // trains the whole network; 3 helps the policy alone and costs the full optimizer
  // (docs/experiments/history-bench.md, "The trunk at every third step").
  int trunk_every = 1;
  // Self-imitation: weight of -log-probability (per decision, per task) of the best
  // plan so far in every step's loss (needs include_best). With the policy alone the
  // best plan is one of its own samples, so the policy is pulled towards the best it
  // found and its samples explore around it; with the search around it, what the
  // baselines and the local search find is distilled into the policy.
  double imitation = 1.0;

  // The ranges of kPpoOptions.
  Status Validate() const;
  // kPpoOptions' canonical form, "samples=32,epochs=1,...": every field.
  std::string ToString() const;
  // Parses "key=value,..." over the defaults (core/options.h has the rule), then
  // Validate.
  static StatusOr<PpoConfig> FromString(const std::string& text);
};

// The keys of PpoConfig, their ranges and meanings (core/options.h).
extern const OptionTable<PpoConfig> kPpoOptions;

// GO's own options ("graphopt optimize --policy", "graphopt pretrain --policy"): a key
// of kPpoOptions sets `ppo`, one of kGoPolicyOptions `policy`; an unknown key fails
// naming both lists.
Status SetGoOption(const std::string& key, const std::string& value, PpoConfig* ppo, GoPolicyConfig* policy,
                   const std::string& context);
// "PPO: samples, ...; GO policy: hidden, ...": the keys SetGoOption knows.
std::string GoOptionKeys();

}  // namespace graphopt
