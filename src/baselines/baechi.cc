// The Baechi placers (baselines/baechi.h): the problem's checks and DAG, m-TOPO,
// and the graph adapter; m-ETF and m-SCT schedule in baechi_list.cc, m-SCT's
// favourite children come from baechi_lp.cc.
//
// m-TOPO, as the paper's code does it: the uniform share of each processor is
// (the static memory of all tasks) / processors + the largest unit's, where a
// task's static memory is its resident bytes plus its tensors' and a unit is what
// one placement brings (a task, its deferred producers not yet placed, and the
// colocation groups it decides, whole). Units in topological order fill processor
// 0 until the next would pass its share or its capacity, then processor 1, and so
// on; the last processor takes what is left. The static count is far above the
// live memory of a training step (it counts every tensor as live all step), so when
// it cannot fit within the capacities the placement is made by the share alone, as
// the paper's uniform m-TOPO does (it checks no capacity), with fits = false.
#include "baselines/baechi.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "baselines/baechi_dag.h"
#include "baselines/baseline.h"
#include "core/logging.h"

namespace graphopt {

using baechi_internal::CapacityOf;
using baechi_internal::GroupOf;
using baechi_internal::InEdge;
using baechi_internal::IsDeferred;
using baechi_internal::ResidentOf;
using baechi_internal::TaskDag;

namespace {

constexpr double kUsPerSecond = 1e6;

std::string TaskName(int task) { return "task " + std::to_string(task); }

bool FiniteNonNegative(double x) { return std::isfinite(x) && x >= 0; }

// m-TOPO on a valid problem; with `capacity`, a processor's share is also capped by
// its capacity, and a unit that fits nowhere goes where it overflows least.
BaechiSchedule ScheduleTopo(const BaechiProblem& p, const TaskDag& dag, bool capacity) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  const int np = p.num_procs;
  std::vector<int64_t> out_memory(n, 0);
  for (const BaechiTensor& t : p.tensors) out_memory[static_cast<size_t>(t.producer)] += t.memory;
  const int32_t num_groups = baechi_internal::NumGroups(p);
  std::vector<int64_t> group_static(static_cast<size_t>(num_groups), 0);
  int64_t total = 0, largest = 0;
  for (size_t v = 0; v < n; ++v) {
    const int64_t m = ResidentOf(p, static_cast<int>(v)) + out_memory[v];
    total += m;
    const int32_t g = GroupOf(p, static_cast<int>(v));
    if (g >= 0) {
      group_static[static_cast<size_t>(g)] += m;
    } else {
      largest = std::max(largest, m);
    }
  }
  for (int64_t m : group_static) largest = std::max(largest, m);
  const int64_t share = total / np + largest;

  std::vector<int32_t> proc(n, -1), group_proc(static_cast<size_t>(num_groups), -1);
  std::vector<int64_t> used(static_cast<size_t>(np), 0);
  bool fits = true;
  // What placing `task` brings, and the tasks (with their groups) it places.
  std::vector<int32_t> unit_tasks, unit_groups;
  auto collect = [&](int task) {
    unit_tasks.clear();
    unit_groups.clear();
    int64_t bytes = 0;
    auto add = [&](int x) {
      unit_tasks.push_back(x);
      const int32_t g = GroupOf(p, x);
      if (g < 0) {
        bytes += ResidentOf(p, x) + out_memory[static_cast<size_t>(x)];
      } else if (group_proc[static_cast<size_t>(g)] < 0 &&
                 std::find(unit_groups.begin(), unit_groups.end(), g) == unit_groups.end()) {
        unit_groups.push_back(g);
        bytes += group_static[static_cast<size_t>(g)];
      }
    };
    add(task);
    for (const InEdge& in : dag.in[static_cast<size_t>(task)]) {
      const int u = in.producer;
      const int32_t g = GroupOf(p, u);
      if (proc[static_cast<size_t>(u)] < 0 && (g < 0 || group_proc[static_cast<size_t>(g)] < 0)) add(u);
    }
    return bytes;
  };
  auto place = [&](int q) {
    for (int32_t g : unit_groups) group_proc[static_cast<size_t>(g)] = q;
    for (int32_t x : unit_tasks) proc[static_cast<size_t>(x)] = q;
  };

