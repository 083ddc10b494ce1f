#include "sim/device_map.h"

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "core/strings.h"

namespace graphopt {

StatusOr<ModuleMap> ClusterModules(const Graph& graph, const Cluster& cluster, int64_t depth) {
  if (depth < 0 || depth > kMaxModuleDepth) {
    return InvalidArgument(StrFormat("depth: %lld is out of range [0, %d] (0: chosen for the cluster)",
                                     static_cast<long long>(depth), kMaxModuleDepth));
  }
  const int accelerators = std::max<int>(1, static_cast<int>(cluster.Accelerators().size()));
  return ModulesAtDepth(graph, static_cast<int>(depth), 2 * accelerators);
}

StatusOr<std::optional<ModuleMap>> ApplyGranularity(const std::string& granularity, int64_t depth,
                                                    const Cluster& cluster, Graph* graph) {
  if (granularity != "op" && granularity != "module") {
    return InvalidArgument("granularity: expected op or module, got '" + granularity + "'");
  }
  if (granularity == "op") {
    if (depth != 0) return InvalidArgument("depth goes with granularity module");
    return std::optional<ModuleMap>();
  }
  GO_ASSIGN_OR_RETURN(ModuleMap modules, ClusterModules(*graph, cluster, depth));
  ColocateModules(modules, graph);
  return std::optional<ModuleMap>(std::move(modules));
}

StatusOr<DeviceMap> PlanDeviceMap(const Graph& graph, const Plan& plan, const ModuleMap& modules) {
  if (plan.device.size() != static_cast<size_t>(graph.num_ops()) || modules.op_module.size() != plan.device.size()) {
    return InvalidArgument(StrFormat("a plan of %zu ops and modules of %zu ops for graph %s of %d ops", plan.device.size(),
                                     modules.op_module.size(), graph.name().c_str(), graph.num_ops()));
  }
  DeviceMap map;
  map.depth = modules.depth;
  map.modules = modules.names;
  map.device.assign(modules.names.size(), kNoId);
  std::vector<OpId> first(modules.names.size(), kNoId);
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const int32_t m = modules.op_module[static_cast<size_t>(o)];
    if (m == kNoId) continue;
    const DeviceId d = plan.device[static_cast<size_t>(o)];
    DeviceId& mine = map.device[static_cast<size_t>(m)];
    if (mine == kNoId) {
      mine = d;
      first[static_cast<size_t>(m)] = o;
    } else if (mine != d) {
      const OpId f = first[static_cast<size_t>(m)];
      return FailedPrecondition(StrFormat(
          "the plan splits module %s (depth %d): op %s on device %d, op %s on device %d; plan with "
          "optimize --granularity module --depth %d to keep modules whole",
          modules.names[static_cast<size_t>(m)].c_str(), modules.depth, graph.op(f).name.c_str(), mine,
          graph.op(o).name.c_str(), d, modules.depth));
    }
  }
  return map;
}

void SetExecutionOrder(const Graph& graph, const ModuleMap& modules, const std::vector<TimelineEvent>& timeline,
                       DeviceMap* map) {
  std::vector<double> start(modules.names.size(), std::numeric_limits<double>::infinity());
  for (const TimelineEvent& e : timeline) {
    if (e.kind != TimelineEvent::Kind::kKernel || e.op == kNoId) continue;
    const Op& op = graph.op(e.op);
    if (op.phase != Phase::kForward || CategoryOf(op.kind) == OpCategory::kSource) continue;
    const int32_t m = modules.op_module[static_cast<size_t>(e.op)];
    if (m != kNoId) start[static_cast<size_t>(m)] = std::min(start[static_cast<size_t>(m)], e.start_us);
  }
  std::vector<size_t> order(modules.names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return start[a] < start[b]; });
  map->order.clear();
  for (size_t i : order) map->order.push_back(modules.names[i]);
}

std::optional<int> AcceleratorIndex(const Cluster& cluster, DeviceId device) {
  if (cluster.device(device).kind != DeviceKind::kGpu) return std::nullopt;
  const std::vector<DeviceId> accelerators = cluster.Accelerators();
  return static_cast<int>(std::find(accelerators.begin(), accelerators.end(), device) - accelerators.begin());
}

std::string DeviceMapValue(const Cluster& cluster, DeviceId device) {
  const std::optional<int> index = AcceleratorIndex(cluster, device);
  return index ? std::to_string(*index) : "cpu";
}

std::string DeviceMapJson(const DeviceMap& map, const Graph& graph, const Cluster& cluster) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::object();
  for (size_t i = 0; i < map.modules.size(); ++i) {
    const std::optional<int> index = AcceleratorIndex(cluster, map.device[i]);
    if (index) {
      devices[map.modules[i]] = *index;
    } else {
      devices[map.modules[i]] = "cpu";
    }
  }
  nlohmann::ordered_json j{{"format", "graphopt-device-map"}, {"version", 1},       {"model", graph.name()},
                           {"cluster", cluster.name()},       {"depth", map.depth}, {"device_map", devices},
                           {"order", map.order}};
  return j.dump(2) + "\n";
}

}  // namespace graphopt
