// One simulation (Simulator::Simulate): the plan's fused groups and the event loop.
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>

#include "core/strings.h"
#include "sim/simulator_ports.h"
#include "sim/simulator_scratch.h"
#include "sim/simulator_slowdowns.h"

namespace graphopt {

using namespace sim_internal;  // NOLINT: the simulator's own helpers

// One simulation: the event loop over a Simulator's precomputed arrays and a scratch.
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
  OpState* ops;
  CopyState* copies;
  const OpInfo* info;
  const TensorInfo* tensors;
  Ports ports;  // clusters with ports (sim/simulator_ports.h)
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

  void Alloc(DeviceId d, int64_t bytes, double time) {
    if (bytes == 0) return;
    int64_t& m = st.memory[static_cast<size_t>(d)];
    m += bytes;
    int64_t& peak = result.device_peak_memory[static_cast<size_t>(d)];
    if (m > peak) peak = m;
    if (stop_at_oom && m - sim.cluster_.device(d).memory_bytes > stop_margin) stopped = true;
    Sample(d, time);
  }

  // Drops one hold on copy c; frees it (and the copy it aliases) when none is left.
  void Release(int32_t c, double time) {
    while (c >= 0) {
      CopyState& copy = copies[c];
      if (--copy.refs > 0) return;
      if (copy.bytes != 0) {
        st.memory[static_cast<size_t>(copy.device)] -= copy.bytes;
        Sample(copy.device, time);
      }
      c = copy.alias;
    }
  }

  void MakeReady(OpId r) {
    const OpState& op = ops[r];
    if (op.instant_kernel) {
      st.worklist.push_back(r);
      return;
    }
    const size_t d = static_cast<size_t>(op.device);
    auto& heap = st.ready[d];
    heap.push_back({OrderedBits(op.priority), st.seq++, r});
    std::push_heap(heap.begin(), heap.end(), ReadyLess());
    if (!st.device_dirty[d]) {
      st.device_dirty[d] = 1;
      st.dirty_devices.push_back(op.device);
    }
  }

  // What the event loop needs of the plan, in passes in op order before it (their
  // memory reads in a row, not scattered over the simulated time): each consumer's
  // kernel, device and priority; each kernel's time, allocation and steps at its end;
  // the bytes of each tensor copy its producer allocates.
  void PrepareKernels() {
    const size_t ud = static_cast<size_t>(num_devices);
    for (size_t j = 0; j < sim.cons_.size(); ++j) {
      const OpState& c = ops[sim.cons_[j].op];
      st.consumers[j] = ConsumerState{ops[c.root].priority, c.root, c.device};
    }
    // Each kernel's steps at its end, in its members' order: a member releases its
    // inputs from outside the kernel (a lone instant view not its first: its output
    // keeps it alive), then publishes its outputs.
    st.finish.clear();
    for (OpId r = 0; r < sim.num_ops_; ++r) {
      st.finish_begin[static_cast<size_t>(r)] = static_cast<int32_t>(st.finish.size());
      if (ops[r].root != r) continue;
      OpState& op = ops[r];
      const DeviceId d = op.device;
      const bool singleton = IsSingleton(r);
      for (const OpId* m = MembersBegin(r); m != MembersEnd(r); ++m) {
        const OpInfo& mi = info[*m];
        const int32_t first = singleton && mi.alias_input != kNoId ? mi.in_begin + 1 : mi.in_begin;
        for (int32_t i = first; i < mi.in_end; ++i) {
          const TensorId t = sim.in_[static_cast<size_t>(i)];
          const OpId p = tensors[t].producer;
          if (p == kNoId || ops[p].device != d) {
            st.finish.push_back({i, FinishStep::kReleaseReceived});
          } else if (ops[p].root != r) {
            st.finish.push_back({t, FinishStep::kReleaseLocal});
          }
        }
        for (int32_t i = mi.out_begin; i < mi.out_end; ++i) {
          st.finish.push_back({sim.out_[static_cast<size_t>(i)], FinishStep::kPublish});
        }
      }
      double compute = 0, bytes = 0, body = 0;
      op.alloc_bytes = AllocateOutputs(r, &compute, &bytes, &body);
      op.duration_us = singleton ? sim.op_time_[static_cast<size_t>(r) * ud + static_cast<size_t>(d)]
                                 : CostModel::FusedKernelTimeUs(compute, bytes, body, sim.cluster_.device(d));
      if (slow != nullptr) {
        st.kernel_excess[static_cast<size_t>(r)] =
            singleton ? sim.op_excess_[static_cast<size_t>(r) * ud + static_cast<size_t>(d)]
                      : static_cast<float>(FusedExcess(r, compute + body, bytes));
      }
    }
    st.finish_begin[static_cast<size_t>(sim.num_ops_)] = static_cast<int32_t>(st.finish.size());
  }

