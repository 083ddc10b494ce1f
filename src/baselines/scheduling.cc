// List-scheduling baselines on a Graph: HEFT placement (baselines/heft.h on the ops)
// and critical-path-first priorities for any placement.
//
// Both see the graph as a DAG of ops whose edges join a producer and a consumer that
// is not a free op (free ops wait for nothing, as in the simulator). An edge carries
// the distinct tensors of the producer that the consumer reads; moving it between two
// devices costs, per tensor, the link latency plus bytes / bandwidth (no contention:
// HEFT's machine model). Ops that run no kernel (CostModel::IsInstant) cost 0.
//
// HeftPlan maps the accelerators to HEFT processors (an op on accelerator a costs
// CostModel::OpTimeUs on a), the colocation groups to HEFT groups (every op of a
// group goes to the device HEFT chooses for its first scheduled member) and defers
// the ops that cost nothing and wait for nothing (inputs, parameters, constants,
// metadata): each goes to the device of its colocation group if that is decided
// first, else to that of its first scheduled consumer. A parameter thus sits with the
// op that first reads it, and its update op follows it. The upward rank becomes the
// plan's priority.
#include <algorithm>

#include "baselines/baseline.h"
#include "baselines/heft.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

constexpr double kUsPerSecond = 1e6;

// Producer-consumer edges of a graph with the bytes and number of distinct tensors
// each carries, grouped by producer (edges of op o: edges[begin[o] .. begin[o+1])).
// Inputs of free ops (metadata reading a shape) are not dependencies: the simulator
// runs free ops at time 0 without waiting for them.
struct OpEdges {
  std::vector<HeftEdge> edges;  // data = bytes, messages = tensors
  std::vector<int32_t> begin;
};

OpEdges BuildOpEdges(const Graph& graph) {
  const int n = graph.num_ops();
  std::vector<HeftEdge> by_consumer;
  std::vector<int32_t> last_consumer(static_cast<size_t>(n), kNoId), slot(static_cast<size_t>(n), 0);
  std::vector<TensorId> seen;
  for (OpId v = 0; v < n; ++v) {
    if (IsFree(graph.op(v).kind)) continue;  // free ops wait for nothing (as in the simulator)
    seen.clear();
    for (TensorId t : graph.op(v).inputs) {
      if (std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      const OpId u = graph.tensor(t).producer;
      if (u == kNoId || u == v) continue;
      if (last_consumer[static_cast<size_t>(u)] != v) {
        last_consumer[static_cast<size_t>(u)] = v;
        slot[static_cast<size_t>(u)] = static_cast<int32_t>(by_consumer.size());
        by_consumer.push_back(HeftEdge{u, v, 0.0, 0.0});
      }
      HeftEdge& e = by_consumer[static_cast<size_t>(slot[static_cast<size_t>(u)])];
      e.data += static_cast<double>(graph.tensor(t).bytes());
      e.messages += 1;
    }
  }
  OpEdges out;
  out.begin.assign(static_cast<size_t>(n) + 1, 0);
  for (const HeftEdge& e : by_consumer) ++out.begin[static_cast<size_t>(e.from) + 1];
  for (int i = 0; i < n; ++i) out.begin[static_cast<size_t>(i) + 1] += out.begin[static_cast<size_t>(i)];
  out.edges.resize(by_consumer.size());
  std::vector<int32_t> fill(out.begin.begin(), out.begin.end() - 1);
  for (const HeftEdge& e : by_consumer) out.edges[static_cast<size_t>(fill[static_cast<size_t>(e.from)]++)] = e;
  return out;
}

// Transfer time of an edge from device a to device b in us (0 on one device).
double TransferUs(const Cluster& cluster, const HeftEdge& e, DeviceId a, DeviceId b) {
  if (a == b) return 0;
  const Link& link = cluster.link(a, b);
  return e.messages * link.latency_us + e.data / link.bandwidth * kUsPerSecond;
}

}  // namespace

