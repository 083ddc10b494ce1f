// Zero-shot planning: a pre-trained GO policy (rl/pretrain.h) plans a graph it may
// never have seen in one forward pass, without training: the greedy plan (every
// decision at its mode) and the best of a few samples, all simulated, the fastest
// kept; optionally coupled samples (policy/coupled_sampling.h) and plans whose
// placement is decoded under a memory budget (policy/memory_budget.h), for graphs
// that barely fit the machine. Optionally a second pass gives the policy the
// machine's fastest accelerator alone (with the host CPUs): its plans of that
// one-device machine put every op on that accelerator and decide the order and
// fusion as the policy would there. Every plan is decoded from the policy. The wall
// time counts everything from reading the policy file to the scored plan. No
// LibTorch in this header.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "policy/features.h"
#include "rl/local_search.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

// The defaults are the zero-shot pass of the search and of `optimize --zero-shot`
// (rl/learned_search.h LearnedSearchConfig's zero_shot_* options take them from here).
struct ZeroShotOptions {
  int samples = 128;         // plans sampled besides the greedy one (0: the greedy plan alone)
  // Plans sampled with coupled placement (policy/coupled_sampling.h), besides the
  // `samples` independent ones and drawn after them (so those do not depend on it).
  int coupled_samples = 256;
  // Plans of the fastest accelerator alone (the one where the graph's ops take the
  // least time in all; a machine of that device and the host CPUs, see above): its
  // greedy plan and single_device_plans - 1 samples. 0: none; ignored on a machine of
  // at most one accelerator.
  int single_device_plans = 32;
  // Memory-budgeted plans (policy/memory_budget.h), drawn after the coupled samples,
  // scheduling and fusion decoded given each placement. Their budgets step down from
  // memory_budget (a fraction of each device's memory, in (0, 1]) by a tenth at a
  // time over four rungs: the first four plans are the greedy budgeted placements at
  // each rung, the rest budgeted samples taking the rungs in turn. If no plan of the
  // pass fits, the greedy budgeted placements of eight lower rungs (0.59 down to 0.28
  // of each device's memory from 0.9) are decoded and scored too. 0: none.
  int budgeted_plans = 16;
  double memory_budget = 0.9;
  // The greedy plan and the memory-budgeted ones are simulated in full first,
  // then the others in their order, a few at a time. Once a plan so far fits, every
  // later plan stops at its first overflow or once its simulated clock passes the best
  // step time so far; while none fits, once its overflow passes the least overflow so
  // far (of a plan simulated to its end): it could not beat that plan, so the plan
  // chosen is the one a full simulation of every plan chooses. Off: every plan simulated in full (to
  // measure what the stops save).
  bool stop_early = true;
  double temperature = 1.0;  // of the samples
  int units_per_device = kDefaultUnitsPerDevice;  // decision units (policy/features.h UnitsPerDeviceOptions)
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
  bool from_budgeted = false;     // the plan is a memory-budgeted one
  PlanScore best_budgeted_score;  // the best of those (unscored without any), lower rungs included
  int lower_rung_plans = 0;       // plans of the lower rungs (0 unless no other plan fit)
  bool from_single_device = false;      // the plan is one of the fastest accelerator alone
  PlanScore best_single_device_score;   // the best of those (unscored without any)
  // The simulations stopped early (see ZeroShotOptions::stop_early), and the step
  // time past which the last plans stopped (0: none). A group's best marked stopped is
  // where that plan's simulation stopped (at its overflow or past another plan's
  // overflow or step time): no plan of the group beats the plan chosen.
  int stopped_plans = 0;
  double stop_after_us = 0;
  bool best_sample_stopped = false;
  bool best_coupled_stopped = false;
  bool best_budgeted_stopped = false;
  bool best_single_device_stopped = false;
  int num_units = 0;
  int num_plans = 0;           // simulated
  double seconds = 0;          // wall time in all
  double forward_seconds = 0;  // of which the forward passes and decoding
};

// The accelerator on which the graph's ops take the least time in all (ties to the
// lower id): the device of the single-device plans. kNoId on a machine of at most one
// accelerator.
DeviceId FastestAccelerator(const Simulator& simulator);

// Fails if the file is not a policy of this version (policy/go_policy.h LoadGoPolicy)
// or the graph's input cannot be built.
StatusOr<ZeroShotResult> ZeroShotPlan(const Simulator& simulator, const std::string& policy_path,
                                      const ZeroShotOptions& options = {});

}  // namespace graphopt