  // A fused kernel's stretch minus 1 with every other device busy: the roofline's of its
  // boundary traffic (`bytes`) against its time alone (`time_us`); where the contention
  // lists op kinds, the mean over its members weighted by their time alone, each member
  // of a listed kind with its kind's.
  double FusedExcess(OpId r, double time_us, double bytes) const {
    const DeviceId d = ops[r].device;
    const double roofline =
        RooflineExcess(sim.cluster_.contention(), bytes / sim.cluster_.device(d).memory_bandwidth * 1e6, time_us);
    if (sim.op_kind_excess_.empty()) return roofline;
    const size_t ud = static_cast<size_t>(num_devices);
    double weighted = 0, total = 0;
    for (const OpId* m = MembersBegin(r); m != MembersEnd(r); ++m) {
      const size_t um = static_cast<size_t>(*m);
      const double w = sim.op_time_[um * ud + static_cast<size_t>(d)];
      const double e = sim.op_kind_excess_[um];
      weighted += w * (e >= 0 ? e : roofline);
      total += w;
    }
    return total > 0 ? weighted / total : roofline;
  }

  // Sets the bytes of the outputs of kernel r that leave it and returns their sum;
  // for a fused kernel also returns its boundary bytes, compute time and measured
  // bodies through the pointers.
  int64_t AllocateOutputs(OpId r, double* compute_us, double* boundary_bytes, double* measured_us) {
    const DeviceId d = ops[r].device;
    int64_t alloc = 0;
    const size_t ud = static_cast<size_t>(num_devices);
    if (IsSingleton(r)) {
      const OpInfo& oi = info[r];
      for (int32_t i = oi.out_begin; i < oi.out_end; ++i) {
        const TensorId t = sim.out_[static_cast<size_t>(i)];
        const TensorInfo& ti = tensors[t];
        if (ti.resident) continue;
        copies[t].bytes = ti.bytes;
        alloc += ti.bytes;
      }
      return alloc;
    }
    double compute = 0, body = 0, bytes = 0;
    if (++st.read_counter == 0) {  // wrapped: forget every stamp
      std::fill(st.read_stamp.begin(), st.read_stamp.end(), 0u);
      st.read_counter = 1;
    }
    for (const OpId* m = MembersBegin(r); m != MembersEnd(r); ++m) {
      const size_t um = static_cast<size_t>(*m);
      const double part = sim.op_part_[um * ud + static_cast<size_t>(d)];
      if (info[um].measured) {
        body += part;
        continue;
      }
      compute += part;
      bytes += sim.op_bytes_read_[um] + sim.op_bytes_written_[um];
      // A tensor from outside that several members read is read once.
      for (int32_t i = info[um].in_begin; i < info[um].in_end; ++i) {
        const TensorId t = sim.in_[static_cast<size_t>(i)];
        if (ops[tensors[t].producer].root == r) continue;
        uint32_t& seen = st.read_stamp[static_cast<size_t>(t)];
        if (seen == st.read_counter) {
          bytes -= std::min(static_cast<double>(tensors[t].bytes), sim.op_bytes_read_[um]);
        } else {
          seen = st.read_counter;
        }
      }
    }
    for (const OpId* m = MembersBegin(r); m != MembersEnd(r); ++m) {
      const OpInfo& mi = info[*m];
      for (int32_t i = mi.out_begin; i < mi.out_end; ++i) {
        const TensorId t = sim.out_[static_cast<size_t>(i)];
        const TensorInfo& ti = tensors[t];
        const double tb = static_cast<double>(ti.bytes);
        bool external = false;
        for (int32_t j = ti.cons_begin; j < ti.cons_end; ++j) {
          const OpId c = sim.cons_[static_cast<size_t>(j)].op;
          if (ops[c].root == r) {
            if (!info[c].measured) bytes -= std::min(tb, sim.op_bytes_read_[static_cast<size_t>(c)]);
          } else {
            external = true;
          }
        }
        if (external || ti.cons_begin == ti.cons_end) {
          if (!ti.resident) {
            copies[t].bytes = ti.bytes;
            alloc += ti.bytes;
          }
        } else if (!mi.measured) {
          bytes -= std::min(tb, sim.op_bytes_written_[static_cast<size_t>(*m)]);  // an internal tensor is never written
        }
      }
    }
    *compute_us = compute;
    *boundary_bytes = std::max(0.0, bytes);
    *measured_us = body;
    return alloc;
  }

