// The Baechi modes (baselines/baechi_modes.h): the forward problem, co-placement and
// fusion as the published code of "Baechi: Fast Device Placement of Machine Learning
// Graphs" (SoCC 2020) does them (its grouper's CoplacementGrouper, its
// FusedOpPlacer), routes over the cluster's ports, the estimate of a plan, and the
// best of the variants.
#include "baselines/baechi_modes.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <numeric>

#include "baselines/baechi_dag.h"
#include "core/logging.h"
#include "core/timing.h"
#include "graph/verifier.h"

namespace graphopt {

using baechi_internal::GroupOf;
using baechi_internal::InEdge;
using baechi_internal::TaskDag;

namespace {

struct UnionFind {
  std::vector<int32_t> parent;
  explicit UnionFind(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int32_t Find(int32_t x) {
    while (parent[static_cast<size_t>(x)] != x) {
      x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    }
    return x;
  }
  void Join(int32_t a, int32_t b) {
    a = Find(a), b = Find(b);
    if (a != b) parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);  // the lower id leads
  }
};

// Gives `group` new ids 0.. in order of first appearance; -1 stays -1.
void CompactGroups(std::vector<int32_t>* group) {
  std::vector<int32_t> id;
  int32_t next = 0;
  for (int32_t& g : *group) {
    if (g < 0) continue;
    if (static_cast<size_t>(g) >= id.size()) id.resize(static_cast<size_t>(g) + 1, -1);
    int32_t& x = id[static_cast<size_t>(g)];
    if (x < 0) x = next++;
    g = x;
  }
}

bool IsForward(const Graph& g, OpId o) { return g.op(o).phase == Phase::kForward; }

// The forward op an op follows (itself if forward), or kNoId.
OpId ForwardAnchor(const Graph& g, OpId o) {
  for (int hops = 0; hops < 16 && !IsForward(g, o) && g.op(o).forward_op != kNoId; ++hops) o = g.op(o).forward_op;
  return IsForward(g, o) ? o : kNoId;
}

// Deferred: costs nothing anywhere and reads nothing.
void MarkDeferred(BaechiProblem* p) {
  const size_t n = static_cast<size_t>(p->num_tasks);
  std::vector<uint8_t> has_producer(n, 0);
  for (const BaechiTensor& t : p->tensors) {
    for (int32_t c : t.consumers) has_producer[static_cast<size_t>(c)] = 1;
  }
  p->deferred.assign(n, 0);
  for (size_t v = 0; v < n; ++v) {
    bool zero = true;
    for (int q = 0; q < p->num_procs && zero; ++q) zero = p->Cost(static_cast<int>(v), q) == 0;
    p->deferred[v] = zero && !has_producer[v];
  }
}

// Sorted-vector set operations for the fusion's adjacency.
bool Contains(const std::vector<int32_t>& s, int32_t x) { return std::binary_search(s.begin(), s.end(), x); }
bool Insert(std::vector<int32_t>* s, int32_t x) {
  auto it = std::lower_bound(s->begin(), s->end(), x);
  if (it != s->end() && *it == x) return false;
  s->insert(it, x);
  return true;
}
void Erase(std::vector<int32_t>* s, int32_t x) {
  auto it = std::lower_bound(s->begin(), s->end(), x);
  if (it != s->end() && *it == x) s->erase(it);
}


}  // namespace

std::string BaechiVariantName(const BaechiVariant& v) {
  std::string name = BaechiMethodName(v.method);
  if (v.forward) name += "-fwd";
  if (v.coplace) name += "-coplace";
  if (v.ports) name += "-ports";
  return name;
}

std::vector<BaechiVariant> BaechiAllVariants() {
  std::vector<BaechiVariant> all;
  for (BaechiMethod m : {BaechiMethod::kEtf, BaechiMethod::kSct}) {
    for (bool forward : {false, true}) {
      for (bool coplace : {false, true}) {
        for (bool ports : {false, true}) all.push_back(BaechiVariant{m, forward, coplace, ports});
      }
    }
  }
  return all;
}

StatusOr<BaechiProblem> BaechiForwardProblem(const Graph& graph, const BaechiProblem& w,
                                             std::vector<int32_t>* task_of_op) {
  const int n = graph.num_ops();
  if (w.num_tasks != n) return InvalidArgument("Baechi forward mode: the problem is not of graph " + graph.name());
  GO_ASSIGN_OR_RETURN(const std::vector<OpId> order, TopologicalOrder(graph));
  std::vector<int32_t>& task = *task_of_op;
  task.assign(static_cast<size_t>(n), -1);
  int32_t num_tasks = 0;
  for (OpId o = 0; o < n; ++o) {
    if (IsForward(graph, o)) task[static_cast<size_t>(o)] = num_tasks++;
  }
  for (OpId o : order) {
    if (IsForward(graph, o)) continue;
    const OpId a = ForwardAnchor(graph, o);
    int32_t& t = task[static_cast<size_t>(o)];
    if (a != kNoId) {
      t = task[static_cast<size_t>(a)];
      continue;
    }
    for (TensorId x : graph.op(o).inputs) {  // follows its first producer
      const OpId u = graph.tensor(x).producer;
      if (u != kNoId && task[static_cast<size_t>(u)] >= 0) {
        t = task[static_cast<size_t>(u)];
        break;
      }
    }
    if (t < 0) t = num_tasks++;
  }
  const int np = w.num_procs;
  BaechiProblem p;
  p.num_tasks = num_tasks;
  p.num_procs = np;
  p.cost.assign(static_cast<size_t>(num_tasks) * static_cast<size_t>(np), 0.0);
  p.resident.assign(static_cast<size_t>(num_tasks), 0);
  p.latency = w.latency;
  p.time_per_byte = w.time_per_byte;
  p.capacity = w.capacity;
  p.route = w.route;
  for (OpId o = 0; o < n; ++o) {
    const int32_t t = task[static_cast<size_t>(o)];
    int32_t charged = t;  // where its time goes
    const OpId a = ForwardAnchor(graph, o);
    if (a != kNoId && a != o && baechi_internal::IsDeferred(w, a)) {
      for (TensorId x : graph.op(a).outputs) {  // the deferred op's first forward reader
        for (int32_t c : w.tensors[static_cast<size_t>(x)].consumers) {
          if (IsForward(graph, c)) {
            charged = task[static_cast<size_t>(c)];
            break;
          }
        }
        if (charged != t) break;
      }
    }
    for (int q = 0; q < np; ++q) p.cost[static_cast<size_t>(charged) * static_cast<size_t>(np) + static_cast<size_t>(q)] += w.Cost(o, q);
    p.resident[static_cast<size_t>(t)] += baechi_internal::ResidentOf(w, o);
  }
  for (TensorId x = 0; x < graph.num_tensors(); ++x) {
    const BaechiTensor& wt = w.tensors[static_cast<size_t>(x)];
    if (!IsForward(graph, wt.producer)) continue;
    const int32_t from = task[static_cast<size_t>(wt.producer)];
    BaechiTensor bt;
    bt.producer = from;
    bt.bytes = wt.bytes;
    bt.memory = wt.memory;
    for (OpId c : graph.tensor(x).consumers) {
      if (!IsForward(graph, c)) {  // a saved activation: held all step
        p.resident[static_cast<size_t>(from)] += wt.memory;
        bt.memory = 0;
        break;
      }
    }
    for (int32_t c : wt.consumers) {
      if (!IsForward(graph, c)) continue;
      const int32_t tc = task[static_cast<size_t>(c)];
      if (tc != from && std::find(bt.consumers.begin(), bt.consumers.end(), tc) == bt.consumers.end()) {
        bt.consumers.push_back(tc);
      }
    }
    p.tensors.push_back(std::move(bt));
  }
  // A task's group: the union of its ops' groups.
  const int32_t num_groups = baechi_internal::NumGroups(w);
  UnionFind groups(static_cast<size_t>(num_groups));
  std::vector<int32_t> first(static_cast<size_t>(num_tasks), -1);
  for (OpId o = 0; o < n; ++o) {
    const int32_t g = GroupOf(w, o);
    if (g < 0) continue;
    int32_t& f = first[static_cast<size_t>(task[static_cast<size_t>(o)])];
    if (f < 0) {
      f = g;
    } else {
      groups.Join(f, g);
    }
  }
  p.group.assign(static_cast<size_t>(num_tasks), -1);
  for (int32_t t = 0; t < num_tasks; ++t) {
    if (first[static_cast<size_t>(t)] >= 0) p.group[static_cast<size_t>(t)] = groups.Find(first[static_cast<size_t>(t)]);
  }
  CompactGroups(&p.group);
  MarkDeferred(&p);
  return p;
}

void BaechiCoplace(BaechiProblem* p) {
  const size_t n = static_cast<size_t>(p->num_tasks);
  const TaskDag dag = baechi_internal::BuildTaskDag(*p);
  UnionFind uf(n);
  std::vector<int32_t> group_first(static_cast<size_t>(baechi_internal::NumGroups(*p)), -1);
  std::vector<uint8_t> joined(n, 0);
  for (size_t v = 0; v < n; ++v) {
    const int32_t g = GroupOf(*p, static_cast<int>(v));
    if (g < 0) continue;
    joined[v] = 1;
    int32_t& f = group_first[static_cast<size_t>(g)];
    if (f < 0) {
      f = static_cast<int32_t>(v);
    } else {
      uf.Join(f, static_cast<int32_t>(v));
    }
  }
  for (size_t v = 0; v < n; ++v) {
    if (dag.succs[v].size() != 1) continue;
    const int32_t s = dag.succs[v][0];
    uf.Join(static_cast<int32_t>(v), s);
    joined[v] = joined[static_cast<size_t>(s)] = 1;
  }
  p->group.assign(n, -1);
  for (size_t v = 0; v < n; ++v) {
    if (joined[v]) p->group[v] = uf.Find(static_cast<int32_t>(v));
  }
  CompactGroups(&p->group);
}

BaechiProblem BaechiFuse(const BaechiProblem& p, std::vector<int32_t>* fused_of_task) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  const TaskDag dag = baechi_internal::BuildTaskDag(p);
  std::vector<std::vector<int32_t>> succ = dag.succs, pred(n);
  for (size_t v = 0; v < n; ++v) {
    for (const InEdge& in : dag.in[v]) pred[v].push_back(in.producer);
    std::sort(pred[v].begin(), pred[v].end());
  }
  std::vector<int32_t> into(n);
  std::iota(into.begin(), into.end(), 0);
  // The groups by their first task, their tasks in id order.
  std::vector<std::vector<int32_t>> members(static_cast<size_t>(baechi_internal::NumGroups(p)));
  std::vector<int32_t> group_order;
  for (size_t v = 0; v < n; ++v) {
    const int32_t g = GroupOf(p, static_cast<int>(v));
    if (g < 0) continue;
    if (members[static_cast<size_t>(g)].empty()) group_order.push_back(g);
    members[static_cast<size_t>(g)].push_back(static_cast<int32_t>(v));
  }
  auto in_group = [&](int32_t v, int32_t g) { return GroupOf(p, v) == g; };
  for (int32_t g : group_order) {
    std::deque<std::pair<int32_t, int32_t>> edges;
    for (int32_t u : members[static_cast<size_t>(g)]) {
      for (int32_t v : succ[static_cast<size_t>(u)]) {
        if (in_group(v, g)) edges.emplace_back(u, v);
      }
    }
    while (!edges.empty()) {
      const auto [a, b] = edges.front();
      edges.pop_front();
      auto& sa = succ[static_cast<size_t>(a)];
      if (into[static_cast<size_t>(a)] != a || into[static_cast<size_t>(b)] != b || !Contains(sa, b)) continue;
      if (sa.size() > 1 && pred[static_cast<size_t>(b)].size() > 1) continue;  // could close a cycle
      // b into a: b's other edges become a's.
      Erase(&sa, b);
      Erase(&pred[static_cast<size_t>(b)], a);
      for (int32_t x : pred[static_cast<size_t>(b)]) {
        Erase(&succ[static_cast<size_t>(x)], b);
        if (Insert(&succ[static_cast<size_t>(x)], a)) {
          Insert(&pred[static_cast<size_t>(a)], x);
          if (in_group(x, g)) edges.emplace_back(x, a);
        }
      }
      for (int32_t y : succ[static_cast<size_t>(b)]) {
        Erase(&pred[static_cast<size_t>(y)], b);
        if (Insert(&pred[static_cast<size_t>(y)], a)) {
          Insert(&sa, y);
          if (in_group(y, g)) edges.emplace_back(a, y);
        }
      }
      succ[static_cast<size_t>(b)].clear();
      pred[static_cast<size_t>(b)].clear();
      into[static_cast<size_t>(b)] = a;
    }
  }
  // New ids for the tasks left, in id order.
  std::vector<int32_t>& fused = *fused_of_task;
  fused.assign(n, -1);
  std::vector<int32_t> size;
  for (size_t v = 0; v < n; ++v) {
    if (into[v] == static_cast<int32_t>(v)) {
      fused[v] = static_cast<int32_t>(size.size());
      size.push_back(0);
    }
  }
  for (size_t v = 0; v < n; ++v) {
    int32_t r = static_cast<int32_t>(v);
    while (into[static_cast<size_t>(r)] != r) r = into[static_cast<size_t>(r)];
    fused[v] = fused[static_cast<size_t>(r)];
    ++size[static_cast<size_t>(fused[v])];
  }
  const int np = p.num_procs;
  const size_t m = size.size();
  BaechiProblem f;
  f.num_tasks = static_cast<int>(m);
  f.num_procs = np;
  f.cost.assign(m * static_cast<size_t>(np), 0.0);
  f.resident.assign(m, 0);
  f.group.assign(m, -1);
  f.deferred.assign(m, 0);
  f.latency = p.latency;
  f.time_per_byte = p.time_per_byte;
  f.capacity = p.capacity;
  f.route = p.route;
  if (!p.pinned.empty()) f.pinned.assign(m, -1);
  for (size_t v = 0; v < n; ++v) {
    const size_t x = static_cast<size_t>(fused[v]);
    for (int q = 0; q < np; ++q) f.cost[x * static_cast<size_t>(np) + static_cast<size_t>(q)] += p.Cost(static_cast<int>(v), q);
    f.resident[x] += baechi_internal::ResidentOf(p, static_cast<int>(v));
    f.group[x] = GroupOf(p, static_cast<int>(v));
    if (size[x] == 1) f.deferred[x] = baechi_internal::IsDeferred(p, static_cast<int>(v));
    if (!p.pinned.empty() && p.pinned[v] >= 0) f.pinned[x] = p.pinned[v];
  }
  f.tensors.reserve(p.tensors.size());
  for (const BaechiTensor& t : p.tensors) {
    BaechiTensor ft;
    ft.producer = fused[static_cast<size_t>(t.producer)];
    ft.bytes = t.bytes;
    ft.memory = t.memory;
    for (int32_t c : t.consumers) {
      const int32_t fc = fused[static_cast<size_t>(c)];
      if (fc != ft.producer && std::find(ft.consumers.begin(), ft.consumers.end(), fc) == ft.consumers.end()) {
        ft.consumers.push_back(fc);
      }
    }
    if (!t.consumers.empty() && ft.consumers.empty()) ft.memory = 0;  // inside a fused task
    f.tensors.push_back(std::move(ft));
  }
  return f;
}

