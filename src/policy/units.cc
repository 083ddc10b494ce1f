#include "policy/units.h"

#include <algorithm>

#include "partition/partition_graph.h"

namespace graphopt {

StatusOr<std::vector<int32_t>> PartitionUnits(const Graph& graph, const std::vector<double>& op_time_us, int max_units) {
  GO_CHECK(max_units >= 2 && op_time_us.size() == static_cast<size_t>(graph.num_ops()));
  // Instant ops weigh 1% of the mean op time, so that a part of only free ops is
  // not free.
  double total = 0;
  for (double t : op_time_us) total += std::max(0.0, t);
  const double floor_weight = graph.num_ops() > 0 ? 0.01 * std::max(total, 1.0) / graph.num_ops() : 0.0;
  std::vector<double> weight(op_time_us.size());
  for (size_t o = 0; o < weight.size(); ++o) weight[o] = 1000.0 * (std::max(0.0, op_time_us[o]) + floor_weight);
  const PartitionGraph pg = BuildPartitionGraph(graph, weight);
  GO_CHECK(pg.num_vertices() > max_units);
  auto parts = MetisPartition(pg, max_units, /*seed=*/0);
  if (!parts.ok()) return parts.status().WithContext("decision units of '" + graph.name() + "'");
  std::vector<int32_t> unit(op_time_us.size());
  for (size_t o = 0; o < unit.size(); ++o) unit[o] = (*parts)[static_cast<size_t>(pg.vertex_of_op[o])];
  return unit;
}

}  // namespace graphopt