  void StartKernel(OpId r, DeviceId d, double now) {
    // Its steps at its end, read then: fetched while it runs.
    __builtin_prefetch(st.finish.data() + st.finish_begin[static_cast<size_t>(r)]);
    const double duration = ops[r].duration_us;
    Alloc(d, ops[r].alloc_bytes, now);
    st.busy[static_cast<size_t>(d)] = 1;
    ++result.num_kernels;
    if (slow != nullptr) {  // its busy time and its end in the timeline are known when it ends
      slow->Start(r, d, duration, now);
      if (record) st.run_event[static_cast<size_t>(d)] = static_cast<int64_t>(result.timeline.size());
    } else {
      result.device_busy_us[static_cast<size_t>(d)] += duration;
      st.events.push_back({OrderedBits(now + duration), now + duration, st.seq++, r});
      std::push_heap(st.events.begin(), st.events.end(), EventLater());
    }
    if (record) {
      TimelineEvent e;
      e.kind = TimelineEvent::Kind::kKernel;
      e.start_us = now;
      e.end_us = now + duration;
      e.device = d;
      e.op = r;
      e.num_ops = static_cast<int32_t>(MembersEnd(r) - MembersBegin(r));
      result.timeline.push_back(e);
    }
  }

  // Makes tensor t, produced by kernel r on device d, available to its consumers:
  // local ones at once, remote ones through one transfer per destination device.
  // Tells the input slots of remote readers which received copy they read.
  void Publish(TensorId t, OpId r, DeviceId d, double now) {
    int32_t holds = 0;
    const int32_t stamp = ++st.stamp_counter;
    const TensorInfo& ti = tensors[t];
    for (int32_t j = ti.cons_begin; j < ti.cons_end; ++j) {
      const ConsumerState& c = st.consumers[static_cast<size_t>(j)];
      const DeviceId dc = c.device;
      const OpId rc = c.root;
      if (dc == d) {
        if (rc != r) {
          ++holds;
          if (--ops[rc].pending == 0) MakeReady(rc);
        }
        continue;
      }
      const size_t udc = static_cast<size_t>(dc);
      if (st.stamp[udc] != stamp) {
        st.stamp[udc] = stamp;
        const int32_t k = st.num_copies++;
        copies[k] = CopyState{ti.bytes, 0, dc, -1, t, 0, 0};
        st.dest_copy[udc] = k;
        st.dest_priority[udc] = -std::numeric_limits<double>::infinity();
        st.dest_list.push_back(dc);
      }
      const int32_t k = st.dest_copy[udc];
      ++copies[k].refs;
      st.in_copy[static_cast<size_t>(sim.cons_[static_cast<size_t>(j)].slot)] = k;
      st.dest_priority[udc] = std::max(st.dest_priority[udc], c.priority);
      st.remote_readers.emplace_back(dc, rc);
    }
    if (st.dest_list.empty()) {
      copies[t].refs += holds + 1;  // + the producer's own hold, dropped by the caller
      return;
    }
    for (DeviceId dc : st.dest_list) {
      ++holds;  // the source copy stays until the transfer ends
      CopyState& copy = copies[st.dest_copy[static_cast<size_t>(dc)]];
      copy.readers_begin = copy.readers_end = st.num_readers;
      st.num_readers += copy.refs;
      const int32_t link = d * num_devices + dc;
      auto& q = st.queue[static_cast<size_t>(link)];
      q.push_back({OrderedBits(st.dest_priority[static_cast<size_t>(dc)]), OrderedBits(now), t,
                   st.dest_copy[static_cast<size_t>(dc)], ti.bytes});
      std::push_heap(q.begin(), q.end(), TransferLess());
      if (sim.copies_on_stream_[static_cast<size_t>(d)]) ++st.copies_out[static_cast<size_t>(d)];
      if (sim.has_ports_) {
        ports.Queued(static_cast<size_t>(link));
      } else {
        MarkLinkDirty(link);
      }
    }
    for (const auto& [dc, rc] : st.remote_readers) {
      CopyState& copy = copies[st.dest_copy[static_cast<size_t>(dc)]];
      st.readers[static_cast<size_t>(copy.readers_end++)] = rc;
    }
    st.remote_readers.clear();
    st.dest_list.clear();
    copies[t].refs += holds + 1;  // + the producer's own hold, dropped by the caller
  }

