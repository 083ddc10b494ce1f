// The configuration of the ColocRL placer (rl/colocrl.h) and its option table. No
// LibTorch here.
#pragma once

#include <string>

#include "core/options.h"
#include "core/status.h"

namespace graphopt {

// Largest max_groups: a group's input has 2 x groups adjacency entries, so the
// inputs are [groups, 2 x groups] and the encoder's input weights 4 x hidden x 2 x groups.
inline constexpr int kMaxColocRlGroups = 5000;

struct ColocRlConfig {
  int max_groups = 1000;          // more units than this: merged into this many chunks
  int hidden = 256;               // LSTM size
  int type_embedding = 32;        // width of the op-type embedding
  std::string attention = "dot";  // "dot" or "additive"
  int attention_size = 64;
  bool bidirectional = false;   // encoder
  int samples_per_step = 8;     // placements simulated per step
  double lr = 0.01;             // Adam
  double max_grad_norm = 1.0;   // <= 0: no clipping
  double baseline_decay = 0.9;  // b <- decay * b + (1 - decay) * mean reward
  std::string reward = "sqrt";  // "sqrt": -sqrt(step / ref); "linear": -step / ref
  double oom_step_factor = 10;  // a plan that does not fit counts as this x reference
  double logit_temperature = 1.0;
  double tanh_constant = 0;              // > 0: logits = C tanh(logits / temperature)
  bool critical_path_priorities = true;  // rl/rollout.h ActionsToPlan
  // "placement": every plan scored keeps its devices alone and takes the framework's
  // defaults for the rest (rl/task_defaults.h: ready order, greedy legal fusion), as a
  // placement table scores it; "all": the plans as built (critical_path_priorities).
  std::string tasks = "all";

  // The ranges and words of kColocRlOptions, then hidden even with bidirectional=1.
  Status Validate() const;
  // kColocRlOptions' canonical form, "max_groups=1000,hidden=256,...": every
  // field. Checkpoints carry it as their identity.
  std::string ToString() const;
  // Parses "key=value,..." over the defaults (core/options.h has the rule), then
  // Validate.
  static StatusOr<ColocRlConfig> FromString(const std::string& text);
};

// The meaning of the tasks key of ColocRL and HDP.
inline constexpr const char* kReinforceTasksHelp =
    "placement: each plan scored keeps its devices alone, the rest the framework's defaults (ready order, greedy "
    "legal fusion), as a placement table scores it; all: the plans as built (critical_path_priorities)";

// The keys of ColocRlConfig, their ranges and meanings (core/options.h).
extern const OptionTable<ColocRlConfig> kColocRlOptions;

}  // namespace graphopt
