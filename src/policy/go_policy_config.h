// The configuration of the GO policy network (policy/go_policy.h) and its option
// table: what `graphopt optimize --policy` keys that are not the driver's or PPO's
// set. No LibTorch here, so option parsing costs no LibTorch include.
#pragma once

#include <cstdint>
#include <string>

#include "core/options.h"
#include "core/status.h"
#include "policy/units.h"
#include "sim/tasks.h"

namespace graphopt {

struct GoPolicyConfig {
  int hidden = 64;
  int sage_layers = 2;
  int attention_layers = 2;
  int heads = 4;               // hidden must be a multiple of heads
  int segment = 64;            // ops per attention segment
  int memory = 64;             // positions of the previous segment attended to, <= segment
  int ff_multiplier = 2;       // feed-forward width = ff_multiplier * hidden
  int relative_buckets = 32;   // relative-position buckets (half before, half after)
  bool detach_memory = false;  // stop gradients through the memory (as Transformer-XL); see AttentionLayer
  bool superposition = true;
  bool task_feedback = true;
  bool feedback_attention = false;
  int priority_levels = 8;
  // Initial logit advantage of priority level 0 (added to the scheduling head's
  // bias): with every op on one level the critical path alone schedules, which is
  // the sensible schedule to start from; a uniform start gives each of N ops a
  // random level and each sample a random schedule
  // (docs/experiments/2026-11-22-policy-alone-decision-units.md, "What changed in the
  // trainer with it"). 5 gives level 0 a probability of 0.95 with 8 levels.
  int level_prior = 5;
  // Width of the scheduling and fusion heads' hidden layer: the part computed per
  // sample of a batch (B x N x head_hidden), so it is kept small.
  int head_hidden = 16;
  // Scheduling decided per unit, as placement is (policy/units.h): one priority level
  // per unit, from the unit's state (the same one the placement head reads) and the
  // feedback of its placement; every op of the unit gets it. Per-op levels (false,
  // GO's) give each sample tens of thousands of independent draws whose effects on
  // the step time are diffuse: a sample's schedule scatters from the mode as per-op
  // placements do, and the head costs O(samples x ops) per step. Fusion stays
  // per op (its effect is local: one launch and one tensor saved), its logit the sum
  // of a term from the op's own state and one from its unit's state and placement
  // feedback, so only a [samples x units] part is computed per sample
  // (docs/experiments/2026-11-23-coherent-scheduling-cheaper-steps.md, "Changes and
  // results").
  bool unit_tasks = true;
  // The placement keys read each device's index on the circle (policy/features.h)
  // through a linear map of their own, added to the device's embedding: the device
  // MLP can learn to drop those two features (a ReLU that is zero for both), after
  // which identical devices have identical keys and no unit can prefer one of them
  // (pre-training can lead the MLP there:
  // docs/experiments/2026-11-24-imitation-inputs-device-and-half.md, "Question and
  // diagnosis"). A saved policy without this key has no such map and loads with it off.
  bool device_index_key = true;
  // A unit's state reads its device in the plan its units were split by (the unit
  // features' last pair, policy/features.h), through a linear map of its own: a
  // policy imitating that plan can then give each unit the plan's device
  // (docs/experiments/2026-11-24-imitation-inputs-device-and-half.md, "Result").
  // Zero without such a plan. A saved policy without this key loads with it off.
  bool unit_plan_device = true;
  // A unit's state reads its stage, where it lies among the model's layers (the unit
  // features' stage block, policy/features.h), through a linear map of its own that
  // starts at zero: on an unrolled recurrent net the units of every layer sit at the
  // same topological position, and the stage is what tells the layers apart and
  // orders them. A saved policy without this key loads with it off.
  bool unit_stage = false;
  // Where the decision units come from (policy/units.h): 0, METIS parts; 1, parts
  // that never span two layers (PartitionUnitsByLayer); 2, those only on a graph of
  // fewer layers than units, METIS parts otherwise. The policy's input, so a policy
  // keeps the units it was trained on (a saved policy without this key loads with 0;
  // the shipped policy has 1). 2 for a new network: on judge 2, GO-one on layer
  // units is 1.2x faster on the recurrent rows and slower on the CNNs, whose many
  // layers become runs of consecutive layers
  // (docs/experiments/2026-12-01-go-one-layer-units-judge2.md).
  int layer_units = kLayerUnitsWhenFewer;
  uint32_t tasks = kAllTasks;
  uint64_t seed = 1;  // parameter initialization

  // The ranges of kGoPolicyOptions, then the rules across fields (hidden a multiple
  // of heads, memory <= segment, feedback_attention needs unit_tasks=0).
  Status Validate() const;
  // kGoPolicyOptions' canonical form, "hidden=64,sage_layers=2,...": every field.
  // Saved policies carry it as their identity.
  std::string ToString() const;
  // Parses "key=value,..." over the defaults (core/options.h has the rule), then
  // Validate.
  static StatusOr<GoPolicyConfig> FromString(const std::string& text);
  // The config a saved policy carries: as FromString, except that keys added after
  // the first saved policies take the value that reproduces those policies' network
  // when missing (device_index_key, unit_plan_device and unit_stage: off; layer_units: 0).
  static StatusOr<GoPolicyConfig> FromSavedString(const std::string& text);
};

// The keys of GoPolicyConfig, their ranges and meanings (core/options.h).
extern const OptionTable<GoPolicyConfig> kGoPolicyOptions;

}  // namespace graphopt