  // Kernel r on device d ends: its members release their inputs and publish outputs
  // (the steps PrepareKernels listed).
  void FinishKernel(OpId r, DeviceId d, double now) {
    const FinishStep* end = st.finish.data() + st.finish_begin[static_cast<size_t>(r) + 1];
    for (const FinishStep* f = st.finish.data() + st.finish_begin[static_cast<size_t>(r)]; f != end; ++f) {
      switch (f->kind) {
        case FinishStep::kReleaseLocal:
          Release(f->index, now);
          break;
        case FinishStep::kReleaseReceived:
          Release(st.in_copy[static_cast<size_t>(f->index)], now);
          break;
        case FinishStep::kPublish:
          Publish(f->index, r, d, now);
          Release(f->index, now);
          break;
      }
    }
    ++completed;
  }

  // An instant op (free op, lone view) runs at once, off the stream.
  void RunInstant(OpId r, double now) {
    const DeviceId d = ops[r].device;
    const TensorId aliased = IsSingleton(r) ? info[r].alias_input : kNoId;
    if (aliased != kNoId) {
      const TensorId y = sim.out_[static_cast<size_t>(info[r].out_begin)];
      copies[y].bytes = 0;
      copies[y].alias = copies[aliased].device == d ? aliased : st.in_copy[static_cast<size_t>(info[r].in_begin)];
    } else {
      Alloc(d, ops[r].alloc_bytes, now);
    }
    FinishKernel(r, d, now);
  }

  void DrainWorklist(double now) {
    for (size_t i = 0; i < st.worklist.size(); ++i) RunInstant(st.worklist[i], now);
    st.worklist.clear();
  }

  // Clusters without ports: the link's queue or state changed, Dispatch looks at it.
  void MarkLinkDirty(int32_t link) {
    if (!st.link_dirty[static_cast<size_t>(link)]) {
      st.link_dirty[static_cast<size_t>(link)] = 1;
      st.dirty_links.push_back(link);
    }
  }

  // Starts sending received copy k (of `bytes`) over link (from * D + to).
  void StartTransfer(int32_t k, int32_t link, int64_t bytes, double now) {
    const size_t ul = static_cast<size_t>(link);
    const DeviceId to = link % num_devices;
    const double duration = sim.link_latency_us_[ul] + static_cast<double>(bytes) * sim.link_us_per_byte_[ul];
    // The kernels waiting for the copy, read when it arrives: fetched while it travels.
    const CopyState& copy = copies[k];
    for (int32_t i = copy.readers_begin; i < copy.readers_end; ++i) {
      __builtin_prefetch(&ops[st.readers[static_cast<size_t>(i)]]);
    }
    Alloc(to, bytes, now);
    if (sim.has_ports_) {
      ports.Take(ul);
    } else {
      st.link_busy[ul] = 1;
    }
    result.link_bytes[ul] += bytes;
    ++result.num_transfers;
    st.events.push_back({OrderedBits(now + duration), now + duration, st.seq++, ~k});
    std::push_heap(st.events.begin(), st.events.end(), EventLater());
    if (record) {
      TimelineEvent e;
      e.kind = TimelineEvent::Kind::kTransfer;
      e.start_us = now;
      e.end_us = now + duration;
      e.device = link / num_devices;
      e.to = to;
      e.tensor = copies[k].tensor;
      e.bytes = bytes;
      result.timeline.push_back(e);
    }
  }

