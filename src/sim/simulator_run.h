// One simulation (Simulator::Simulate) as the state it runs on: the event loop
// (simulator_run.cc) and its set-up, the plan's kernels and what the loop reads of them
// (simulator_prepare.cc). Not part of the interface: include sim/simulator.h instead.
#pragma once

#include <cstdint>

#include "sim/simulator.h"
#include "sim/simulator_ports.h"
#include "sim/simulator_scratch.h"

namespace graphopt {

// One simulation: the event loop's state over a Simulator's precomputed arrays and a scratch.
struct Simulator::Run {
  const Simulator& sim;
  SimScratchState& st;
  SimResult& result;
  const bool record;
  const int num_devices;
  bool fused = false;
  // SimOptions::stop_at_oom and stop_above_overflow: set when a device's memory
  // first exceeds its capacity by more than stop_margin.
  bool stop_at_oom = false;
  int64_t stop_margin = 0;
  bool stopped = false;
  // SimOptions::stop_after_us: the loop ends at the first event after it.
  double stop_after_us = 0;
  bool stopped_slower = false;
  int64_t completed = 0;
  sim_internal::OpState* ops;
  sim_internal::CopyState* copies;
  const OpInfo* info;
  const TensorInfo* tensors;
  Ports ports;                // clusters with ports (sim/simulator_ports.h)
  Slowdowns* slow = nullptr;  // a shared machine (sim/simulator_slowdowns.h), else null

  Run(const Simulator& s, SimScratchState& state, SimResult& r, bool record_timeline)
      : sim(s),
        st(state),
        result(r),
        record(record_timeline),
        num_devices(s.num_devices_),
        ops(state.ops.data()),
        copies(state.copies.data()),
        info(s.ops_.data()),
        tensors(s.tensors_.data()),
        ports{s, state} {}

  // Members of kernel r: [MembersBegin, MembersEnd). Unfused, the root field (== r) is the one member.
  const OpId* MembersBegin(OpId r) const {
    return fused ? st.members.data() + st.member_begin[static_cast<size_t>(r)] : &ops[r].root;
  }
  const OpId* MembersEnd(OpId r) const {
    return fused ? st.members.data() + st.member_begin[static_cast<size_t>(r) + 1] : &ops[r].root + 1;
  }
  bool IsSingleton(OpId r) const {
    return !fused || st.member_begin[static_cast<size_t>(r) + 1] - st.member_begin[static_cast<size_t>(r)] == 1;
  }

  void Sample(DeviceId d, double time) {
    if (record) result.memory_timeline.push_back({time, d, st.memory[static_cast<size_t>(d)]});
  }

  void Alloc(DeviceId d, int64_t bytes, double time);
  // Drops one hold on copy c; frees it (and the copy it aliases) when none is left.
  void Release(int32_t c, double time);
  void MakeReady(OpId r);

  // Set-up (simulator_prepare.cc).
  // What the event loop needs of the plan, in passes in op order before it (their
  // memory reads in a row, not scattered over the simulated time): each consumer's
  // kernel, device and priority; each kernel's time, allocation and steps at its end;
  // the bytes of each tensor copy its producer allocates.
  void PrepareKernels();
  // A fused kernel's stretch minus 1 with every other device busy: the roofline's of its
  // boundary traffic (`bytes`) against its time alone (`time_us`); where the contention
  // lists op kinds, the mean over its members weighted by their time alone, each member
  // of a listed kind with its kind's.
  double FusedExcess(OpId r, double time_us, double bytes) const;
  // Sets the bytes of the outputs of kernel r that leave it and returns their sum;
  // for a fused kernel also returns its boundary bytes, compute time and measured
  // bodies through the pointers.
  int64_t AllocateOutputs(OpId r, double* compute_us, double* boundary_bytes, double* measured_us);

  // The event loop (simulator_run.cc).
  void StartKernel(OpId r, DeviceId d, double now);
  // Makes tensor t, produced by kernel r on device d, available to its consumers:
  // local ones at once, remote ones through one transfer per destination device.
  // Tells the input slots of remote readers which received copy they read.
  void Publish(TensorId t, OpId r, DeviceId d, double now);
  // Kernel r on device d ends: its members release their inputs and publish outputs
  // (the steps PrepareKernels listed).
  void FinishKernel(OpId r, DeviceId d, double now);
  // An instant op (free op, lone view) runs at once, off the stream.
  void RunInstant(OpId r, double now);
  void DrainWorklist(double now);
  // Clusters without ports: the link's queue or state changed, Dispatch looks at it.
  void MarkLinkDirty(int32_t link);
  // Starts sending received copy k (of `bytes`) over link (from * D + to).
  void StartTransfer(int32_t k, int32_t link, int64_t bytes, double now);
  void FinishTransfer(int32_t k, double now);
  void Dispatch(double now);
  // On a shared machine: drops the first event if it is a kernel end re-timed since it
  // was scheduled (it is not an event any more: it must not move the clock); returns
  // whether it did.
  bool SkipStaleEnd();
  // The event loop; returns the step time.
  double Loop();
};

}  // namespace graphopt