StatusOr<HeftSchedule> ScheduleGraphHeft(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                         std::vector<DeviceId>* devices) {
  GO_ASSIGN_OR_RETURN(*devices, ListPlacerDevices(graph, cluster, "HEFT"));
  const std::vector<DeviceId>& procs = *devices;
  const int n = graph.num_ops();
  const int np = static_cast<int>(procs.size());

  HeftProblem problem;
  problem.num_tasks = n;
  problem.num_procs = np;
  problem.cost = OpCostTable(graph, cluster, cost_model, procs);
  problem.edges = BuildOpEdges(graph).edges;
  problem.latency.assign(static_cast<size_t>(np * np), 0.0);
  problem.time_per_unit.assign(static_cast<size_t>(np * np), 0.0);
  for (int a = 0; a < np; ++a) {
    for (int b = 0; b < np; ++b) {
      if (a == b) continue;
      const Link& link = cluster.link(procs[static_cast<size_t>(a)], procs[static_cast<size_t>(b)]);
      problem.latency[static_cast<size_t>(a * np + b)] = link.latency_us;
      problem.time_per_unit[static_cast<size_t>(a * np + b)] = kUsPerSecond / link.bandwidth;
    }
  }
  problem.group.resize(static_cast<size_t>(n));
  problem.deferred.assign(static_cast<size_t>(n), 0);
  std::vector<uint8_t> has_producer(static_cast<size_t>(n), 0);
  for (const HeftEdge& e : problem.edges) has_producer[static_cast<size_t>(e.to)] = 1;
  for (OpId o = 0; o < n; ++o) {
    problem.group[static_cast<size_t>(o)] = graph.op(o).colocation_group;
    bool zero = true;
    for (int q = 0; q < np && zero; ++q) zero = problem.Cost(o, q) == 0;
    problem.deferred[static_cast<size_t>(o)] = zero && !has_producer[static_cast<size_t>(o)];
  }
  StatusOr<HeftSchedule> schedule = ScheduleHeft(problem);
  if (!schedule.ok()) return schedule.status().WithContext("HEFT on graph " + graph.name());
  return schedule;
}

StatusOr<Plan> HeftPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  std::vector<DeviceId> devices;
  GO_ASSIGN_OR_RETURN(HeftSchedule schedule, ScheduleGraphHeft(graph, cluster, cost_model, &devices));
  Plan plan = DefaultPlan(graph, devices[0]);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    plan.device[static_cast<size_t>(o)] = devices[static_cast<size_t>(schedule.proc[static_cast<size_t>(o)])];
    plan.priority[static_cast<size_t>(o)] = schedule.rank[static_cast<size_t>(o)];
  }
  return plan;
}

CriticalPathScheduler::CriticalPathScheduler(const Graph& graph, const Cluster& cluster, const CostModel& cost_model)
    : graph_(&graph), cluster_(&cluster) {
  StatusOr<std::vector<OpId>> topo = TopologicalOrder(graph);
  GO_CHECK_MSG(topo.ok(), topo.status().message());
  order_ = std::move(*topo);
  const OpEdges edges = BuildOpEdges(graph);
  edges_ = edges.edges;
  begin_ = edges.begin;
  const int n = graph.num_ops(), d = cluster.num_devices();
  time_us_.assign(static_cast<size_t>(n) * static_cast<size_t>(d), 0.0);
  for (OpId o = 0; o < n; ++o) {
    const Op& op = graph.op(o);
    if (cost_model.IsInstant(op)) continue;
    for (DeviceId q = 0; q < d; ++q)
      time_us_[static_cast<size_t>(o) * static_cast<size_t>(d) + static_cast<size_t>(q)] =
          cost_model.OpTimeUs(op, cluster.device(q));
  }
}

void CriticalPathScheduler::Apply(Plan* plan) const {
  const Status complete = CompletePlan(*graph_, plan);
  GO_CHECK_MSG(complete.ok(), complete.message());
  const int d = cluster_->num_devices();
  // Devices out of range (a plan not validated yet) are timed as the first accelerator.
  const DeviceId fallback = cluster_->FirstAccelerator();
  auto device_of = [&](OpId o) {
    const DeviceId q = plan->device[static_cast<size_t>(o)];
    return q >= 0 && q < d ? q : fallback;
  };
  std::vector<double> level(static_cast<size_t>(graph_->num_ops()), 0.0);
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const OpId o = *it;
    const DeviceId q = device_of(o);
    double tail = 0;
    for (int32_t k = begin_[static_cast<size_t>(o)]; k < begin_[static_cast<size_t>(o) + 1]; ++k) {
      const HeftEdge& e = edges_[static_cast<size_t>(k)];
      tail = std::max(tail, TransferUs(*cluster_, e, q, device_of(e.to)) + level[static_cast<size_t>(e.to)]);
    }
    level[static_cast<size_t>(o)] = time_us_[static_cast<size_t>(o) * static_cast<size_t>(d) + static_cast<size_t>(q)] + tail;
  }
  plan->priority = std::move(level);
}

void SetCriticalPathPriorities(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, Plan* plan) {
  CriticalPathScheduler(graph, cluster, cost_model).Apply(plan);
}

}  // namespace graphopt