  void FinishTransfer(int32_t k, double now) {
    const CopyState& copy = copies[k];
    const TensorId t = copy.tensor;
    const DeviceId from = copies[t].device, to = copy.device;
    const int32_t link = from * num_devices + to;
    if (sim.has_ports_) {
      ports.Free(static_cast<size_t>(link));
    } else {
      st.link_busy[static_cast<size_t>(link)] = 0;
      MarkLinkDirty(link);
    }
    if (sim.copies_on_stream_[static_cast<size_t>(from)] && --st.copies_out[static_cast<size_t>(from)] == 0 &&
        !st.device_dirty[static_cast<size_t>(from)]) {
      st.device_dirty[static_cast<size_t>(from)] = 1;  // its stream is free for kernels again
      st.dirty_devices.push_back(from);
    }
    Release(t, now);
    for (int32_t i = copy.readers_begin; i < copy.readers_end; ++i) {
      const OpId rc = st.readers[static_cast<size_t>(i)];
      if (--ops[rc].pending == 0) MakeReady(rc);
    }
  }

  void Dispatch(double now) {
    for (DeviceId d : st.dirty_devices) {
      const size_t ud = static_cast<size_t>(d);
      st.device_dirty[ud] = 0;
      auto& heap = st.ready[ud];
      if (st.busy[ud] || heap.empty() || st.copies_out[ud] > 0) continue;
      std::pop_heap(heap.begin(), heap.end(), ReadyLess());
      const OpId r = heap.back().op;
      heap.pop_back();
      StartKernel(r, d, now);
    }
    st.dirty_devices.clear();
    if (sim.has_ports_) {
      ports.Dispatch([&](int32_t link, const TransferEntry& e) { StartTransfer(e.copy, link, e.bytes, now); });
      return;
    }
    for (int32_t link : st.dirty_links) {
      const size_t ul = static_cast<size_t>(link);
      st.link_dirty[ul] = 0;
      auto& q = st.queue[ul];
      if (st.link_busy[ul] || q.empty()) continue;
      std::pop_heap(q.begin(), q.end(), TransferLess());
      const TransferEntry e = q.back();
      q.pop_back();
      StartTransfer(e.copy, link, e.bytes, now);
    }
    st.dirty_links.clear();
  }

  // On a shared machine: drops the first event if it is a kernel end re-timed since it
  // was scheduled (it is not an event any more: it must not move the clock); returns
  // whether it did.
  bool SkipStaleEnd() {
    const Event& e = st.events.front();
    if (e.id < 0 || slow->IsCurrent(e, ops[e.id].device)) return false;
    std::pop_heap(st.events.begin(), st.events.end(), EventLater());
    st.events.pop_back();
    return true;
  }

  // The event loop; returns the step time.
  double Loop() {
    DrainWorklist(0);
    Dispatch(0);
    double now = 0;
    while (!st.events.empty() && !stopped) {
      if (slow != nullptr && SkipStaleEnd()) continue;
      now = st.events.front().time;
      if (stop_after_us > 0 && now > stop_after_us) {
        stopped_slower = true;
        break;
      }
      while (!st.events.empty() && st.events.front().time == now) {
        std::pop_heap(st.events.begin(), st.events.end(), EventLater());
        const Event e = st.events.back();
        st.events.pop_back();
        if (e.id >= 0) {
          const DeviceId d = ops[e.id].device;
          if (slow != nullptr) {
            if (!slow->IsCurrent(e, d)) continue;  // re-timed since it was scheduled
            result.device_busy_us[static_cast<size_t>(d)] += slow->Finish(d, now);
            if (record) result.timeline[static_cast<size_t>(st.run_event[static_cast<size_t>(d)])].end_us = now;
          }
          st.busy[static_cast<size_t>(d)] = 0;
          if (!st.device_dirty[static_cast<size_t>(d)]) {
            st.device_dirty[static_cast<size_t>(d)] = 1;
            st.dirty_devices.push_back(d);
          }
          FinishKernel(e.id, d, now);
        } else {
          FinishTransfer(~e.id, now);
        }
        DrainWorklist(now);
      }
      Dispatch(now);
    }
    return now;
  }
};

StatusOr<SimResult> Simulator::Simulate(const Plan& plan, const SimOptions& options) const {
  SimScratch scratch;
  return Simulate(plan, options, &scratch);
}

