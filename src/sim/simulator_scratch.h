// The simulator's internal state, shared by its two halves: simulator.cc (building
// a Simulator: the precomputed arrays) and one simulation (sim/simulator_run.h: its
// set-up and event loop, with simulator_ports.h for shared ports). Not part of the
// interface: include sim/simulator.h instead.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "sim/simulator.h"

namespace graphopt {
namespace sim_internal {

constexpr double kUsPerSecond = 1e6;

// A double as an unsigned integer of the same order (for heap keys: integer compares
// are cheaper than floating-point ones). -0.0 becomes +0.0 first, so they tie.
inline uint64_t OrderedBits(double x) {
  x += 0.0;
  uint64_t u;
  std::memcpy(&u, &x, sizeof(u));
  return (u >> 63) != 0 ? ~u : u | (uint64_t{1} << 63);
}

// A kernel waiting for its device: higher priority first, then earlier readiness.
struct ReadyEntry {
  uint64_t priority;  // OrderedBits
  uint32_t seq;
  OpId op;
};
struct ReadyLess {
  bool operator()(const ReadyEntry& a, const ReadyEntry& b) const {
    return a.priority < b.priority || (a.priority == b.priority && a.seq > b.seq);
  }
};

// A transfer waiting for its link: higher destination priority first, then the one
// sent earlier, then the lower tensor id (a link has one destination). The order
// depends on the simulated times and the graph only, not on the order in which
// events at one time are handled.
struct TransferEntry {
  uint64_t priority;  // OrderedBits
  uint64_t sent;      // OrderedBits of the send time
  TensorId tensor;
  int32_t copy;
  int64_t bytes;
};
struct TransferLess {
  bool operator()(const TransferEntry& a, const TransferEntry& b) const {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.sent != b.sent) return a.sent > b.sent;
    return a.tensor > b.tensor;
  }
};

// The end of a kernel (id >= 0: its root op) or of a transfer (id < 0: ~copy) at
// `time`, which the heap orders by its OrderedBits `key`.
struct Event {
  uint64_t key;
  double time;
  uint32_t seq;
  int32_t id;
};
struct EventLater {
  bool operator()(const Event& a, const Event& b) const { return a.key > b.key || (a.key == b.key && a.seq > b.seq); }
};

// Everything one simulation writes. Sized for one graph and cluster; reused across calls.
// Tensor copies: copy t (< num_tensors) is tensor t on its producer's device; copies
// >= num_tensors are received copies on other devices. in_copy[i] is the received
// copy that input slot i (of Simulator::in_) reads, set when that copy is created;
// a slot whose tensor is produced on the reader's device reads copy in_[i].
struct OpState {
  double priority;  // at roots: the kernel's priority (max over its members)
  // At roots, set before the event loop: the kernel's time on its device and the
  // bytes it allocates when it starts (its outputs that leave it).
  double duration_us;
  int64_t alloc_bytes;
  DeviceId device;
  OpId root;               // the fused group's root (the op itself if unfused)
  int32_t pending;         // at roots: inputs from outside the group not yet present
  uint8_t instant_kernel;  // at roots: a lone instant op, run off the stream
};

// A consumer of a tensor as the plan places it (one per entry of Simulator::cons_,
// set before the event loop so that publishing a tensor reads them in order).
struct ConsumerState {
  double priority;  // its kernel's priority
  OpId root;        // its kernel
  DeviceId device;
};

// One step of what a kernel does when it ends, in its members' order (set before
// the event loop, so that a kernel's end reads its steps in a row).
struct FinishStep {
  enum Kind : int32_t {
    kReleaseLocal,     // an input whose producer is on the kernel's device: its copy `index`
    kReleaseReceived,  // an input received from another device: the copy in_copy[index]
    kPublish,          // an output leaving the kernel: tensor `index`, then its own hold
  };
  int32_t index;
  Kind kind;
};

struct CopyState {
  int64_t bytes;  // bytes held while it lives (0: resident, alias or internal)
  int32_t refs;   // holds: local readers, outgoing transfers, aliases, producer
  DeviceId device;
  int32_t alias;  // the copy this one aliases (instant views), or -1
  TensorId tensor;
  int32_t readers_begin, readers_end;  // received copies: the kernels waiting for it, in readers
};

}  // namespace sim_internal

