// The devices and op costs the list placers share (baselines/baseline.h).
#include "baselines/baseline.h"
#include "graph/verifier.h"

namespace graphopt {

StatusOr<std::vector<DeviceId>> ListPlacerDevices(const Graph& graph, const Cluster& cluster, const std::string& who) {
  if (cluster.num_devices() == 0) return InvalidArgument(who + ": cluster " + cluster.name() + " has no devices");
  GO_RETURN_IF_ERROR(TopologicalOrder(graph).status().WithContext(who + " on graph " + graph.name()));
  std::vector<DeviceId> devices = cluster.Accelerators();
  if (devices.empty()) devices.push_back(cluster.FirstAccelerator());
  return devices;
}

std::vector<double> OpCostTable(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                const std::vector<DeviceId>& devices) {
  const size_t np = devices.size();
  std::vector<double> cost(static_cast<size_t>(graph.num_ops()) * np, 0.0);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const Op& op = graph.op(o);
    if (cost_model.IsInstant(op)) continue;
    for (size_t q = 0; q < np; ++q) cost[static_cast<size_t>(o) * np + q] = cost_model.OpTimeUs(op, cluster.device(devices[q]));
  }
  return cost;
}

}  // namespace graphopt