void SetBaechiPortRoutes(const Cluster& cluster, const std::vector<DeviceId>& devices, BaechiProblem* p) {
  const int np = static_cast<int>(devices.size());
  p->route.assign(static_cast<size_t>(np * np), {});
  for (int a = 0; a < np; ++a) {
    for (int b = 0; b < np; ++b) {
      if (a == b) continue;
      std::vector<int32_t>& r = p->route[static_cast<size_t>(a * np + b)];
      r.push_back(a * np + b);
      for (int32_t port : cluster.link_ports(devices[static_cast<size_t>(a)], devices[static_cast<size_t>(b)])) {
        r.push_back(np * np + port);
      }
    }
  }
}

StatusOr<BaechiSchedule> BaechiEstimate(const BaechiProblem& problem, const std::vector<int32_t>& proc) {
  if (proc.size() != static_cast<size_t>(problem.num_tasks))
    return InvalidArgument("Baechi estimate: " + std::to_string(proc.size()) + " processors for " +
                           std::to_string(problem.num_tasks) + " tasks");
  BaechiProblem e = problem;
  e.capacity.clear();
  e.group.clear();
  e.pinned = proc;
  return ScheduleBaechi(e, BaechiMethod::kEtf);
}

StatusOr<std::vector<BaechiVariantResult>> BaechiPlanVariants(const Graph& graph, const Cluster& cluster,
                                                              const CostModel& cost_model,
                                                              const std::vector<BaechiVariant>& variants,
                                                              const BaechiOptions& options) {
  std::vector<DeviceId> devices;
  GO_ASSIGN_OR_RETURN(const BaechiProblem whole, BaechiProblemFromGraph(graph, cluster, cost_model, &devices));
  BaechiProblem routed = whole;  // what the estimates schedule
  SetBaechiPortRoutes(cluster, devices, &routed);
  std::vector<int32_t> index_of_device(static_cast<size_t>(cluster.num_devices()), 0);
  for (size_t q = 0; q < devices.size(); ++q) index_of_device[static_cast<size_t>(devices[q])] = static_cast<int32_t>(q);

  // The problem each (forward, coplace) places, built once; m-SCT's favourites too.
  struct Reduced {
    bool built = false;
    BaechiProblem problem;
    std::vector<int32_t> task_of_op;
    TaskDag dag;
    bool has_favourite = false, lp_solved = false;
    std::vector<int32_t> favourite;
  };
  Reduced reduced[4];
  std::vector<BaechiVariantResult> results;
  for (const BaechiVariant& v : variants) {
    const std::string name = BaechiVariantName(v) + " on graph " + graph.name();
    const auto t0 = std::chrono::steady_clock::now();
    Reduced& r = reduced[(v.forward ? 2 : 0) + (v.coplace ? 1 : 0)];
    if (!r.built) {
      if (v.forward) {
        StatusOr<BaechiProblem> fwd = BaechiForwardProblem(graph, whole, &r.task_of_op);
        if (!fwd.ok()) return fwd.status().WithContext(name);
        r.problem = std::move(*fwd);
      } else {
        r.problem = whole;
        r.task_of_op.resize(static_cast<size_t>(graph.num_ops()));
        std::iota(r.task_of_op.begin(), r.task_of_op.end(), 0);
      }
      if (v.coplace) {
        BaechiCoplace(&r.problem);
        std::vector<int32_t> fused;
        r.problem = BaechiFuse(r.problem, &fused);
        for (int32_t& t : r.task_of_op) t = fused[static_cast<size_t>(t)];
      }
      GO_RETURN_IF_ERROR(ValidateBaechiProblem(r.problem).WithContext(name));
      r.dag = baechi_internal::BuildTaskDag(r.problem);
      r.built = true;
    }
    BaechiProblem ported;
    if (v.ports) {
      ported = r.problem;
      SetBaechiPortRoutes(cluster, devices, &ported);
    }
    const BaechiProblem& placed = v.ports ? ported : r.problem;
    BaechiSchedule s;
    if (v.method == BaechiMethod::kTopo) {
      GO_ASSIGN_OR_RETURN(s, ScheduleBaechi(placed, v.method, options));
    } else if (v.method == BaechiMethod::kEtf) {
      s = baechi_internal::ListSchedule(placed, r.dag, nullptr);
    } else {
      if (!r.has_favourite) {  // the LP does not see routes: one for both models
        r.favourite = BaechiFavouriteChildren(r.problem, options, &r.lp_solved);
        r.has_favourite = true;
      }
      s = baechi_internal::ListSchedule(placed, r.dag, &r.favourite);
      s.lp_solved = r.lp_solved;
    }
    BaechiVariantResult res;
    res.variant = v;
    res.makespan_us = s.makespan;
    res.num_tasks = r.problem.num_tasks;
    res.lp_solved = s.lp_solved;
    res.plan = DefaultPlan(graph, devices[0]);
    for (OpId o = 0; o < graph.num_ops(); ++o) {
      res.plan.device[static_cast<size_t>(o)] =
          devices[static_cast<size_t>(s.proc[static_cast<size_t>(r.task_of_op[static_cast<size_t>(o)])])];
    }
    RespectColocation(graph, &res.plan);  // a guard: the placers keep the groups together
    res.seconds = SecondsSince(t0);
    std::vector<int32_t> pins(static_cast<size_t>(graph.num_ops()));
    for (size_t o = 0; o < pins.size(); ++o) pins[o] = index_of_device[static_cast<size_t>(res.plan.device[o])];
    StatusOr<BaechiSchedule> estimate = BaechiEstimate(routed, pins);
    if (!estimate.ok()) return estimate.status().WithContext(name);
    res.estimate_us = estimate->makespan;
    res.peak_memory = estimate->peak_memory;
    for (size_t q = 0; q < devices.size(); ++q) {
      res.fits = res.fits && res.peak_memory[q] <= cluster.device(devices[q]).memory_bytes;
    }
    results.push_back(std::move(res));
  }
  return results;
}