struct SimScratchState {
  const Simulator* owner = nullptr;
  std::vector<sim_internal::OpState> ops;
  std::vector<int32_t> member_begin;
  std::vector<OpId> members;
  std::vector<OpId> path;
  std::vector<FusionGroupSummary> groups;  // per fused group root: its kernel's summary
  std::vector<sim_internal::CopyState> copies;
  std::vector<int32_t> in_copy;
  std::vector<sim_internal::ConsumerState> consumers;  // per entry of Simulator::cons_
  std::vector<int32_t> finish_begin;                   // per op: its kernel's steps (roots only)
  std::vector<sim_internal::FinishStep> finish;
  std::vector<OpId> readers;
  int32_t num_copies = 0;
  int32_t num_readers = 0;
  // Per device.
  std::vector<std::vector<sim_internal::ReadyEntry>> ready;
  std::vector<uint8_t> busy;
  std::vector<int32_t> copies_out;  // transfers out waiting or running (copies_on_stream devices)
  std::vector<int64_t> memory;
  std::vector<uint8_t> device_dirty;
  std::vector<DeviceId> dirty_devices;
  // Per link.
  std::vector<std::vector<sim_internal::TransferEntry>> queue;
  std::vector<uint8_t> link_busy;
  std::vector<uint8_t> link_dirty;
  std::vector<int32_t> dirty_links;
  // Clusters with ports only (sim/simulator_ports.h), bit sets over links: those with
  // transfers waiting, the busy ones, and a dispatch's candidates and blocked links.
  // Such clusters do not use link_busy, link_dirty and dirty_links.
  std::vector<uint64_t> link_waiting;
  std::vector<uint64_t> link_busy_bits;
  std::vector<uint64_t> link_candidates;
  std::vector<uint64_t> link_blocked;
  bool ports_changed = false;  // a transfer queued or ended since the last dispatch
  // Destination devices of one tensor being published.
  std::vector<int32_t> stamp;
  std::vector<int32_t> dest_copy;
  std::vector<double> dest_priority;
  std::vector<DeviceId> dest_list;
  std::vector<std::pair<DeviceId, OpId>> remote_readers;
  int32_t stamp_counter = 0;
  // Per tensor: the fused kernel (a counter value) that last read it from outside.
  std::vector<uint32_t> read_stamp;
  uint32_t read_counter = 0;

  std::vector<sim_internal::Event> events;
  std::vector<OpId> worklist;
  uint32_t seq = 0;
  // A shared machine (simulator_slowdowns.h), sized only when the cluster has one: per
  // kernel root its stretch minus 1 with every other device busy; per device the
  // kernel running (kNoId: none), its
  // start, the time it was last re-timed, its stretch since then, its work left then
  // (unstretched us), its end as last scheduled, its timeline entry (or -1).
  std::vector<float> kernel_excess;
  std::vector<OpId> run_op;
  std::vector<double> run_start, run_since, run_stretch, run_left, run_end;
  std::vector<int64_t> run_event;

  // `shared`: the cluster's devices slow each other down (Simulator::has_contention_).
  void Prepare(const Simulator& sim, int n, int nt, int num_devices, int64_t num_edges, size_t num_inputs,
               bool shared) {
    const size_t num_copies_max = static_cast<size_t>(nt) + static_cast<size_t>(num_edges);
    if (owner == &sim && ops.size() == static_cast<size_t>(n) && copies.size() == num_copies_max &&
        ready.size() == static_cast<size_t>(num_devices) && in_copy.size() == num_inputs &&
        run_op.size() == (shared ? static_cast<size_t>(num_devices) : 0)) {
      return;
    }
    owner = &sim;
    const size_t un = static_cast<size_t>(n), ud = static_cast<size_t>(num_devices);
    ops.assign(un, sim_internal::OpState{});
    member_begin.assign(un + 1, 0);
    members.assign(un, 0);
    copies.assign(num_copies_max, sim_internal::CopyState{});
    in_copy.assign(num_inputs, -1);
    consumers.assign(static_cast<size_t>(num_edges), sim_internal::ConsumerState{});
    finish_begin.assign(un + 1, 0);
    finish.clear();
    finish.reserve(num_inputs + static_cast<size_t>(nt));
    readers.assign(static_cast<size_t>(num_edges), 0);
    ready.assign(ud, {});
    busy.assign(ud, 0);
    copies_out.assign(ud, 0);
    memory.assign(ud, 0);
    device_dirty.assign(ud, 0);
    queue.assign(ud * ud, {});
    link_busy.assign(ud * ud, 0);
    link_dirty.assign(ud * ud, 0);
    stamp.assign(ud, -1);
    dest_copy.assign(ud, 0);
    dest_priority.assign(ud, 0);
    stamp_counter = 0;
    read_stamp.assign(static_cast<size_t>(nt), 0);
    read_counter = 0;
    kernel_excess.assign(shared ? un : 0, 0);
    for (auto* v : {&run_start, &run_since, &run_stretch, &run_left, &run_end}) v->assign(shared ? ud : 0, 0);
    run_op.assign(shared ? ud : 0, kNoId);
    run_event.assign(shared ? ud : 0, -1);
  }
};

}  // namespace graphopt
