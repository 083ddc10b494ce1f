// How much a busy machine slows each kind of op, measured as plans use the machine:
// the in-step profile (exec/profiler.h: every op on the first device, unfused, each
// op's time from its task's timeline) taken once with the other devices idle and once
// with every other device running the same graph's step at once (every op on that
// device, steps in a loop on a thread of its own). Per op kind, the busy steps' time
// of its ops over the idle steps' is the slowdown the simulator gives a kernel of that
// kind while every other device runs one (sim/cluster.h: Contention::kinds).
//
// Why steps and not probes: a step's kernels mostly work in the caches, so what one
// device takes from another is neither a GEMM's nor a streaming copy's share; and it
// moves with what the host gives the virtual machine from minute to minute, so the
// busy steps are taken in turn with the idle ones (docs/experiments/
// 2026-12-07-busy-profile.md). Why opt-in (`profile --in-step --busy`) and not the local
// cluster's default: on the fidelity set the kinds came out near 1 where the probes said
// 1.3-1.7 for memory, and split plans 5.7% optimistic with them against 2.0% with the
// probes, whose overstatement stands in for what the kinds leave out (the receiver's
// reads of a copied tensor from the other core's caches, the host's episodes).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "core/status.h"
#include "exec/executor.h"
#include "exec/profiler.h"
#include "graph/graph.h"
#include "sim/cluster.h"

namespace graphopt {

// Steps of every op on the first device (timelines kept) with every other device
// running the same graph's step in a loop: each other device's executor (every op on
// it, `options`' seed) starts before the measured step and stops after it.
class BusySteps {
 public:
  // `core_sets`: one per device of `cluster`, at least two. Errors as Executor::Create.
  static StatusOr<std::unique_ptr<BusySteps>> Create(const Graph& graph, const Cluster& cluster,
                                                     const std::vector<std::vector<int>>& core_sets,
                                                     const ExecOptions& options = {});
  // One measured step of the first device (a step of the others failing fails it).
  StatusOr<SimResult> RunStep();

 private:
  BusySteps() = default;
  std::unique_ptr<Executor> measured_;
  std::vector<std::unique_ptr<Executor>> load_;
};

// Per op kind, the time of its ops in `busy` over that in `idle` (two profiles of the
// same graph), for each kind whose ops take at least `min_share` of the idle profile's
// time (a kind with less is left to the probes: its ratio would be noise), clamped to
// [1, kMaxSlowdown] (under 1 is the noise of a kind that is not slowed).
std::map<OpKind, double> KindSlowdowns(const Graph& graph, const Profile& idle, const Profile& busy,
                                       double min_share = 0.002);

struct BusyProfile {
  Profile idle;                    // the in-step profile, the other devices idle
  Profile busy;                    // the same, every other device busy
  std::map<OpKind, double> kinds;  // KindSlowdowns(idle, busy)
};

// `options.warmup` rounds and then `steps` rounds, each one step with the other
// devices idle and one with them busy, in turn (which comes first alternates), on
// `cluster` (two devices or more; `core_sets` one per device). InvalidArgument for
// fewer devices or steps < 1; Cancelled when `options.interrupt` is set.
StatusOr<BusyProfile> ProfileInStepBusy(const Graph& graph, const Cluster& cluster,
                                        const std::vector<std::vector<int>>& core_sets, int steps,
                                        const ProfileOptions& options = {});

}  // namespace graphopt
