// Optimal contiguous splits (baselines/contiguous_split.h): the problem's checks, the
// direct evaluation of a split, the dynamic program, and the graph adapter (its op
// costs, tensors, links and capacities come from Baechi's graph adapter,
// baselines/baechi.h BaechiProblemFromGraph, so the two planners see the same numbers).
#include "baselines/contiguous_split.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "baselines/baechi.h"
#include "core/logging.h"
#include "graph/neighbour_fill.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

bool FiniteNonNegative(double x) { return std::isfinite(x) && x >= 0; }

const char* ObjectiveName(SplitObjective objective) {
  return objective == SplitObjective::kSum ? "contiguous-split" : "contiguous-split-max";
}

// A partial split's value: compared by overflow, then cost.
struct Value {
  int64_t overflow = 0;
  double cost = 0;
};
bool Less(const Value& a, const Value& b) {
  return a.overflow < b.overflow || (a.overflow == b.overflow && a.cost < b.cost);
}
Value Combine(const Value& a, const Value& b, SplitObjective objective) {
  return {a.overflow + b.overflow, objective == SplitObjective::kSum ? a.cost + b.cost : std::max(a.cost, b.cost)};
}

// The incoming bytes and tensor count of every block [a, b), a < b <= n, by one sweep of
// b per a: a tensor read in the block and made outside it counts once; once its
// producer joins the block it no longer counts.
struct BlockTables {
  int n = 0;
  std::vector<int64_t> in_bytes;  // [a * (n + 1) + b]
  std::vector<int32_t> in_count;
  size_t At(int a, int b) const { return static_cast<size_t>(a) * static_cast<size_t>(n + 1) + static_cast<size_t>(b); }
};

BlockTables BuildTables(const SplitProblem& p) {
  BlockTables t;
  t.n = p.num_units;
  const size_t n = static_cast<size_t>(p.num_units);
  t.in_bytes.assign(n * (n + 1), 0);
  t.in_count.assign(n * (n + 1), 0);
  std::vector<std::vector<int32_t>> reads(n), made(n);
  for (size_t x = 0; x < p.tensors.size(); ++x) {
    made[static_cast<size_t>(p.tensors[x].producer)].push_back(static_cast<int32_t>(x));
    for (int32_t c : p.tensors[x].consumers) reads[static_cast<size_t>(c)].push_back(static_cast<int32_t>(x));
  }
  std::vector<uint8_t> counted(p.tensors.size(), 0);
  for (int a = 0; a < p.num_units; ++a) {
    std::fill(counted.begin(), counted.end(), 0);
    int64_t bytes = 0;
    int32_t count = 0;
    for (int b = a + 1; b <= p.num_units; ++b) {
      const size_t u = static_cast<size_t>(b - 1);
      for (int32_t x : made[u]) {
        if (counted[static_cast<size_t>(x)]) {
          counted[static_cast<size_t>(x)] = 0;
          bytes -= p.tensors[static_cast<size_t>(x)].bytes;
          --count;
        }
      }
      for (int32_t x : reads[u]) {
        const SplitTensor& tensor = p.tensors[static_cast<size_t>(x)];
        if ((tensor.producer >= a && tensor.producer < b) || counted[static_cast<size_t>(x)]) continue;
        counted[static_cast<size_t>(x)] = 1;
        bytes += tensor.bytes;
        ++count;
      }
      t.in_bytes[t.At(a, b)] = bytes;
      t.in_count[t.At(a, b)] = count;
    }
  }
  return t;
}

ContiguousSplit Summarize(const SplitProblem& p, std::vector<int32_t> bounds, std::vector<double> block_cost,
                          std::vector<int64_t> block_memory, SplitObjective objective) {
  ContiguousSplit s;
  s.bounds = std::move(bounds);
  for (int k = 0; k < p.num_devices; ++k) {
    const double c = block_cost[static_cast<size_t>(k)];
    s.cost = objective == SplitObjective::kSum ? s.cost + c : std::max(s.cost, c);
    s.overflow_bytes += std::max<int64_t>(0, block_memory[static_cast<size_t>(k)] - p.capacity[static_cast<size_t>(k)]);
  }
  s.fits = s.overflow_bytes == 0;
  s.block_cost = std::move(block_cost);
  s.block_memory = std::move(block_memory);
  return s;
}

}  // namespace

