// Executor: one training step of a graph run for real under a plan, on this machine's
// cores as devices (exec/local_cluster.h), with ATen's kernels (exec/kernels.h).
//
// Semantics, the simulator's (sim/simulator.h) wherever the machine allows:
// - Devices. One worker thread per device, pinned to the device's cores (ATen's
//   intra-op threads, OMP_NUM_THREADS of them, inherit the pinning). A worker runs one
//   task at a time and, when idle, the ready task of highest priority; ties go to the
//   task that became ready first. A task is an unfused op or a fused group (its
//   members run one after another in graph order, as one task: the executor has no
//   code generator, so a group saves a dispatch, not its internal memory traffic).
// - Sources. Inputs, Variables and Constants hold data made once from the seed
//   (exec/kernels.h: MakeSourceTensor), metadata ops (Shape) are computed once from
//   shapes; both are present on their device when the step starts, as the simulator's
//   free ops are.
// - Copies. A tensor needed on another device is copied once per destination into a
//   buffer of that device allocated before the step (so a copy measures a copy, not an
//   allocation), by the sending device's worker right after the task that produced it
//   (sources: when the step starts), destinations with higher-priority readers first.
//   A core has no copy engine: the copy takes the sender's stream, which the `local`
//   cluster's simulation must model the same way.
// - Updates. An update op changes its parameter in place, so it waits for every other
//   reader of that parameter on its device (a read-before-write dependency the graph
//   leaves implicit; readers on other devices read their copy). A kernel output that
//   aliases a parameter (a view) is copied so that no later read sees the update.
// - Memory. Parameters and optimizer state are resident all step; any other tensor is
//   counted from the start of the task that produces it (a copy: from the start of the
//   copy) until the last task reading it on that device ends (and, on its home device,
//   its copies out have ended); tensors internal to a fused group and views' outputs
//   count nothing. A plan whose simulated peak exceeds a device's memory is refused
//   before it runs.
//
// The same seed gives the same data, and every plan of one graph the same step
// outputs (loss, updated parameters): bit for bit with one thread per device.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

struct ExecOptions {
  uint64_t seed = 0;
  // Record every task, copy and memory change in the result's timeline.
  bool record_timeline = false;
  // An idle worker polls for its next ready task instead of sleeping until woken, as
  // a device that owns its cores would: waking a sleeping thread costs tens of
  // microseconds (more in a virtual machine, whose idle cores the host takes back),
  // paid at every dependency between devices.
  bool spin = true;
};

class Executor {
 public:
  // Checks the plan (ValidatePlan), that every op has a kernel (CheckKernels), that
  // its simulated peak memory fits every device, and that there is one core set per
  // device; then makes the data, the copy buffers and the workers.
  static StatusOr<std::unique_ptr<Executor>> Create(const Graph& graph, const Cluster& cluster,
                                                    const std::vector<std::vector<int>>& core_sets, const Plan& plan,
                                                    const ExecOptions& options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs one step (parameters carry over from the step before). The result is the
  // simulator's type, measured: step time, per-device busy time and peak memory,
  // bytes per link, tasks and copies, and the timeline if asked (lower_bound_us 0).
  StatusOr<SimResult> RunStep();

  // The step's outputs, by tensor name: every tensor nobody reads (the loss) as the
  // last step left it, and every parameter as updated.
  std::vector<std::pair<std::string, at::Tensor>> Outputs() const;

  struct State;

 private:
  explicit Executor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace graphopt
