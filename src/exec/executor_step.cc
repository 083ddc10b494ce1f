// The executor's step: workers, readiness, copies, memory and the measured timeline
// (exec/executor.h).
#include <algorithm>
#include <string>

#include "exec/executor.h"
#include "exec/executor_state.h"
#include "exec/pin.h"

namespace graphopt {

double Executor::State::NowUs() const {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

void Executor::State::WakeAll() {
  events.fetch_add(1, std::memory_order_release);
  for (auto& cv : wake) cv.notify_all();
}

void Executor::State::Fail(Status status) {
  if (error.ok()) error = std::move(status);
  WakeAll();
  step_done.notify_all();
}

void Executor::State::Allocate(DeviceId d, int64_t bytes, double now_us) {
  if (bytes == 0) return;
  int64_t& m = memory[static_cast<size_t>(d)];
  m += bytes;
  int64_t& peak = result.device_peak_memory[static_cast<size_t>(d)];
  peak = std::max(peak, m);
  if (options.record_timeline) result.memory_timeline.push_back({now_us, d, m});
}

void Executor::State::MakeReadyIfDone(int32_t task) {
  if (--pending[static_cast<size_t>(task)] != 0) return;
  const ExecTask& t = tasks[static_cast<size_t>(task)];
  ready[static_cast<size_t>(t.device)].push({t.priority, ready_seq++, task});
  events.fetch_add(1, std::memory_order_release);
  wake[static_cast<size_t>(t.device)].notify_one();
}

void Executor::State::MakePresent(int32_t slot) {
  for (int32_t r : slots[static_cast<size_t>(slot)].readers) MakeReadyIfDone(r);
}

void Executor::State::ReleaseSlot(int32_t slot, double now_us) {
  if (--slot_refs[static_cast<size_t>(slot)] > 0) return;
  const ExecSlot& s = slots[static_cast<size_t>(slot)];
  Allocate(s.device, -s.bytes, now_us);
  if (!s.keep) value[static_cast<size_t>(slot)] = at::Tensor();
}

void Executor::State::ResetStep() {
  const int nd = cluster.num_devices();
  result = SimResult();
  result.device_busy_us.assign(static_cast<size_t>(nd), 0);
  result.device_peak_memory = resident_bytes;
  result.device_resident_memory = resident_bytes;
  result.link_bytes.assign(static_cast<size_t>(nd) * static_cast<size_t>(nd), 0);
  result.has_timeline = options.record_timeline;
  memory = resident_bytes;
  for (auto& q : ready) q = {};
  ready_seq = 0;
  error = Status::Ok();
  tasks_left = static_cast<int64_t>(tasks.size());
  for (size_t t = 0; t < tasks.size(); ++t) {
    pending[t] = static_cast<int32_t>(tasks[t].input_slots.size()) + tasks[t].war_waits + 1;
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    slot_refs[i] = static_cast<int32_t>(slots[i].readers.size() + slots[i].copies.size());
    value[i] = slots[i].persistent ? slots[i].persistent_value : at::Tensor();
  }
  start_copies_left = 0;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i].persistent) continue;
    Allocate(slots[i].device, slots[i].bytes, 0);
    MakePresent(static_cast<int32_t>(i));
    start_copies_left += static_cast<int64_t>(slots[i].copies.size());
  }
  // The extra count of each task holds it back until every source is present, so
  // tasks become ready in task order (the graph order of their first members).
  for (size_t t = 0; t < tasks.size(); ++t) MakeReadyIfDone(static_cast<int32_t>(t));
}

void Executor::State::Copy(int32_t from_slot, int32_t to_slot, const at::Tensor& source, std::unique_lock<std::mutex>* lock) {
  const ExecSlot& to = slots[static_cast<size_t>(to_slot)];
  const ExecSlot& from = slots[static_cast<size_t>(from_slot)];
  const double start = NowUs();
  Allocate(to.device, to.bytes, start);
  ++running;
  lock->unlock();
  at::Tensor buffer = to.buffer;
  buffer.copy_(source);
  const double end = NowUs();
  lock->lock();
  --running;
  value[static_cast<size_t>(to_slot)] = buffer;
  const size_t link = static_cast<size_t>(from.device) * static_cast<size_t>(cluster.num_devices()) +
                      static_cast<size_t>(to.device);
  result.link_bytes[link] += to.bytes;
  ++result.num_transfers;
  result.step_time_us = std::max(result.step_time_us, end);
  if (options.record_timeline) {
    TimelineEvent e;
    e.kind = TimelineEvent::Kind::kTransfer;
    e.start_us = start;
    e.end_us = end;
    e.device = from.device;
    e.to = to.device;
    e.tensor = to.tensor;
    e.bytes = to.bytes;
    result.timeline.push_back(e);
  }
  MakePresent(to_slot);
  ReleaseSlot(from_slot, end);
}

Status Executor::State::RunTask(int32_t task, const std::vector<at::Tensor>& inputs,
                                std::vector<at::Tensor>* outputs) {
  const ExecTask& t = tasks[static_cast<size_t>(task)];
  std::vector<std::pair<TensorId, at::Tensor>> internal;
  auto find = [&](TensorId id) -> at::Tensor {
    for (size_t i = 0; i < t.input_slots.size(); ++i) {
      if (slots[static_cast<size_t>(t.input_slots[i])].tensor == id) return inputs[i];
    }
    for (const auto& [tid, v] : internal) {
      if (tid == id) return v;
    }
    return at::Tensor();
  };
  for (OpId o : t.members) {
    const Op& op = graph->op(o);
    std::vector<at::Tensor> in;
    in.reserve(op.inputs.size());
    for (TensorId id : op.inputs) {
      in.push_back(find(id));
      if (!in.back().defined()) {
        return InternalError("executor: op '" + op.name + "' has no value for its input '" + graph->tensor(id).name + "'");
      }
    }
    GO_ASSIGN_OR_RETURN(std::vector<at::Tensor> out, RunKernel(*graph, o, in, &kernel_state[static_cast<size_t>(o)]));
    for (size_t i = 0; i < out.size() && i < op.outputs.size(); ++i) {
      // A view of a parameter would see the parameter's update: give it its own copy.
      if (parameter_storage.count(out[i].storage().unsafeGetStorageImpl()) > 0) out[i] = out[i].clone();
      internal.emplace_back(op.outputs[i], out[i]);
    }
  }
  outputs->clear();
  for (int32_t s : t.output_slots) outputs->push_back(find(slots[static_cast<size_t>(s)].tensor));
  return Status::Ok();
}