Status ValidateSplitProblem(const SplitProblem& p) {
  const size_t n = static_cast<size_t>(std::max(0, p.num_units));
  const size_t k = static_cast<size_t>(std::max(0, p.num_devices));
  if (p.num_units < 0) return InvalidArgument("contiguous split: negative number of units");
  if (p.num_devices < 1) return InvalidArgument("contiguous split: no devices");
  if (p.compute.size() != n * k) return InvalidArgument("contiguous split: compute is not units x devices");
  if (p.memory.size() != n) return InvalidArgument("contiguous split: memory is not one per unit");
  if (p.latency.size() != k || p.time_per_byte.size() != k || p.capacity.size() != k)
    return InvalidArgument("contiguous split: latency, time_per_byte and capacity need one per device");
  for (size_t u = 0; u < n; ++u) {
    for (size_t d = 0; d < k; ++d) {
      if (!FiniteNonNegative(p.compute[u * k + d]))
        return InvalidArgument("contiguous split: unit " + std::to_string(u) + " has a negative or non-finite cost");
    }
    if (p.memory[u] < 0) return InvalidArgument("contiguous split: unit " + std::to_string(u) + " has negative memory");
  }
  for (size_t d = 0; d < k; ++d) {
    if (!FiniteNonNegative(p.latency[d]) || !FiniteNonNegative(p.time_per_byte[d]) || p.capacity[d] < 0)
      return InvalidArgument("contiguous split: device " + std::to_string(d) +
                             " has a negative or non-finite link or capacity");
  }
  for (size_t x = 0; x < p.tensors.size(); ++x) {
    const SplitTensor& t = p.tensors[x];
    const std::string name = "contiguous split: tensor " + std::to_string(x);
    if (t.producer < 0 || t.producer >= p.num_units) return InvalidArgument(name + " has its producer out of range");
    if (t.bytes < 0) return InvalidArgument(name + " has negative bytes");
    for (size_t i = 0; i < t.consumers.size(); ++i) {
      const int32_t c = t.consumers[i];
      if (c < 0 || c >= p.num_units) return InvalidArgument(name + " has a consumer out of range");
      if (c == t.producer) return InvalidArgument(name + " is read by its own producer's unit");
      if (std::find(t.consumers.begin(), t.consumers.begin() + static_cast<std::ptrdiff_t>(i), c) !=
          t.consumers.begin() + static_cast<std::ptrdiff_t>(i))
        return InvalidArgument(name + " lists unit " + std::to_string(c) + " twice");
    }
  }
  return Status::Ok();
}

StatusOr<ContiguousSplit> EvaluateSplit(const SplitProblem& p, const std::vector<int32_t>& bounds,
                                        SplitObjective objective) {
  GO_RETURN_IF_ERROR(ValidateSplitProblem(p));
  const int kk = p.num_devices;
  if (bounds.size() != static_cast<size_t>(kk + 1) || bounds.front() != 0 || bounds.back() != p.num_units)
    return InvalidArgument("contiguous split: the bounds must be devices + 1 cuts from 0 to the number of units");
  std::vector<int32_t> block(static_cast<size_t>(p.num_units), 0);
  for (int k = 0; k < kk; ++k) {
    if (bounds[static_cast<size_t>(k)] > bounds[static_cast<size_t>(k + 1)])
      return InvalidArgument("contiguous split: the bounds decrease at block " + std::to_string(k));
    for (int32_t u = bounds[static_cast<size_t>(k)]; u < bounds[static_cast<size_t>(k + 1)]; ++u)
      block[static_cast<size_t>(u)] = k;
  }
  std::vector<double> cost(static_cast<size_t>(kk), 0.0);
  std::vector<int64_t> memory(static_cast<size_t>(kk), 0);
  for (int u = 0; u < p.num_units; ++u) {
    const int k = block[static_cast<size_t>(u)];
    cost[static_cast<size_t>(k)] += p.Compute(u, k);
    memory[static_cast<size_t>(k)] += p.memory[static_cast<size_t>(u)];
  }
  std::vector<int32_t> into;
  for (const SplitTensor& t : p.tensors) {
    const int from = block[static_cast<size_t>(t.producer)];
    into.clear();
    for (int32_t c : t.consumers) {
      const int k = block[static_cast<size_t>(c)];
      if (k != from && std::find(into.begin(), into.end(), k) == into.end()) into.push_back(k);
    }
    for (int k : into) {
      cost[static_cast<size_t>(k)] +=
          p.latency[static_cast<size_t>(k)] + static_cast<double>(t.bytes) * p.time_per_byte[static_cast<size_t>(k)];
      memory[static_cast<size_t>(k)] += t.bytes;
    }
  }
  return Summarize(p, bounds, std::move(cost), std::move(memory), objective);
}

