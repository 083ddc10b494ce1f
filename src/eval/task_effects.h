// What a plan's schedule and fusion are worth against TensorFlow's defaults on the same
// placement (the multi-task table's per-row report, `graphopt bench --tasks`): how many
// fused kernels, launches and bytes never written its fusion has against the default
// fusion (greedy fusion of elementwise ops), and the step time and peak memory of the
// plan, of the plan with the default fusion, with the default schedule (ready order:
// every priority 0), and with both.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

struct TaskEffects {
  struct Variant {
    double step_time_us = 0;
    int64_t peak_memory = 0;  // the largest over the devices
    int64_t kernels = 0;      // launched on device streams
    int fused_kernels = 0;    // fused groups of two ops or more
    int64_t bytes_kept = 0;   // bytes of tensors that stay inside a fused kernel (never written)
  };
  Variant plan;             // as it is
  Variant default_fusion;   // its placement and schedule, the default fusion
  Variant default_schedule; // its placement and fusion, ready order
  Variant defaults;         // its placement alone: both defaults
};

// Simulates the four variants of `plan` (valid for the simulator's graph and cluster).
StatusOr<TaskEffects> MeasureTaskEffects(const Simulator& sim, const Plan& plan);
// One paragraph: the fusion's kernels, launches saved and bytes kept against the
// default fusion; what the fusion and the schedule are each worth in step time and
// peak memory.
std::string TaskEffectsText(const TaskEffects& effects);

}  // namespace graphopt
