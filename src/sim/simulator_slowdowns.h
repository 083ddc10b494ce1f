// The shared-machine part of one simulation (Simulator::Simulate): kernels stretched
// while other devices run kernels, on a cluster whose devices share a memory system
// (Cluster::contention; semantics and the measurement behind them in sim/simulator.h,
// "Shared machine"). Not part of the interface: simulator_run.cc and
// simulator_prepare.cc include it.
//
// Processor sharing, exact between events: each running kernel keeps its work left
// (in unstretched microseconds) as of the last time its stretch changed; when a kernel
// starts or ends, every other running kernel's work done since then is taken off at its
// old stretch and its end is scheduled again at the new one. An end scheduled before is
// left in the event heap and skipped when it comes (IsCurrent): a kernel's current end
// is the one its device records. Clusters without contention never get here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/simulator.h"
#include "sim/simulator_scratch.h"

namespace graphopt {

// The stretch minus 1, with every other device busy, of a kernel whose roofline time is
// `memory_us` of memory traffic and `compute_us` of the rest: each part slowed by its
// Contention ratio.
inline double RooflineExcess(const Contention& c, double memory_us, double compute_us) {
  const double m = memory_us > 0 ? memory_us / (memory_us + compute_us) : 0;
  return m * (c.memory - 1) + (1 - m) * (c.compute - 1);
}

struct Simulator::Slowdowns {
  using Event = sim_internal::Event;
  using EventLater = sim_internal::EventLater;

  SimScratchState& st;
  double per_device = 0;  // 1 / (devices - 1)
  int busy = 0;           // devices running a kernel

  Slowdowns(const Simulator& sim, SimScratchState& state) : st(state) {
    per_device = sim.num_devices_ > 1 ? 1.0 / (sim.num_devices_ - 1) : 0;
  }

  // Kernel r starts on device d at `now`, `duration` us long alone: the others running
  // are re-timed, r's end is scheduled; returns it.
  double Start(OpId r, DeviceId d, double duration, double now) {
    const size_t ud = static_cast<size_t>(d);
    st.run_op[ud] = r;
    ++busy;
    RetimeOthers(d, now);
    st.run_start[ud] = st.run_since[ud] = now;
    st.run_left[ud] = duration;
    st.run_stretch[ud] = Stretch(d);
    st.run_end[ud] = now + duration * st.run_stretch[ud];
    Push(r, st.run_end[ud]);
    return st.run_end[ud];
  }

  // Whether a kernel's end event is the one its device scheduled last.
  bool IsCurrent(const Event& e, DeviceId d) const {
    const size_t ud = static_cast<size_t>(d);
    return st.run_op[ud] == e.id && st.run_end[ud] == e.time;
  }

  // The kernel on d ends at `now`: the others are re-timed; returns how long it ran.
  double Finish(DeviceId d, double now) {
    const size_t ud = static_cast<size_t>(d);
    st.run_op[ud] = kNoId;
    --busy;
    RetimeOthers(d, now);
    return now - st.run_start[ud];
  }

 private:
  // The stretch of the kernel running on d with the other busy devices as they are.
  double Stretch(DeviceId d) const {
    const size_t ud = static_cast<size_t>(d);
    return 1 + (busy - 1) * per_device * st.kernel_excess[static_cast<size_t>(st.run_op[ud])];
  }

  void RetimeOthers(DeviceId changed, double now) {
    for (size_t e = 0; e < st.run_op.size(); ++e) {
      if (static_cast<DeviceId>(e) == changed || st.run_op[e] == kNoId || st.run_end[e] <= now) continue;
      const double done = (now - st.run_since[e]) / st.run_stretch[e];
      st.run_left[e] = std::max(0.0, st.run_left[e] - done);
      st.run_since[e] = now;
      st.run_stretch[e] = Stretch(static_cast<DeviceId>(e));
      const double end = now + st.run_left[e] * st.run_stretch[e];
      if (end == st.run_end[e]) continue;
      st.run_end[e] = end;
      Push(st.run_op[e], end);
    }
  }

  void Push(OpId r, double end) {
    st.events.push_back({sim_internal::OrderedBits(end), end, st.seq++, r});
    std::push_heap(st.events.begin(), st.events.end(), EventLater());
  }
};

}  // namespace graphopt