StatusOr<ContiguousSplit> SolveContiguousSplit(const SplitProblem& p, SplitObjective objective, bool require_fit) {
  GO_RETURN_IF_ERROR(ValidateSplitProblem(p));
  const int n = p.num_units;
  const int kk = p.num_devices;
  const BlockTables tables = BuildTables(p);
  // prefix[k][i]: compute of units [0, i) on device k; mem_prefix[i]: their memory.
  std::vector<std::vector<double>> prefix(static_cast<size_t>(kk),
                                          std::vector<double>(static_cast<size_t>(n + 1), 0.0));
  std::vector<int64_t> mem_prefix(static_cast<size_t>(n + 1), 0);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < kk; ++k)
      prefix[static_cast<size_t>(k)][static_cast<size_t>(i + 1)] =
          prefix[static_cast<size_t>(k)][static_cast<size_t>(i)] + p.Compute(i, k);
    mem_prefix[static_cast<size_t>(i + 1)] = mem_prefix[static_cast<size_t>(i)] + p.memory[static_cast<size_t>(i)];
  }
  auto block = [&](int a, int b, int k) -> Value {
    if (a == b) return {};
    const size_t at = tables.At(a, b);
    const int64_t in_bytes = tables.in_bytes[at];
    const double cost = prefix[static_cast<size_t>(k)][static_cast<size_t>(b)] -
                        prefix[static_cast<size_t>(k)][static_cast<size_t>(a)] +
                        tables.in_count[at] * p.latency[static_cast<size_t>(k)] +
                        static_cast<double>(in_bytes) * p.time_per_byte[static_cast<size_t>(k)];
    const int64_t memory = mem_prefix[static_cast<size_t>(b)] - mem_prefix[static_cast<size_t>(a)] + in_bytes;
    return {std::max<int64_t>(0, memory - p.capacity[static_cast<size_t>(k)]), cost};
  };
  // best[k][b]: units [0, b) on devices 0..k; cut[k][b]: where block k starts.
  const size_t width = static_cast<size_t>(n + 1);
  std::vector<Value> best(static_cast<size_t>(kk) * width);
  std::vector<int32_t> cut(static_cast<size_t>(kk) * width, 0);
  for (int b = 0; b <= n; ++b) best[static_cast<size_t>(b)] = block(0, b, 0);
  for (int k = 1; k < kk; ++k) {
    for (int b = 0; b <= n; ++b) {
      Value chosen;
      int32_t at = -1;
      for (int a = 0; a <= b; ++a) {
        const Value v =
            Combine(best[static_cast<size_t>(k - 1) * width + static_cast<size_t>(a)], block(a, b, k), objective);
        if (at < 0 || !Less(chosen, v)) chosen = v, at = a;  // ties: the later cut
      }
      best[static_cast<size_t>(k) * width + static_cast<size_t>(b)] = chosen;
      cut[static_cast<size_t>(k) * width + static_cast<size_t>(b)] = at;
    }
  }
  std::vector<int32_t> bounds(static_cast<size_t>(kk + 1), 0);
  bounds[static_cast<size_t>(kk)] = n;
  for (int k = kk - 1; k >= 1; --k)
    bounds[static_cast<size_t>(k)] =
        cut[static_cast<size_t>(k) * width + static_cast<size_t>(bounds[static_cast<size_t>(k + 1)])];
  std::vector<double> cost(static_cast<size_t>(kk));
  std::vector<int64_t> memory(static_cast<size_t>(kk));
  for (int k = 0; k < kk; ++k) {
    const int a = bounds[static_cast<size_t>(k)], b = bounds[static_cast<size_t>(k + 1)];
    cost[static_cast<size_t>(k)] = block(a, b, k).cost;
    memory[static_cast<size_t>(k)] = a == b ? 0
                                            : mem_prefix[static_cast<size_t>(b)] - mem_prefix[static_cast<size_t>(a)] +
                                                  tables.in_bytes[tables.At(a, b)];
  }
  ContiguousSplit s = Summarize(p, std::move(bounds), std::move(cost), std::move(memory), objective);
  if (require_fit && !s.fits) {
    return Status(StatusCode::kOutOfMemory, "contiguous split: no split of the " + std::to_string(n) + " units over " +
                                                std::to_string(kk) + " devices fits; the least overflowing passes by " +
                                                std::to_string(s.overflow_bytes) + " bytes");
  }
  return s;
}

