// The executor's set-up: checks, tasks, slots, data and buffers, workers
// (exec/executor.h). The step itself is executor_step.cc.
#include "exec/executor.h"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "exec/executor_state.h"
#include "graph/verifier.h"
#include "sim/fusion_rules.h"

namespace graphopt {
namespace {

bool IsUpdate(const Op& op) { return CategoryOf(op.kind) == OpCategory::kUpdate; }

// Groups ops into tasks: one per unfused op or fused group, members in graph order.
void BuildTasks(const Graph& graph, const Plan& plan, const std::vector<OpId>& order, Executor::State* s) {
  const std::vector<OpId> root = FusionRules(graph).Roots(plan.fuse_with_producer);
  s->group_of.assign(static_cast<size_t>(graph.num_ops()), -1);
  for (OpId o : order) {
    if (IsFree(graph.op(o).kind)) continue;
    const OpId r = root[static_cast<size_t>(o)];
    int32_t& task = s->group_of[static_cast<size_t>(r)];
    if (task < 0) {
      task = static_cast<int32_t>(s->tasks.size());
      s->tasks.emplace_back();
      s->tasks.back().device = plan.device[static_cast<size_t>(r)];
      s->tasks.back().priority = plan.priority[static_cast<size_t>(r)];
    }
    s->group_of[static_cast<size_t>(o)] = task;
    ExecTask& t = s->tasks[static_cast<size_t>(task)];
    t.members.push_back(o);
    t.priority = std::max(t.priority, plan.priority[static_cast<size_t>(o)]);
  }
}

// The home slot of every tensor read outside its producer's task (or read by nobody:
// a step output), and a copy slot per other device that reads it.
Status BuildSlots(const Graph& graph, const Plan& plan, Executor::State* s) {
  s->slot_of_output.assign(static_cast<size_t>(graph.num_tensors()), -1);
  std::map<std::pair<TensorId, DeviceId>, int32_t> copy_of;
  for (TensorId t = 0; t < graph.num_tensors(); ++t) {
    const Tensor& tensor = graph.tensor(t);
    if (tensor.producer == kNoId) continue;
    const Op& producer = graph.op(tensor.producer);
    const bool free = IsFree(producer.kind);
    const int32_t own_task = s->group_of[static_cast<size_t>(tensor.producer)];
    const DeviceId home = plan.device[static_cast<size_t>(tensor.producer)];
    std::function<int32_t(DeviceId)> slot_on = [&](DeviceId d) -> int32_t {
      if (d == home) {
        int32_t& h = s->slot_of_output[static_cast<size_t>(t)];
        if (h < 0) {
          h = static_cast<int32_t>(s->slots.size());
          ExecSlot slot;
          slot.tensor = t;
          slot.device = home;
          slot.home = true;
          slot.persistent = free;
          slot.bytes = producer.kind == OpKind::kVariable || CategoryOf(producer.kind) == OpCategory::kView ? 0
                                                                                                           : tensor.bytes();
          s->slots.push_back(std::move(slot));
        }
        return h;
      }
      slot_on(home);  // the home slot holds the value until it is copied
      auto [it, added] = copy_of.emplace(std::make_pair(t, d), static_cast<int32_t>(s->slots.size()));
      if (added) {
        ExecSlot slot;
        slot.tensor = t;
        slot.device = d;
        slot.bytes = tensor.bytes();
        s->slots.push_back(std::move(slot));
      }
      return it->second;
    };
    bool read = false;
    for (OpId c : tensor.consumers) {
      const int32_t task = s->group_of[static_cast<size_t>(c)];
      if (task < 0) continue;  // a metadata op reads shapes, not data
      read = true;
      if (task == own_task) continue;
      const int32_t slot = slot_on(plan.device[static_cast<size_t>(c)]);
      std::vector<int32_t>& readers = s->slots[static_cast<size_t>(slot)].readers;
      if (std::find(readers.begin(), readers.end(), task) == readers.end()) {
        readers.push_back(task);
        s->tasks[static_cast<size_t>(task)].input_slots.push_back(slot);
      }
    }
    if (!read && !free && tensor.consumers.empty()) {
      s->slots[static_cast<size_t>(slot_on(home))].keep = true;
    }
  }
  // Copies: from their home slot, highest-priority readers first, then device order.
  for (int32_t i = 0; i < static_cast<int32_t>(s->slots.size()); ++i) {
    ExecSlot& slot = s->slots[static_cast<size_t>(i)];
    if (slot.home) continue;
    if (!slot.readers.empty()) {
      slot.copy_priority = s->tasks[static_cast<size_t>(slot.readers[0])].priority;
      for (int32_t r : slot.readers) slot.copy_priority = std::max(slot.copy_priority, s->tasks[static_cast<size_t>(r)].priority);
    }
    slot.home_slot = s->slot_of_output[static_cast<size_t>(slot.tensor)];
    if (slot.home_slot < 0) {
      return InternalError("executor: tensor '" + graph.tensor(slot.tensor).name + "' has a copy but no home slot");
    }
    s->slots[static_cast<size_t>(slot.home_slot)].copies.push_back(i);
  }
  for (ExecSlot& slot : s->slots) {
    std::stable_sort(slot.copies.begin(), slot.copies.end(), [&](int32_t a, int32_t b) {
      const ExecSlot& x = s->slots[static_cast<size_t>(a)];
      const ExecSlot& y = s->slots[static_cast<size_t>(b)];
      return x.copy_priority != y.copy_priority ? x.copy_priority > y.copy_priority : x.device < y.device;
    });
  }
  for (size_t i = 0; i < s->tasks.size(); ++i) {
    for (OpId o : s->tasks[i].members) {
      for (TensorId t : graph.op(o).outputs) {
        const int32_t h = s->slot_of_output[static_cast<size_t>(t)];
        if (h >= 0) s->tasks[i].output_slots.push_back(h);
      }
    }
  }
  return Status::Ok();
}

// An update op waits for the other readers of its parameter on its device.
void AddUpdateWaits(const Graph& graph, Executor::State* s) {
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const Op& op = graph.op(o);
    if (!IsUpdate(op) || op.inputs.empty()) continue;
    const int32_t task = s->group_of[static_cast<size_t>(o)];
    const DeviceId d = s->tasks[static_cast<size_t>(task)].device;
    for (const ExecSlot& slot : s->slots) {
      if (slot.tensor != op.inputs[0] || slot.device != d) continue;
      for (int32_t r : slot.readers) {
        if (r == task) continue;
        s->tasks[static_cast<size_t>(r)].then_release.push_back(task);
        ++s->tasks[static_cast<size_t>(task)].war_waits;
      }
    }
  }
}

// The tasks in an order their inputs and the updates' waits allow: a plan whose fused
// groups put a parameter's update before a reader of that parameter that needs the
// update's group (the group also computes a tensor the reader depends on) cannot run:
// the update must wait for the reader, which waits for the update (the simulator,
// which has no read-before-write waits, runs it). Refused before the step, naming both.
Status CheckTasksCanRun(const Graph& graph, const Executor::State& s) {
  const size_t n = s.tasks.size();
  std::vector<int32_t> producer(s.slots.size(), -1);
  for (size_t t = 0; t < n; ++t) {
    for (int32_t slot : s.tasks[t].output_slots) producer[static_cast<size_t>(slot)] = static_cast<int32_t>(t);
  }
  for (size_t c = 0; c < s.slots.size(); ++c) {
    if (s.slots[c].home_slot >= 0) producer[c] = producer[static_cast<size_t>(s.slots[c].home_slot)];
  }
  std::vector<std::vector<int32_t>> next(n);
  std::vector<int32_t> waits(n, 0);
  for (size_t t = 0; t < n; ++t) {
    for (int32_t slot : s.tasks[t].input_slots) {
      const int32_t p = producer[static_cast<size_t>(slot)];
      if (p < 0) continue;
      next[static_cast<size_t>(p)].push_back(static_cast<int32_t>(t));
      ++waits[t];
    }
    for (int32_t u : s.tasks[t].then_release) {
      next[t].push_back(u);
      ++waits[static_cast<size_t>(u)];
    }
  }
  std::vector<int32_t> ready;
  for (size_t t = 0; t < n; ++t) {
    if (waits[t] == 0) ready.push_back(static_cast<int32_t>(t));
  }
  size_t done = 0;
  while (!ready.empty()) {
    const int32_t t = ready.back();
    ready.pop_back();
    ++done;
    for (int32_t u : next[static_cast<size_t>(t)]) {
      if (--waits[static_cast<size_t>(u)] == 0) ready.push_back(u);
    }
  }
  if (done == n) return Status::Ok();
  for (size_t r = 0; r < n; ++r) {
    if (waits[r] == 0) continue;
    for (int32_t u : s.tasks[r].then_release) {
      if (waits[static_cast<size_t>(u)] == 0) continue;
      OpId update = s.tasks[static_cast<size_t>(u)].members.front();
      for (OpId o : s.tasks[static_cast<size_t>(u)].members) {
        if (IsUpdate(graph.op(o))) update = o;
      }
      return FailedPrecondition("executor: the plan cannot run: the update '" + graph.op(update).name +
                                "' must wait for '" + graph.op(s.tasks[r].members.front()).name +
                                "' (it reads the parameter before the update), which needs a tensor of the update's own "
                                "fused group; fuse them otherwise");
    }
  }
  return FailedPrecondition("executor: the plan cannot run: its tasks wait for each other in a cycle");
}

// Source data from the seed, metadata outputs from shapes, copy buffers.
Status MakeData(const Graph& graph, const std::vector<OpId>& order, Executor::State* s) {
  std::vector<at::Tensor> made(static_cast<size_t>(graph.num_tensors()));
  for (OpId o : order) {
    const Op& op = graph.op(o);
    if (!IsFree(op.kind)) continue;
    if (CategoryOf(op.kind) == OpCategory::kSource) {
      for (TensorId t : op.outputs) {
        GO_ASSIGN_OR_RETURN(made[static_cast<size_t>(t)], MakeSourceTensor(graph, t, s->options.seed));
      }
    } else {
      std::vector<at::Tensor> inputs;
      for (TensorId t : op.inputs) {
        const Tensor& in = graph.tensor(t);
        inputs.push_back(made[static_cast<size_t>(t)].defined()
                             ? made[static_cast<size_t>(t)]
                             : at::zeros(in.shape, at::TensorOptions().dtype(ToScalarType(in.dtype))));
      }
      GO_ASSIGN_OR_RETURN(std::vector<at::Tensor> outputs, RunKernel(graph, o, inputs, nullptr));
      for (size_t i = 0; i < outputs.size() && i < op.outputs.size(); ++i) made[static_cast<size_t>(op.outputs[i])] = outputs[i];
    }
    if (op.kind == OpKind::kVariable) {
      for (TensorId t : op.outputs) {
        s->parameter_storage.insert(made[static_cast<size_t>(t)].storage().unsafeGetStorageImpl());
      }
    }
  }
  s->start_copies.assign(static_cast<size_t>(s->cluster.num_devices()), {});
  for (int32_t i = 0; i < static_cast<int32_t>(s->slots.size()); ++i) {
    ExecSlot& slot = s->slots[static_cast<size_t>(i)];
    const Tensor& tensor = graph.tensor(slot.tensor);
    if (slot.persistent) {
      slot.persistent_value = made[static_cast<size_t>(slot.tensor)];
      if (!slot.copies.empty()) s->start_copies[static_cast<size_t>(slot.device)].push_back(i);
    }
    if (!slot.home) slot.buffer = at::empty(tensor.shape, at::TensorOptions().dtype(ToScalarType(tensor.dtype)));
  }
  return Status::Ok();
}

}  // namespace