  int current = 0;
  for (int v : dag.order) {
    if (IsDeferred(p, v) || proc[static_cast<size_t>(v)] >= 0) continue;
    const int32_t g = GroupOf(p, v);
    if (g >= 0 && group_proc[static_cast<size_t>(g)] >= 0) {  // its group's memory is counted
      proc[static_cast<size_t>(v)] = group_proc[static_cast<size_t>(g)];
      continue;
    }
    const int64_t bytes = collect(v);
    auto room = [&](int q) {
      return (capacity ? std::min(share, CapacityOf(p, q)) : share) - used[static_cast<size_t>(q)];
    };
    while (current + 1 < np && bytes > room(current)) ++current;
    int q = current;
    if (capacity && used[static_cast<size_t>(q)] + bytes > CapacityOf(p, q)) {
      // Past every share: the processor it overflows least (or still fits on).
      int64_t best_over = 0;
      for (int d = 0; d < np; ++d) {
        const int64_t over = used[static_cast<size_t>(d)] + bytes - CapacityOf(p, d);
        if (d == 0 || over < best_over) best_over = over, q = d;
      }
      if (best_over > 0) fits = false;
    }
    used[static_cast<size_t>(q)] += bytes;
    place(q);
  }
  // Deferred tasks nobody reads: with their group, else on processor 0.
  for (size_t v = 0; v < n; ++v) {
    if (proc[v] >= 0) continue;
    const int32_t g = GroupOf(p, static_cast<int>(v));
    int q = g >= 0 && group_proc[static_cast<size_t>(g)] >= 0 ? group_proc[static_cast<size_t>(g)] : 0;
    if (g >= 0 && group_proc[static_cast<size_t>(g)] < 0) {
      group_proc[static_cast<size_t>(g)] = q;
      used[static_cast<size_t>(q)] += group_static[static_cast<size_t>(g)];
    } else if (g < 0) {
      used[static_cast<size_t>(q)] += ResidentOf(p, static_cast<int>(v)) + out_memory[v];
    }
    proc[v] = q;
  }
  for (int d = 0; d < np; ++d) fits = fits && used[static_cast<size_t>(d)] <= CapacityOf(p, d);

  BaechiSchedule s;
  s.proc = std::move(proc);
  s.start.assign(n, 0.0);
  s.finish.assign(n, 0.0);
  s.peak_memory = std::move(used);
  s.fits = fits;
  return s;
}

}  // namespace

namespace baechi_internal {

TaskDag BuildTaskDag(const BaechiProblem& p) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  TaskDag dag;
  dag.in.assign(n, {});
  dag.succs.assign(n, {});
  dag.outputs.assign(n, {});
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const BaechiTensor& x = p.tensors[t];
    dag.outputs[static_cast<size_t>(x.producer)].push_back(static_cast<int32_t>(t));
    for (int32_t c : x.consumers) {
      auto& in = dag.in[static_cast<size_t>(c)];
      auto it = std::find_if(in.begin(), in.end(), [&](const InEdge& e) { return e.producer == x.producer; });
      if (it == in.end()) {
        in.push_back(InEdge{x.producer, {}});
        it = in.end() - 1;
        dag.succs[static_cast<size_t>(x.producer)].push_back(c);
      }
      it->tensors.push_back(static_cast<int32_t>(t));
    }
  }
  std::vector<int32_t> indegree(n, 0);
  for (size_t v = 0; v < n; ++v) {
    auto& s = dag.succs[v];
    std::sort(s.begin(), s.end());
    for (int32_t c : s) ++indegree[static_cast<size_t>(c)];
  }
  std::deque<int32_t> queue;
  for (size_t v = 0; v < n; ++v) {
    if (indegree[v] == 0) queue.push_back(static_cast<int32_t>(v));
  }
  while (!queue.empty()) {
    const int32_t v = queue.front();
    queue.pop_front();
    dag.order.push_back(v);
    for (int32_t c : dag.succs[static_cast<size_t>(v)]) {
      if (--indegree[static_cast<size_t>(c)] == 0) queue.push_back(c);
    }
  }
  dag.rank.assign(n, static_cast<int32_t>(n));
  for (size_t i = 0; i < dag.order.size(); ++i) dag.rank[static_cast<size_t>(dag.order[i])] = static_cast<int32_t>(i);
  return dag;
}

