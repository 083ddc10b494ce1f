// The configuration of the HDP placer (rl/hdp.h) and its option table. No LibTorch
// here.
#pragma once

#include <cstdint>
#include <string>

#include "core/options.h"
#include "core/status.h"

namespace graphopt {

struct HdpConfig {
  int groups = 0;  // G; 0: min(256, 20 x allowed devices)
  int hidden = 512;
  int grouper_hidden = 64;
  int type_embedding = 16;             // grouper's op-type embedding
  std::string attention = "additive";  // "additive" or "dot"
  int attention_size = 64;
  bool bidirectional = true;
  int groupings = 1;       // m: groupings sampled per step
  int placements = 4;      // k: placements sampled per grouping
  double lr = 0.01;        // Adam (the paper: 0.1; rl/hdp.h says why)
  double lr_decay = 0.95;  // multiplied in every lr_decay_steps steps from lr_decay_start on
  int lr_decay_steps = 50;
  int lr_decay_start = 400;
  double max_grad_norm = 1.0;  // <= 0: no clipping
  double baseline_decay = 0.9;
  std::string reward = "sqrt";  // "sqrt" or "linear"
  double oom_step_factor = 10;
  double logit_temperature = 10;  // T
  double tanh_constant = 5;       // C (<= 0: no squashing)
  double logit_noise = 0.5;       // exploration noise, x the logits' RMS (0: none)
  int noise_steps = 750;          // steps with logit noise
  bool critical_path_priorities = true;
  std::string tasks = "all";  // as ColocRlConfig::tasks

  // The ranges and words of kHdpOptions, then hidden even with bidirectional=1.
  Status Validate() const;
  // kHdpOptions' canonical form, "groups=0,hidden=512,...": every field.
  // Checkpoints carry it as their identity.
  std::string ToString() const;
  // Parses "key=value,..." over the defaults (core/options.h has the rule), then
  // Validate.
  static StatusOr<HdpConfig> FromString(const std::string& text);
  // The learning rate at `step`.
  double LearningRate(int64_t step) const;
};

// The keys of HdpConfig, their ranges and meanings (core/options.h).
extern const OptionTable<HdpConfig> kHdpOptions;

}  // namespace graphopt