StatusOr<SplitUnits> ContiguousSplitUnits(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  GO_ASSIGN_OR_RETURN(const std::vector<OpId> order, TopologicalOrder(graph));
  const size_t n = static_cast<size_t>(graph.num_ops());
  SplitUnits units;
  std::vector<int32_t> unit(n, kNoId);
  std::vector<uint8_t> layer_used(graph.layer_names().size(), 0);
  int num_layers = 0;
  for (const Op& op : graph.ops()) {
    if (op.layer >= 0 && static_cast<size_t>(op.layer) < layer_used.size() &&
        !layer_used[static_cast<size_t>(op.layer)]) {
      layer_used[static_cast<size_t>(op.layer)] = 1;
      ++num_layers;
    }
  }
  if (num_layers >= 2) {
    units.by_layer = true;
    for (size_t o = 0; o < n; ++o) {
      const int32_t l = graph.op(static_cast<OpId>(o)).layer;
      if (l >= 0 && static_cast<size_t>(l) < layer_used.size()) unit[o] = l;  // compacted below
    }
  } else {
    // Runs of the forward ops in topological order, balanced by their forward, backward
    // and update time on the first accelerator.
    const Device& device = cluster.device(cluster.FirstAccelerator());
    std::vector<double> weight(n, 0.0);
    std::vector<OpId> forward;
    for (OpId o : order) {
      const Op& op = graph.op(o);
      const double t = cost_model.IsInstant(op) ? 0.0 : cost_model.OpTimeUs(op, device);
      const OpId owner = op.forward_op != kNoId ? op.forward_op : o;
      weight[static_cast<size_t>(owner)] += t;
      if (op.forward_op == kNoId && op.phase == Phase::kForward) forward.push_back(o);
    }
    double total = 0;
    for (OpId o : forward) total += weight[static_cast<size_t>(o)];
    const int runs = std::max(1, std::min<int>(kMaxSplitUnits, static_cast<int>(forward.size())));
    double before = 0;
    for (size_t i = 0; i < forward.size(); ++i) {
      const double w = total > 0 ? weight[static_cast<size_t>(forward[i])] : 1.0;
      const double sum = total > 0 ? total : static_cast<double>(forward.size());
      unit[static_cast<size_t>(forward[i])] = std::min(runs - 1, static_cast<int32_t>((before + w / 2) * runs / sum));
      before += w;
    }
  }
  // Backward and update ops with their forward op, then neighbours, then unit 0.
  for (size_t o = 0; o < n; ++o) {
    const OpId f = graph.op(static_cast<OpId>(o)).forward_op;
    if (unit[o] == kNoId && f != kNoId) unit[o] = unit[static_cast<size_t>(f)];
  }
  FillFromNeighbours(graph, order, &unit);
  // A colocation group with its lowest-id op (the rule of RespectColocation).
  std::vector<int32_t> group_unit;
  for (size_t o = 0; o < n; ++o) {
    if (unit[o] == kNoId) unit[o] = 0;
    const int32_t g = graph.op(static_cast<OpId>(o)).colocation_group;
    if (g < 0) continue;
    if (static_cast<size_t>(g) >= group_unit.size()) group_unit.resize(static_cast<size_t>(g) + 1, kNoId);
    if (group_unit[static_cast<size_t>(g)] == kNoId) group_unit[static_cast<size_t>(g)] = unit[o];
    unit[o] = group_unit[static_cast<size_t>(g)];
  }
  // The units in use, ranked in order.
  std::vector<int32_t> values = unit;
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  for (int32_t& u : unit) u = static_cast<int32_t>(std::lower_bound(values.begin(), values.end(), u) - values.begin());
  units.op_unit = std::move(unit);
  units.num_units = static_cast<int>(values.size());
  return units;
}