int32_t NumGroups(const BaechiProblem& p) {
  int32_t g = 0;
  for (int32_t x : p.group) g = std::max(g, x + 1);
  return g;
}

}  // namespace baechi_internal

const char* BaechiMethodName(BaechiMethod method) {
  switch (method) {
    case BaechiMethod::kTopo:
      return "m-topo";
    case BaechiMethod::kEtf:
      return "m-etf";
    case BaechiMethod::kSct:
      return "m-sct";
  }
  return "?";
}

double BaechiProblem::TransferTime(int64_t bytes, int a, int b) const {
  if (a == b) return 0;
  const size_t k = static_cast<size_t>(a) * static_cast<size_t>(num_procs) + static_cast<size_t>(b);
  const double lat = latency.empty() ? 0.0 : latency[k];
  const double per_byte = time_per_byte.empty() ? 1.0 : time_per_byte[k];
  return lat + static_cast<double>(bytes) * per_byte;
}

Status ValidateBaechiProblem(const BaechiProblem& p) {
  if (p.num_tasks < 0) return InvalidArgument("Baechi problem: negative number of tasks");
  if (p.num_procs < 1) return InvalidArgument("Baechi problem: needs at least one processor");
  const size_t n = static_cast<size_t>(p.num_tasks), np = static_cast<size_t>(p.num_procs);
  if (p.cost.size() != n * np)
    return InvalidArgument("Baechi problem: cost has " + std::to_string(p.cost.size()) +
                           " entries, expected tasks x processors = " + std::to_string(n * np));
  for (size_t i = 0; i < p.cost.size(); ++i) {
    if (!FiniteNonNegative(p.cost[i]))
      return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(i / np)) +
                             " has a negative or non-finite cost");
  }
  auto check_matrix = [&](const std::vector<double>& m, const char* what) -> Status {
    if (m.empty()) return Status::Ok();
    if (m.size() != np * np)
      return InvalidArgument(std::string("Baechi problem: ") + what + " must be processors^2 long");
    for (double x : m) {
      if (!FiniteNonNegative(x))
        return InvalidArgument(std::string("Baechi problem: ") + what + " has a negative or non-finite entry");
    }
    return Status::Ok();
  };
  GO_RETURN_IF_ERROR(check_matrix(p.latency, "latency"));
  GO_RETURN_IF_ERROR(check_matrix(p.time_per_byte, "time_per_byte"));
  if (!p.capacity.empty() && p.capacity.size() != np)
    return InvalidArgument("Baechi problem: capacity must have one entry per processor");
  for (int64_t c : p.capacity) {
    if (c < 0) return InvalidArgument("Baechi problem: negative capacity");
  }
  if (!p.resident.empty() && p.resident.size() != n)
    return InvalidArgument("Baechi problem: resident must have one entry per task");
  for (size_t v = 0; v < p.resident.size(); ++v) {
    if (p.resident[v] < 0)
      return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(v)) + " has negative resident bytes");
  }
  if (!p.group.empty() && p.group.size() != n)
    return InvalidArgument("Baechi problem: group must have one entry per task");
  for (size_t v = 0; v < p.group.size(); ++v) {
    if (p.group[v] < -1) return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(v)) + " has group < -1");
  }
  if (!p.deferred.empty() && p.deferred.size() != n)
    return InvalidArgument("Baechi problem: deferred must have one entry per task");
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    const BaechiTensor& x = p.tensors[t];
    const std::string name = "Baechi problem: tensor " + std::to_string(t);
    if (x.producer < 0 || x.producer >= p.num_tasks) return InvalidArgument(name + " has producer out of range");
    if (x.bytes < 0 || x.memory < 0) return InvalidArgument(name + " has negative bytes or memory");
    for (size_t i = 0; i < x.consumers.size(); ++i) {
      const int32_t c = x.consumers[i];
      if (c < 0 || c >= p.num_tasks) return InvalidArgument(name + " has a consumer out of range");
      if (c == x.producer) return InvalidArgument(name + " is read by its producer " + TaskName(c));
      if (std::find(x.consumers.begin(), x.consumers.begin() + static_cast<std::ptrdiff_t>(i), c) !=
          x.consumers.begin() + static_cast<std::ptrdiff_t>(i)) {
        return InvalidArgument(name + " lists consumer " + TaskName(c) + " twice");
      }
      if (IsDeferred(p, c)) return InvalidArgument(TaskName(c) + " is deferred but reads tensor " + std::to_string(t));
    }
  }
  for (size_t v = 0; v < p.deferred.size(); ++v) {
    if (!p.deferred[v]) continue;
    for (size_t q = 0; q < np; ++q) {
      if (p.Cost(static_cast<int>(v), static_cast<int>(q)) != 0) {
        return InvalidArgument(TaskName(static_cast<int>(v)) + " is deferred but costs time");
      }
    }
  }
  if (!p.route.empty() && p.route.size() != np * np)
    return InvalidArgument("Baechi problem: route must be processors^2 long");
  for (const auto& r : p.route) {
    for (int32_t x : r) {
      if (x < 0) return InvalidArgument("Baechi problem: a route names a negative resource");
    }
  }
  if (!p.pinned.empty() && p.pinned.size() != n)
    return InvalidArgument("Baechi problem: pinned must have one entry per task");
  std::vector<int32_t> group_pin(static_cast<size_t>(baechi_internal::NumGroups(p)), -1);
  for (size_t v = 0; v < p.pinned.size(); ++v) {
    const int32_t q = p.pinned[v];
    if (q < -1 || q >= p.num_procs)
      return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(v)) + " is pinned out of range");
    const int32_t g = GroupOf(p, static_cast<int>(v));
    if (q < 0 || g < 0) continue;
    int32_t& gq = group_pin[static_cast<size_t>(g)];
    if (gq >= 0 && gq != q)
      return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(v)) + " is pinned apart from its group");
    gq = q;
  }
  for (size_t v = 0; v < p.pinned.size(); ++v) {
    const int32_t g = GroupOf(p, static_cast<int>(v));
    if (p.pinned[v] < 0 && g >= 0 && group_pin[static_cast<size_t>(g)] >= 0)
      return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(v)) + " is not pinned but its group is");
  }
  const TaskDag dag = baechi_internal::BuildTaskDag(p);
  if (dag.order.size() != n) {
    for (size_t v = 0; v < n; ++v) {
      if (dag.rank[v] == static_cast<int32_t>(n))
        return InvalidArgument("Baechi problem: " + TaskName(static_cast<int>(v)) + " is on a cycle or after one");
    }
  }
  return Status::Ok();
}

