// The event loop of one simulation (Simulator::Run, sim/simulator_run.h): kernels and
// transfers started and ended, tensors published, memory held and freed.
#include "sim/simulator_run.h"

#include <algorithm>
#include <limits>

#include "sim/simulator_slowdowns.h"

namespace graphopt {

using namespace sim_internal;  // NOLINT: the simulator's own helpers

void Simulator::Run::Alloc(DeviceId d, int64_t bytes, double time) {
  if (bytes == 0) return;
  int64_t& m = st.memory[static_cast<size_t>(d)];
  m += bytes;
  int64_t& peak = result.device_peak_memory[static_cast<size_t>(d)];
  if (m > peak) peak = m;
  if (stop_at_oom && m - sim.cluster_.device(d).memory_bytes > stop_margin) stopped = true;
  Sample(d, time);
}

// Drops one hold on copy c; frees it (and the copy it aliases) when none is left.
void Simulator::Run::Release(int32_t c, double time) {
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

void Simulator::Run::MakeReady(OpId r) {
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

void Simulator::Run::StartKernel(OpId r, DeviceId d, double now) {
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
void Simulator::Run::Publish(TensorId t, OpId r, DeviceId d, double now) {
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
void Simulator::Run::FinishKernel(OpId r, DeviceId d, double now) {
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
void Simulator::Run::RunInstant(OpId r, double now) {
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

void Simulator::Run::DrainWorklist(double now) {
  for (size_t i = 0; i < st.worklist.size(); ++i) RunInstant(st.worklist[i], now);
  st.worklist.clear();
}

// Clusters without ports: the link's queue or state changed, Dispatch looks at it.
void Simulator::Run::MarkLinkDirty(int32_t link) {
  if (!st.link_dirty[static_cast<size_t>(link)]) {
    st.link_dirty[static_cast<size_t>(link)] = 1;
    st.dirty_links.push_back(link);
  }
}

// Starts sending received copy k (of `bytes`) over link (from * D + to).
void Simulator::Run::StartTransfer(int32_t k, int32_t link, int64_t bytes, double now) {
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

void Simulator::Run::FinishTransfer(int32_t k, double now) {
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

void Simulator::Run::Dispatch(double now) {
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
bool Simulator::Run::SkipStaleEnd() {
  const Event& e = st.events.front();
  if (e.id < 0 || slow->IsCurrent(e, ops[e.id].device)) return false;
  std::pop_heap(st.events.begin(), st.events.end(), EventLater());
  st.events.pop_back();
  return true;
}

// The event loop; returns the step time.
double Simulator::Run::Loop() {
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

}  // namespace graphopt
