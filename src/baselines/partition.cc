// METIS and Scotch placements: a k-way partition of the op graph, one part per
// accelerator, balanced in compute and cutting as few tensor bytes as possible.
//
// Both partitioners see the same undirected graph (partition/partition_graph.h):
// colocation groups contracted, a vertex weighing the summed run time of its ops on
// the first accelerator (CostModel::OpTimeUs) in nanoseconds, an edge the bytes of
// the tensors between two vertices. k is the number of accelerators (all devices if
// BaselineOptions::accelerators_only is false), parts are equal targets, and part p
// goes on the p-th device. METIS and Scotch are seeded from options.seed.
//
// Memory is not a constraint of either partitioner, as in the papers that report
// METIS placements running out of memory: after partitioning, a part whose
// parameters and optimizer state (the Op::param_bytes of its ops) exceed its
// device's memory is reported in a warning, and the plan is returned as it is; the
// simulator then reports the OOM.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "baselines/baseline.h"
#include "core/logging.h"
#include "core/strings.h"
#include "partition/partition_graph.h"

namespace graphopt {
namespace {

using Partitioner = std::function<StatusOr<std::vector<int>>(const PartitionGraph&, int, uint64_t)>;

// Warns about every device whose parameters and optimizer state exceed its memory.
void ReportParameterMemory(const std::string& method, const Graph& graph, const Cluster& cluster, const Plan& plan) {
  std::vector<int64_t> bytes(static_cast<size_t>(cluster.num_devices()), 0);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    bytes[static_cast<size_t>(plan.device[static_cast<size_t>(o)])] += graph.op(o).param_bytes;
  }
  for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
    const Device& device = cluster.device(d);
    if (bytes[static_cast<size_t>(d)] <= device.memory_bytes) continue;
    LogWarning(method + ": the part of '" + graph.name() + "' on " + device.name + " holds " +
               HumanBytes(static_cast<double>(bytes[static_cast<size_t>(d)])) +
               " of parameters and optimizer state, more than the device's " +
               HumanBytes(static_cast<double>(device.memory_bytes)) + " of memory: the plan runs out of memory (OOM)");
  }
}

StatusOr<Plan> PartitionPlan(const std::string& method, const Partitioner& partitioner, const Graph& graph,
                             const Cluster& cluster, const CostModel& cost_model, const BaselineOptions& options) {
  std::vector<DeviceId> devices;
  if (options.accelerators_only) {
    devices = cluster.Accelerators();
  } else {
    for (DeviceId d = 0; d < cluster.num_devices(); ++d) devices.push_back(d);
  }
  if (devices.empty()) devices.push_back(cluster.FirstAccelerator());
  const int k = static_cast<int>(devices.size());
  Plan plan = DefaultPlan(graph, devices[0]);
  if (graph.num_ops() == 0) return plan;

  // Vertex weights: run time on the first accelerator in nanoseconds.
  std::vector<double> op_ns(static_cast<size_t>(graph.num_ops()));
  const Device& reference = cluster.device(cluster.FirstAccelerator());
  for (OpId o = 0; o < graph.num_ops(); ++o) op_ns[static_cast<size_t>(o)] = 1000.0 * cost_model.OpTimeUs(graph.op(o), reference);
  const PartitionGraph pg = BuildPartitionGraph(graph, op_ns);
  std::vector<int> part(static_cast<size_t>(pg.num_vertices()), 0);
  if (k > 1 && pg.num_vertices() <= k) {
    for (int v = 0; v < pg.num_vertices(); ++v) part[static_cast<size_t>(v)] = v;
  } else if (k > 1) {
    auto parts = partitioner(pg, k, options.seed);
    if (!parts.ok()) return parts.status().WithContext(method + " placement of '" + graph.name() + "'");
    part = std::move(*parts);
  }
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const int p = part[static_cast<size_t>(pg.vertex_of_op[static_cast<size_t>(o)])];
    if (p < 0 || p >= k) return InternalError(StrFormat("%s returned part %d of %d", method.c_str(), p, k));
    plan.device[static_cast<size_t>(o)] = devices[static_cast<size_t>(p)];
  }
  RespectColocation(graph, &plan);  // a no-op: groups are single vertices
  ReportParameterMemory(method, graph, cluster, plan);
  Status valid = ValidatePlan(graph, cluster, plan);
  if (!valid.ok()) return InternalError(method + " placement of '" + graph.name() + "' is invalid: " + valid.message());
  return plan;
}

}  // namespace

StatusOr<Plan> MetisPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                         const BaselineOptions& options) {
  return PartitionPlan("metis", MetisPartition, graph, cluster, cost_model, options);
}

StatusOr<Plan> ScotchPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                          const BaselineOptions& options) {
  return PartitionPlan("scotch", ScotchPartition, graph, cluster, cost_model, options);
}

}  // namespace graphopt