StatusOr<BaechiSchedule> ScheduleBaechi(const BaechiProblem& problem, BaechiMethod method,
                                        const BaechiOptions& options) {
  GO_RETURN_IF_ERROR(ValidateBaechiProblem(problem));
  const TaskDag dag = baechi_internal::BuildTaskDag(problem);
  switch (method) {
    case BaechiMethod::kTopo: {
      // Within the capacities if the static count allows it, else by the share alone
      // (the paper's uniform m-TOPO, which checks no capacity).
      BaechiSchedule s = ScheduleTopo(problem, dag, true);
      if (s.fits) return s;
      return ScheduleTopo(problem, dag, false);
    }
    case BaechiMethod::kEtf:
      return baechi_internal::ListSchedule(problem, dag, nullptr);
    case BaechiMethod::kSct: {
      bool lp_solved = false;
      std::vector<int32_t> favourite = BaechiFavouriteChildren(problem, options, &lp_solved);
      BaechiSchedule s = baechi_internal::ListSchedule(problem, dag, &favourite);
      s.favourite = std::move(favourite);
      s.lp_solved = lp_solved;
      return s;
    }
  }
  return InternalError("Baechi: unknown method");
}

StatusOr<BaechiProblem> BaechiProblemFromGraph(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                               std::vector<DeviceId>* devices) {
  GO_ASSIGN_OR_RETURN(*devices, ListPlacerDevices(graph, cluster, "Baechi"));
  const std::vector<DeviceId>& procs = *devices;
  const int n = graph.num_ops();
  const int np = static_cast<int>(procs.size());
  BaechiProblem p;
  p.num_tasks = n;
  p.num_procs = np;
  p.cost = OpCostTable(graph, cluster, cost_model, procs);
  p.resident.resize(static_cast<size_t>(n));
  p.group.resize(static_cast<size_t>(n));
  p.deferred.assign(static_cast<size_t>(n), 0);
  std::vector<uint8_t> has_producer(static_cast<size_t>(n), 0);
  for (OpId o = 0; o < n; ++o) {
    p.resident[static_cast<size_t>(o)] = OpResidentBytes(graph, o);
    p.group[static_cast<size_t>(o)] = graph.op(o).colocation_group;
  }
  p.tensors.resize(static_cast<size_t>(graph.num_tensors()));
  for (TensorId t = 0; t < graph.num_tensors(); ++t) {
    const Tensor& x = graph.tensor(t);
    BaechiTensor& bt = p.tensors[static_cast<size_t>(t)];
    if (x.producer == kNoId)
      return InvalidArgument("Baechi: tensor " + x.name + " of graph " + graph.name() + " has no producer");
    bt.producer = x.producer;
    bt.bytes = x.bytes();
    // A Variable's tensor is its resident parameter.
    bt.memory = graph.op(x.producer).kind == OpKind::kVariable ? 0 : x.bytes();
    for (OpId c : x.consumers) {
      // Free ops wait for nothing (as in the simulator): their inputs are not dependencies.
      if (c == x.producer || IsFree(graph.op(c).kind)) continue;
      if (std::find(bt.consumers.begin(), bt.consumers.end(), c) != bt.consumers.end()) continue;
      bt.consumers.push_back(c);
      has_producer[static_cast<size_t>(c)] = 1;
    }
  }
  for (OpId o = 0; o < n; ++o) {
    bool zero = true;
    for (int q = 0; q < np && zero; ++q) zero = p.Cost(o, q) == 0;
    p.deferred[static_cast<size_t>(o)] = zero && !has_producer[static_cast<size_t>(o)];
  }
  p.latency.assign(static_cast<size_t>(np * np), 0.0);
  p.time_per_byte.assign(static_cast<size_t>(np * np), 0.0);
  p.capacity.resize(static_cast<size_t>(np));
  for (int a = 0; a < np; ++a) {
    const DeviceId da = procs[static_cast<size_t>(a)];
    p.capacity[static_cast<size_t>(a)] = cluster.device(da).memory_bytes;
    for (int b = 0; b < np; ++b) {
      if (a == b) continue;
      const DeviceId db = procs[static_cast<size_t>(b)];
      p.latency[static_cast<size_t>(a * np + b)] = cluster.link(da, db).latency_us;
      p.time_per_byte[static_cast<size_t>(a * np + b)] = kUsPerSecond / cluster.PathBandwidth(da, db);
    }
  }
  return p;
}