Executor::Executor(std::unique_ptr<State> state) : state_(std::move(state)) {}

Executor::~Executor() {
  {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->stopping = true;
  }
  state_->WakeAll();
  for (std::thread& w : state_->workers) w.join();
}

// tcmalloc (linked with LibTorch here) keeps 32 MiB of per-thread caches in all, shared
// out over every thread: with the workers of a dozen executors alive at once (bench
// --fidelity keeps one per plan), each worker's share is too small for a step's
// activations, and steps slow down (docs/experiments/2026-11-29-executor-settings.md,
// "tcmalloc's thread caches"). A gibibyte of caches in all, set once; nothing without
// tcmalloc (sanitizer builds).
extern "C" int MallocExtension_SetNumericProperty(const char* property, size_t value) __attribute__((weak));

namespace {

void WidenThreadCaches() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (MallocExtension_SetNumericProperty != nullptr) {
      MallocExtension_SetNumericProperty("tcmalloc.max_total_thread_cache_bytes", size_t{1} << 30);
    }
  });
}

}  // namespace

StatusOr<std::unique_ptr<Executor>> Executor::Create(const Graph& graph, const Cluster& cluster,
                                                     const std::vector<std::vector<int>>& core_sets, const Plan& plan,
                                                     const ExecOptions& options) {
  if (static_cast<int>(core_sets.size()) != cluster.num_devices()) {
    return InvalidArgument("executor: " + std::to_string(core_sets.size()) + " core sets for the " +
                           std::to_string(cluster.num_devices()) + " devices of cluster " + cluster.name());
  }
  for (size_t d = 0; d < core_sets.size(); ++d) {
    if (core_sets[d].empty()) return InvalidArgument("executor: device " + cluster.device(static_cast<DeviceId>(d)).name + " has no cores");
  }
  WidenThreadCaches();
  auto s = std::make_unique<State>();
  s->graph = &graph;
  s->cluster = cluster;
  s->core_sets = core_sets;
  s->plan = plan;
  s->options = options;
  GO_RETURN_IF_ERROR(CompletePlan(graph, &s->plan));
  GO_RETURN_IF_ERROR(ValidatePlan(graph, cluster, s->plan));
  GO_RETURN_IF_ERROR(CheckKernels(graph));
  {
    GO_ASSIGN_OR_RETURN(Simulator sim, Simulator::Create(graph, cluster));
    GO_ASSIGN_OR_RETURN(SimResult sim_result, sim.Simulate(s->plan));
    if (sim_result.oom) {
      return FailedPrecondition("executor: the plan does not fit (simulated): " + sim_result.OomVerdict(cluster));
    }
  }
  GO_ASSIGN_OR_RETURN(std::vector<OpId> order, TopologicalOrder(graph));
  BuildTasks(graph, s->plan, order, s.get());
  GO_RETURN_IF_ERROR(BuildSlots(graph, s->plan, s.get()));
  AddUpdateWaits(graph, s.get());
  GO_RETURN_IF_ERROR(CheckTasksCanRun(graph, *s));
  GO_RETURN_IF_ERROR(MakeData(graph, order, s.get()));
  const int nd = cluster.num_devices();
  s->resident_bytes.assign(static_cast<size_t>(nd), 0);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    s->resident_bytes[static_cast<size_t>(s->plan.device[static_cast<size_t>(o)])] += OpResidentBytes(graph, o);
  }
  s->kernel_state.resize(static_cast<size_t>(graph.num_ops()));
  s->wake = std::vector<std::condition_variable>(static_cast<size_t>(nd));
  s->ready.resize(static_cast<size_t>(nd));
  s->pending.assign(s->tasks.size(), 0);
  s->slot_refs.assign(s->slots.size(), 0);
  s->value.resize(s->slots.size());
  s->memory.assign(static_cast<size_t>(nd), 0);
  State* raw = s.get();
  for (DeviceId d = 0; d < nd; ++d) raw->workers.emplace_back([raw, d] { raw->Worker(d); });
  return std::unique_ptr<Executor>(new Executor(std::move(s)));
}

std::vector<std::pair<std::string, at::Tensor>> Executor::Outputs() const {
  std::lock_guard<std::mutex> lock(state_->mu);
  std::vector<std::pair<std::string, at::Tensor>> out;
  for (size_t i = 0; i < state_->slots.size(); ++i) {
    const ExecSlot& slot = state_->slots[i];
    if (slot.keep && state_->value[i].defined()) out.emplace_back(state_->graph->tensor(slot.tensor).name, state_->value[i]);
    if (slot.persistent && slot.home && state_->graph->op(state_->graph->tensor(slot.tensor).producer).kind == OpKind::kVariable) {
      out.emplace_back(state_->graph->tensor(slot.tensor).name, slot.persistent_value);
    }
  }
  return out;
}

}  // namespace graphopt
