// Zero-shot planning: a pre-trained GO policy (rl/pretrain.h) plans a graph it may
// never have seen in one forward pass, without training: the greedy plan (every
// decision at its mode) and the best of a few samples, all simulated, the fastest
// kept. The wall time counts everything from reading the policy file to the scored
// plan. No LibTorch in this header.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "rl/local_search.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

struct ZeroShotOptions {
  int samples = 16;          // plans sampled besides the greedy one (0: the greedy plan alone)
  // Plans sampled with coupled placement (policy/coupled_sampling.h), besides the
  // `samples` independent ones and drawn after them (so those do not depend on it).
  int coupled_samples = 0;
  double temperature = 1.0;  // of the samples
  int units_per_device = 4;  // decision units (policy/features.h UnitsPerDeviceOptions)
  int threads = 0;           // simulator and LibTorch threads (<= 0: every core)
  uint64_t seed = 0;         // of the samples
};

struct ZeroShotResult {
  Plan plan;  // the fastest of the greedy plan and the samples (PlanScore order)
  PlanScore score;
  PlanScore greedy_score;
  PlanScore best_sample_score;  // of the independent samples (unscored without any)
  bool from_greedy = true;      // the plan is the greedy one
  bool from_coupled = false;    // the plan is a coupled sample
  PlanScore best_coupled_score;  // the best coupled sample (unscored without any)
  int num_units = 0;
  double seconds = 0;          // wall time in all
  double forward_seconds = 0;  // of which the forward pass and decoding
};

// Fails if the file is not a policy of this version (policy/go_policy.h LoadGoPolicy)
// or the graph's input cannot be built.
StatusOr<ZeroShotResult> ZeroShotPlan(const Simulator& simulator, const std::string& policy_path,
                                      const ZeroShotOptions& options = {});

}  // namespace graphopt