StatusOr<Plan> BaechiPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, BaechiMethod method,
                          const BaechiOptions& options) {
  const std::string context = std::string(BaechiMethodName(method)) + " on graph " + graph.name();
  std::vector<DeviceId> devices;
  StatusOr<BaechiProblem> problem = BaechiProblemFromGraph(graph, cluster, cost_model, &devices);
  if (!problem.ok()) return problem.status().WithContext(context);
  StatusOr<BaechiSchedule> schedule = ScheduleBaechi(*problem, method, options);
  if (!schedule.ok()) return schedule.status().WithContext(context);
  if (!schedule->fits) {
    LogWarning(context + ": by the placer's own memory count no placement fits every device; " +
               (method == BaechiMethod::kTopo ? "placed by the memory share alone"
                                              : "returning the one that overflows least"));
  }
  if (method == BaechiMethod::kSct && !schedule->lp_solved) {
    LogInfo(context + ": the favourite-child LP was not solved; used the greedy favourite children");
  }
  Plan plan = DefaultPlan(graph, devices[0]);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    plan.device[static_cast<size_t>(o)] = devices[static_cast<size_t>(schedule->proc[static_cast<size_t>(o)])];
  }
  // Colocation is respected by construction; this is a guard for groups whose ops the
  // problem saw as unrelated (never split by the placers).
  RespectColocation(graph, &plan);
  return plan;
}

}  // namespace graphopt