StatusOr<BaechiVariantResult> BaechiPlanVariant(const Graph& graph, const Cluster& cluster,
                                                const CostModel& cost_model, const BaechiVariant& variant,
                                                const BaechiOptions& options) {
  GO_ASSIGN_OR_RETURN(std::vector<BaechiVariantResult> results,
                      BaechiPlanVariants(graph, cluster, cost_model, {variant}, options));
  BaechiVariantResult& r = results[0];
  if (!r.fits) {
    LogWarning(BaechiVariantName(variant) + " on graph " + graph.name() +
               ": the plan does not fit every device by the placers' own estimate of the step");
  }
  return std::move(r);
}

int BaechiBestIndex(const std::vector<BaechiVariantResult>& results) {
  int best = -1;
  for (size_t i = 0; i < results.size(); ++i) {
    const BaechiVariantResult& r = results[i];
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const BaechiVariantResult& b = results[static_cast<size_t>(best)];
    if (r.fits != b.fits ? r.fits : r.estimate_us < b.estimate_us) best = static_cast<int>(i);
  }
  return best;
}

StatusOr<BaechiVariantResult> BaechiBestPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                             const BaechiOptions& options) {
  GO_ASSIGN_OR_RETURN(std::vector<BaechiVariantResult> results,
                      BaechiPlanVariants(graph, cluster, cost_model, BaechiAllVariants(), options));
  const int best = BaechiBestIndex(results);
  if (best < 0) return InternalError("Baechi best-of: no variant");
  std::string line = "baechi on graph " + graph.name() + ": estimates";
  for (const BaechiVariantResult& r : results) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), " %s %.1f ms%s (%.1f s);", BaechiVariantName(r.variant).c_str(),
                  r.estimate_us / 1000.0, r.fits ? "" : " no fit", r.seconds);
    line += buf;
  }
  LogInfo(line + " kept " + BaechiVariantName(results[static_cast<size_t>(best)].variant));
  if (!results[static_cast<size_t>(best)].fits) {
    LogWarning("baechi on graph " + graph.name() + ": no variant fits every device by the placers' own estimate");
  }
  return std::move(results[static_cast<size_t>(best)]);
}

}  // namespace graphopt
