// One simulation's set-up (Simulator::Simulate): the plan copied in and checked, its
// fused groups as kernels, what the event loop (simulator_run.cc) reads of them, and
// the result.
#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/simulator_run.h"
#include "sim/simulator_slowdowns.h"

namespace graphopt {

using namespace sim_internal;  // NOLINT: the simulator's own helpers

// What the event loop needs of the plan, in passes in op order before it (their
// memory reads in a row, not scattered over the simulated time): each consumer's
// kernel, device and priority; each kernel's time, allocation and steps at its end;
// the bytes of each tensor copy its producer allocates.
void Simulator::Run::PrepareKernels() {
  const size_t ud = static_cast<size_t>(num_devices);
  for (size_t j = 0; j < sim.cons_.size(); ++j) {
    const OpState& c = ops[sim.cons_[j].op];
    st.consumers[j] = ConsumerState{ops[c.root].priority, c.root, c.device};
  }
  // Each kernel's steps at its end, in its members' order: a member releases its
  // inputs from outside the kernel (a lone instant view not its first: its output
  // keeps it alive), then publishes its outputs.
  st.finish.clear();
  const double read_excess = sim.cluster_.contention().read - 1;  // per received byte, in local reads
  for (OpId r = 0; r < sim.num_ops_; ++r) {
    st.finish_begin[static_cast<size_t>(r)] = static_cast<int32_t>(st.finish.size());
    if (ops[r].root != r) continue;
    OpState& op = ops[r];
    const DeviceId d = op.device;
    const bool singleton = IsSingleton(r);
    double received = 0;  // bytes of its inputs from other devices
    for (const OpId* m = MembersBegin(r); m != MembersEnd(r); ++m) {
      const OpInfo& mi = info[*m];
      const int32_t first = singleton && mi.alias_input != kNoId ? mi.in_begin + 1 : mi.in_begin;
      for (int32_t i = first; i < mi.in_end; ++i) {
        const TensorId t = sim.in_[static_cast<size_t>(i)];
        const OpId p = tensors[t].producer;
        if (p == kNoId || ops[p].device != d) {
          st.finish.push_back({i, FinishStep::kReleaseReceived});
          if (p != kNoId) received += static_cast<double>(tensors[t].bytes);
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
    if (read_excess > 0 && !op.instant_kernel) {
      op.duration_us += read_excess * received / sim.cluster_.device(d).memory_bandwidth * kUsPerSecond;
    }
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
double Simulator::Run::FusedExcess(OpId r, double time_us, double bytes) const {
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
int64_t Simulator::Run::AllocateOutputs(OpId r, double* compute_us, double* boundary_bytes, double* measured_us) {
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
      if (ops[o].root != static_cast<OpId>(o))
        rules.Join(&st.groups[static_cast<size_t>(ops[o].root)], static_cast<OpId>(o));
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
    run.stopped |=
        result.device_peak_memory[d] - cluster_.device(static_cast<DeviceId>(d)).memory_bytes > run.stop_margin;
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