StatusOr<SimResult> Simulator::Simulate(const Plan& plan, const SimOptions& options, SimScratch* scratch) const {
  GO_CHECK(scratch != nullptr);
  const int n = num_ops_, nt = num_tensors_, num_devices = num_devices_;
  const size_t un = static_cast<size_t>(n), ud = static_cast<size_t>(num_devices);
  auto invalid = [&]() -> Status {
    Status s = ValidatePlan(*graph_, cluster_, plan);
    return s.ok() ? InternalError("plan rejected by the simulator but not by ValidatePlan") : s;
  };
  if ((!plan.device.empty() && plan.device.size() != un) || (!plan.priority.empty() && plan.priority.size() != un) ||
      (!plan.fuse_with_producer.empty() && plan.fuse_with_producer.size() != un)) {
    return invalid();
  }
  SimScratchState& st = *scratch->state_;
  st.Prepare(*this, n, nt, num_devices, num_reads_, in_.size(), has_contention_);
  OpState* ops = st.ops.data();

  SimResult result;
  result.lower_bound_us = lower_bound_.value_us();
  result.device_busy_us.assign(ud, 0);
  result.device_peak_memory.assign(ud, 0);
  result.device_resident_memory.assign(ud, 0);
  result.link_bytes.assign(ud * ud, 0);
  result.has_timeline = options.record_timeline;

  // The plan, checked as it is copied in. A colocation leader has the lowest id of
  // its group, so its device is known when its group's other ops come.
  bool fused = false;
  if (!plan.fuse_with_producer.empty()) {
    for (size_t o = 0; o < un && !fused; ++o) fused = plan.fuse_with_producer[o] != 0;
  }
  bool bad = false;
  const bool has_device = !plan.device.empty(), has_priority = !plan.priority.empty();
  for (size_t o = 0; o < un; ++o) {
    const OpInfo& oi = ops_[o];
    OpState& os = ops[o];
    const DeviceId d = has_device ? plan.device[o] : 0;
    const double p = has_priority ? plan.priority[o] : 0.0;
    bad |= d < 0 || d >= num_devices || !std::isfinite(p) ||
           (oi.colocation_leader != kNoId && oi.colocation_leader != static_cast<OpId>(o) &&
            d != ops[oi.colocation_leader].device);
    os.device = d;
    os.priority = p;
    os.root = static_cast<OpId>(o);
    os.pending = fused ? 0 : oi.in_end - oi.in_begin;
    os.instant_kernel = oi.instant;
    if (!bad) result.device_resident_memory[static_cast<size_t>(d)] += resident_bytes_[o];
  }
  if (fused) {
    for (size_t o = 0; o < un; ++o) {
      if (!plan.fuse_with_producer[o]) continue;
      const OpId p = ops_[o].fusion_producer;
      bad |= p == kNoId || ops[p].device != ops[o].device;
    }
  }
  if (bad) return invalid();

  // Kernels: fused groups by their root.
  if (fused) {
    for (size_t o = 0; o < un; ++o) {
      if (plan.fuse_with_producer[o]) ops[o].root = kNoId;
    }
    for (size_t o = 0; o < un; ++o) {
      OpId x = static_cast<OpId>(o);
      while (ops[x].root == kNoId) {
        st.path.push_back(x);
        x = ops_[static_cast<size_t>(x)].fusion_producer;
      }
      const OpId r = ops[x].root;
      for (OpId p : st.path) ops[p].root = r;
      st.path.clear();
    }
    std::fill(st.member_begin.begin(), st.member_begin.end(), 0);
    for (size_t o = 0; o < un; ++o) ++st.member_begin[static_cast<size_t>(ops[o].root) + 1];
    for (size_t o = 0; o < un; ++o) st.member_begin[o + 1] += st.member_begin[o];
    // Fill with a moving cursor per root, then shift the cursors back to the begins.
    for (size_t o = 0; o < un; ++o)
      st.members[static_cast<size_t>(st.member_begin[static_cast<size_t>(ops[o].root)]++)] = static_cast<OpId>(o);
    for (size_t o = un; o > 0; --o) st.member_begin[o] = st.member_begin[o - 1];
    st.member_begin[0] = 0;
    for (size_t o = 0; o < un; ++o) {
      const OpId r = ops[o].root;
      if (r != static_cast<OpId>(o)) {
        ops[r].priority = std::max(ops[r].priority, ops[o].priority);
        ops[r].instant_kernel = 0;  // a fused group is always a kernel
      }
      for (int32_t i = ops_[o].in_begin; i < ops_[o].in_end; ++i) {
        if (ops[tensors_[static_cast<size_t>(in_[static_cast<size_t>(i)])].producer].root != r) ++ops[r].pending;
      }
    }
  }
  // Every fused kernel must be one a compiler emits (sim/fusion_rules.h).
  if (fused) {
    const FusionRules& rules = *fusion_rules_;
    st.groups.resize(un);
    for (size_t o = 0; o < un; ++o) {
      if (ops[o].root == static_cast<OpId>(o)) st.groups[o] = rules.Start(static_cast<OpId>(o));
    }
    for (size_t o = 0; o < un; ++o) {
      if (ops[o].root != static_cast<OpId>(o)) rules.Join(&st.groups[static_cast<size_t>(ops[o].root)], static_cast<OpId>(o));
    }
    for (size_t o = 0; o < un; ++o) {
      const OpId r = ops[o].root;
      if (r != static_cast<OpId>(o) && st.groups[static_cast<size_t>(r)].members > 1 &&
          rules.CheckInWholeGroup(st.groups[static_cast<size_t>(r)], static_cast<OpId>(o)) != FusionRule::kOk) {
        return invalid();
      }
    }
  }
  int64_t num_kernels = 0;
  for (size_t o = 0; o < un; ++o) num_kernels += ops[o].root == static_cast<OpId>(o);

  // Tensor copies on their producers' devices.
  CopyState* copies = st.copies.data();
  for (size_t t = 0; t < static_cast<size_t>(nt); ++t) {
    const OpId p = tensors_[t].producer;
    copies[t] = CopyState{0, 0, p == kNoId ? kNoId : ops[p].device, -1, static_cast<TensorId>(t), 0, 0};
  }
  st.num_copies = nt;
  st.num_readers = 0;
  st.seq = 0;
  st.events.clear();
  st.worklist.clear();
  st.dirty_devices.clear();
  st.dirty_links.clear();
  for (size_t d = 0; d < ud; ++d) {
    st.ready[d].clear();
    st.busy[d] = 0;
    st.copies_out[d] = 0;
    st.device_dirty[d] = 0;
    st.memory[d] = result.device_resident_memory[d];
    result.device_peak_memory[d] = st.memory[d];
  }
  for (size_t l = 0; l < ud * ud; ++l) {
    st.queue[l].clear();
    st.link_busy[l] = 0;
    st.link_dirty[l] = 0;
  }
  if (has_ports_) Ports{*this, st}.Reset();

  Run run(*this, st, result, options.record_timeline);
  std::optional<Slowdowns> slowdowns;
  if (has_contention_) run.slow = &slowdowns.emplace(*this, st);
  run.fused = fused;
  run.stop_at_oom = options.stop_at_oom || options.stop_above_overflow >= 0;
  run.stop_margin = options.stop_at_oom ? 0 : options.stop_above_overflow;
  run.stop_after_us = options.stop_after_us;
  for (size_t d = 0; d < ud && run.stop_at_oom; ++d) {
    run.stopped |= result.device_peak_memory[d] - cluster_.device(static_cast<DeviceId>(d)).memory_bytes > run.stop_margin;
  }
  if (options.record_timeline) {
    for (size_t d = 0; d < ud; ++d) run.Sample(static_cast<DeviceId>(d), 0);
  }
  run.PrepareKernels();
  for (size_t o = 0; o < un; ++o) {
    if (ops[o].root == static_cast<OpId>(o) && ops[o].pending == 0) run.MakeReady(static_cast<OpId>(o));
  }
  result.step_time_us = run.stopped ? 0 : run.Loop();
  result.stopped_at_oom = run.stopped;
  result.stopped_slower = run.stopped_slower;
  // Only a cycle through fused groups can stall the loop (a stopped run is not checked).
  if (!run.stopped && !run.stopped_slower && run.completed != num_kernels) return invalid();

  for (DeviceId d = 0; d < num_devices; ++d) {
    const int64_t over = result.device_peak_memory[static_cast<size_t>(d)] - cluster_.device(d).memory_bytes;
    if (over > 0 && over > result.oom_overflow_bytes) {
      result.oom = true;
      result.oom_device = d;
      result.oom_overflow_bytes = over;
    }
  }
  return result;
}

}  // namespace graphopt