// Measured reward: plans scored by executing them on this machine's cores instead of
// simulating them, as ColocRL's reward is the measured running time of each sampled
// placement (`optimize --reward measured`; rl/learned_search.h SearchHandles::measure).
//
// Each plan is simulated first, for its memory verdict: a plan that does not fit is
// not run and keeps the simulated result (out of memory, as the executor would refuse
// it). A plan that fits is executed (exec/executor.h): `warmup` steps, then the median
// of `steps` steps is its step time; the rest of the result (peaks, bytes per link) is
// the simulation's. An execution that fails is the result's error. The plans are
// measured one after another (the batch that calls this does so on one thread), each
// with an executor of its own (its data made from the seed: the same data for every
// plan), which costs about one more step per plan.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/batch.h"
#include "sim/simulator.h"

namespace graphopt {

struct MeasuredRewardOptions {
  int warmup = 1;
  int steps = 3;
  uint64_t seed = 0;
};

// Measures plans of `simulator`'s graph on its cluster, a local cluster whose devices
// run on `core_sets` (exec/local_cluster.h). `simulator` must outlive the result.
PlanMeasure MeasuredReward(const Simulator& simulator, std::vector<std::vector<int>> core_sets,
                           MeasuredRewardOptions options = {});

}  // namespace graphopt