StatusOr<SplitProblem> SplitProblemFromGraph(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                             const SplitUnits& units, std::vector<DeviceId>* devices) {
  if (units.op_unit.size() != static_cast<size_t>(graph.num_ops()))
    return InvalidArgument("contiguous split: the units are not one per op of graph " + graph.name());
  GO_ASSIGN_OR_RETURN(const BaechiProblem b, BaechiProblemFromGraph(graph, cluster, cost_model, devices));
  const int kk = b.num_procs;
  SplitProblem p;
  p.num_units = units.num_units;
  p.num_devices = kk;
  p.compute.assign(static_cast<size_t>(p.num_units) * static_cast<size_t>(kk), 0.0);
  p.memory.assign(static_cast<size_t>(p.num_units), 0);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const int32_t u = units.op_unit[static_cast<size_t>(o)];
    if (u < 0 || u >= p.num_units) return InvalidArgument("contiguous split: op " + graph.op(o).name + " has no unit");
    for (int k = 0; k < kk; ++k)
      p.compute[static_cast<size_t>(u) * static_cast<size_t>(kk) + static_cast<size_t>(k)] += b.Cost(o, k);
    p.memory[static_cast<size_t>(u)] += b.resident[static_cast<size_t>(o)];
  }
  for (const BaechiTensor& t : b.tensors) {
    const int32_t from = units.op_unit[static_cast<size_t>(t.producer)];
    if (graph.op(t.producer).phase == Phase::kForward) p.memory[static_cast<size_t>(from)] += t.memory;
    SplitTensor x;
    x.producer = from;
    x.bytes = t.bytes;
    for (int32_t c : t.consumers) {
      const int32_t u = units.op_unit[static_cast<size_t>(c)];
      if (u != from && std::find(x.consumers.begin(), x.consumers.end(), u) == x.consumers.end())
        x.consumers.push_back(u);
    }
    if (!x.consumers.empty()) p.tensors.push_back(std::move(x));
  }
  p.latency.assign(static_cast<size_t>(kk), 0.0);
  p.time_per_byte.assign(static_cast<size_t>(kk), 0.0);
  p.capacity = b.capacity;
  for (int k = 0; k < kk; ++k) {
    for (int a = 0; a < kk; ++a) {
      if (a == k) continue;
      const size_t at = static_cast<size_t>(a * kk + k);
      p.latency[static_cast<size_t>(k)] = std::max(p.latency[static_cast<size_t>(k)], b.latency[at]);
      p.time_per_byte[static_cast<size_t>(k)] = std::max(p.time_per_byte[static_cast<size_t>(k)], b.time_per_byte[at]);
    }
  }
  return p;
}

StatusOr<Plan> ContiguousSplitPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                   SplitObjective objective) {
  const std::string context = std::string(ObjectiveName(objective)) + " on graph " + graph.name();
  StatusOr<SplitUnits> units = ContiguousSplitUnits(graph, cluster, cost_model);
  if (!units.ok()) return units.status().WithContext(context);
  std::vector<DeviceId> devices;
  StatusOr<SplitProblem> problem = SplitProblemFromGraph(graph, cluster, cost_model, *units, &devices);
  if (!problem.ok()) return problem.status().WithContext(context);
  StatusOr<ContiguousSplit> split = SolveContiguousSplit(*problem, objective);
  if (!split.ok()) return split.status().WithContext(context);
  if (!split->fits) {
    LogWarning(context + ": no contiguous split of the " + std::to_string(units->num_units) +
               (units->by_layer ? " layers" : " runs of the topological order") +
               " fits every device's memory by the model's count; returning the least overflowing (by " +
               std::to_string(split->overflow_bytes) + " bytes)");
  }
  std::vector<int32_t> block(static_cast<size_t>(units->num_units), 0);
  for (size_t k = 0; k + 1 < split->bounds.size(); ++k) {
    for (int32_t u = split->bounds[k]; u < split->bounds[k + 1]; ++u)
      block[static_cast<size_t>(u)] = static_cast<int32_t>(k);
  }
  Plan plan = DefaultPlan(graph, devices[0]);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    plan.device[static_cast<size_t>(o)] =
        devices[static_cast<size_t>(block[static_cast<size_t>(units->op_unit[static_cast<size_t>(o)])])];
  }
  // Groups share a unit by construction; this is a guard.
  RespectColocation(graph, &plan);
  return plan;
}

}  // namespace graphopt
