// The executor's plan-derived structure and its per-step state (exec/executor.h):
// private to executor.cc (set-up) and executor_step.cc (the step).
#pragma once

#include <ATen/ATen.h>

#include <chrono>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <queue>
#include <thread>
#include <unordered_set>
#include <vector>

#include "exec/executor.h"
#include "exec/kernels.h"

namespace graphopt {

// Where a tensor's value lives on one device: its home (the producer's device) or a
// copy. Slot ids index Executor::State::slots.
struct ExecSlot {
  TensorId tensor = kNoId;
  DeviceId device = kNoId;
  bool home = false;
  bool persistent = false;      // a source's or metadata op's output: made once
  bool keep = false;            // a step output (read by nobody): kept after the step
  int64_t bytes = 0;            // counted in the device's memory (0 for views)
  std::vector<int32_t> readers;  // tasks on `device` reading it
  std::vector<int32_t> copies;   // home slot: the slots it is copied to, in copy order
  int32_t home_slot = -1;        // a copy: the slot it is copied from
  double copy_priority = 0;      // a copy: its readers' highest priority
  at::Tensor buffer;             // a copy: its destination buffer, made before the step
  at::Tensor persistent_value;   // a persistent home slot's data
};

struct ExecTask {
  DeviceId device = kNoId;
  double priority = 0;
  std::vector<OpId> members;            // graph order
  std::vector<int32_t> input_slots;     // external inputs (distinct slots on `device`)
  std::vector<int32_t> output_slots;    // home slots of its members' outputs
  std::vector<int32_t> then_release;    // tasks whose read-before-write wait this ends
  int32_t war_waits = 0;                // readers of its parameter it waits for
};

struct Executor::State {
  const Graph* graph = nullptr;
  Cluster cluster;
  std::vector<std::vector<int>> core_sets;
  Plan plan;
  ExecOptions options;

  std::vector<ExecTask> tasks;
  std::vector<ExecSlot> slots;
  std::vector<int32_t> slot_of_output;  // per tensor: its home slot, or -1
  std::vector<int32_t> group_of;        // per op: its task, or -1 (free ops)
  std::vector<std::vector<int32_t>> start_copies;  // per device: persistent home slots to copy out at the start
  std::vector<int64_t> resident_bytes;  // per device
  std::vector<KernelState> kernel_state;  // per op (updates)
  // Storage of every parameter (a Variable's data), to catch outputs aliasing one.
  std::unordered_set<const void*> parameter_storage;

  // Per step, under `mu`.
  std::mutex mu;
  std::vector<std::condition_variable> wake;  // per device
  // Counts readiness changes (a task made ready, WakeAll): what a spinning idle worker
  // polls, lock-free (ExecOptions::spin).
  std::atomic<uint64_t> events{0};
  std::condition_variable step_done;
  struct Ready {
    double priority;
    int64_t seq;
    int32_t task;
    bool operator<(const Ready& o) const { return priority != o.priority ? priority < o.priority : seq > o.seq; }
  };
  std::vector<std::priority_queue<Ready>> ready;  // per device
  std::vector<int32_t> pending;     // per task: missing input slots + read-before-write waits
  std::vector<int32_t> slot_refs;   // per slot: readers and copies left
  std::vector<at::Tensor> value;    // per slot
  std::vector<int64_t> memory;      // per device, now
  int64_t ready_seq = 0;
  int64_t tasks_left = 0;
  int64_t generation = 0;           // bumped to start a step
  int running = 0;                  // workers inside a task or a copy
  int64_t start_copies_left = 0;    // copies of sources not yet made this step
  int workers_done = 0;             // workers finished with this step
  bool stopping = false;
  Status error = Status::Ok();
  std::chrono::steady_clock::time_point t0;
  SimResult result;
  std::vector<std::thread> workers;

  void Worker(DeviceId d);
  // Under mu: the step's state back to its start.
  void ResetStep();
  // Under mu: a slot became present; its readers may be ready.
  void MakePresent(int32_t slot);
  void MakeReadyIfDone(int32_t task);
  // Under mu: one reader or copy of the slot is done.
  void ReleaseSlot(int32_t slot, double now_us);
  void Allocate(DeviceId d, int64_t bytes, double now_us);
  void Fail(Status status);
  // Wakes every worker (the step ended, failed or stops).
  void WakeAll();
  double NowUs() const;
  // Outside mu: runs a task's members; the external values were taken under mu.
  Status RunTask(int32_t task, const std::vector<at::Tensor>& inputs, std::vector<at::Tensor>* outputs);
  // Under mu (released while copying): copies a home slot's value into a copy slot's
  // buffer, then makes the copy present.
  void Copy(int32_t from_slot, int32_t to_slot, const at::Tensor& source, std::unique_lock<std::mutex>* lock);
};

}  // namespace graphopt