void Executor::State::Worker(DeviceId d) {
  const Status pinned = PinThisThread(core_sets[static_cast<size_t>(d)]).WithContext("executor");
  std::unique_lock<std::mutex> lock(mu);
  int64_t seen = 0;
  std::vector<at::Tensor> inputs, outputs;
  for (;;) {
    wake[static_cast<size_t>(d)].wait(lock, [&] { return stopping || generation != seen; });
    if (stopping) return;
    seen = generation;
    if (!pinned.ok()) Fail(pinned);
    // Sources first: copies of this device's inputs and parameters to their readers.
    for (int32_t s : start_copies[static_cast<size_t>(d)]) {
      for (int32_t c : slots[static_cast<size_t>(s)].copies) {
        if (!error.ok()) break;
        const at::Tensor source = value[static_cast<size_t>(s)];
        Copy(s, c, source, &lock);
        --start_copies_left;
      }
    }
    for (;;) {
      auto& q = ready[static_cast<size_t>(d)];
      if (!error.ok() || tasks_left == 0) break;
      if (q.empty()) {
        bool idle = running == 0 && start_copies_left == 0;
        for (const auto& other : ready) idle = idle && other.empty();
        if (idle) {
          Fail(InternalError("executor: the step stalled with " + std::to_string(tasks_left) +
                             " tasks left (a dependency no plan can meet)"));
          break;
        }
        if (options.spin) {  // the core is the device's: poll, as a busy device would
          const uint64_t seen_events = events.load(std::memory_order_acquire);
          lock.unlock();
          while (events.load(std::memory_order_acquire) == seen_events) __builtin_ia32_pause();
          lock.lock();
        } else {
          wake[static_cast<size_t>(d)].wait(lock);
        }
        continue;
      }
      const int32_t task = q.top().task;
      q.pop();
      const ExecTask& t = tasks[static_cast<size_t>(task)];
      inputs.clear();
      for (int32_t s : t.input_slots) inputs.push_back(value[static_cast<size_t>(s)]);
      const double start = NowUs();
      for (int32_t s : t.output_slots) Allocate(d, slots[static_cast<size_t>(s)].bytes, start);
      ++running;
      lock.unlock();
      Status status = RunTask(task, inputs, &outputs);
      const double end = NowUs();
      inputs.clear();
      lock.lock();
      --running;
      if (!status.ok()) {
        Fail(std::move(status));
        break;
      }
      result.device_busy_us[static_cast<size_t>(d)] += end - start;
      ++result.num_kernels;
      result.step_time_us = std::max(result.step_time_us, end);
      if (options.record_timeline) {
        TimelineEvent e;
        e.start_us = start;
        e.end_us = end;
        e.device = d;
        e.op = t.members.front();
        e.num_ops = static_cast<int32_t>(t.members.size());
        result.timeline.push_back(e);
      }
      for (int32_t s : t.input_slots) ReleaseSlot(s, end);
      std::vector<std::pair<int32_t, int32_t>> copies;  // (home slot, copy slot)
      for (size_t i = 0; i < t.output_slots.size(); ++i) {
        const int32_t s = t.output_slots[i];
        value[static_cast<size_t>(s)] = outputs[i];
        MakePresent(s);
        for (int32_t c : slots[static_cast<size_t>(s)].copies) copies.emplace_back(s, c);
        if (slot_refs[static_cast<size_t>(s)] == 0) {  // read by nobody: freed as it ends
          ++slot_refs[static_cast<size_t>(s)];
          ReleaseSlot(s, end);
        }
      }
      outputs.clear();
      for (int32_t w : t.then_release) MakeReadyIfDone(w);
      if (--tasks_left == 0) {
        WakeAll();
      }
      std::stable_sort(copies.begin(), copies.end(), [&](const auto& a, const auto& b) {
        const ExecSlot& x = slots[static_cast<size_t>(a.second)];
        const ExecSlot& y = slots[static_cast<size_t>(b.second)];
        if (x.copy_priority != y.copy_priority) return x.copy_priority > y.copy_priority;
        return x.tensor != y.tensor ? x.tensor < y.tensor : x.device < y.device;
      });
      for (const auto& [from, to] : copies) {
        if (!error.ok()) break;
        const at::Tensor source = value[static_cast<size_t>(from)];
        Copy(from, to, source, &lock);
      }
    }
    ++workers_done;
    step_done.notify_all();
  }
}

StatusOr<SimResult> Executor::RunStep() {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mu);
  s.ResetStep();
  s.workers_done = 0;
  s.t0 = std::chrono::steady_clock::now();
  ++s.generation;
  s.WakeAll();
  s.step_done.wait(lock, [&] { return s.workers_done == static_cast<int>(s.workers.size()); });
  if (!s.error.ok()) return s.error;
  if (s.tasks_left != 0) return InternalError("executor: the step ended with tasks left");
  return s.result;
}

}  // namespace graphopt
