// A plan as the map a PyTorch program applies: {module name: device}, the devices as
// Hugging Face Accelerate's `dispatch_model` takes them (an accelerator's index among
// the cluster's accelerators, or "cpu"), for a plan that keeps every module of the
// chosen depth on one device (graph/modules.h; `graphopt optimize --granularity
// module` makes such plans). Written by `graphopt export --to device-map` and the
// Python module's Plan.device_map; applying one is shown in docs/python.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "graph/modules.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

// The deepest module depth a plan may keep whole.
inline constexpr int kMaxModuleDepth = 64;

// The modules of `graph` a plan for `cluster` keeps whole: those of `depth` (0 to
// kMaxModuleDepth; others are refused), or with depth 0 of the shallowest depth with
// two modules holding parameters per accelerator (graph/modules.h ModulesAtDepth). The
// one rule of `--granularity module`, `export`, the module-balanced baseline and the
// Python module.
StatusOr<ModuleMap> ClusterModules(const Graph& graph, const Cluster& cluster, int64_t depth);

// A plan's granularity, the one rule of `--granularity G --depth K` and the Python
// module's granularity=, depth=: "op" places every op freely (a depth other than 0 is
// refused); "module" makes every module of `depth` (ClusterModules; 0: its choice)
// one colocation group of `graph` (ColocateModules), so that every plan keeps it on
// one device, and returns the modules (nullopt for "op").
StatusOr<std::optional<ModuleMap>> ApplyGranularity(const std::string& granularity, int64_t depth,
                                                    const Cluster& cluster, Graph* graph);

struct DeviceMap {
  int depth = 0;
  std::vector<std::string> modules;  // in the graph's op order
  std::vector<DeviceId> device;      // per module
  // The modules in the order the plan runs their first kernel (a simulated step);
  // empty unless the map was made with a simulated timeline.
  std::vector<std::string> order;
};

// The device of each module of `modules` under `plan`. A plan that splits a module
// is refused, naming the module and two of its ops on different devices.
StatusOr<DeviceMap> PlanDeviceMap(const Graph& graph, const Plan& plan, const ModuleMap& modules);

// Sets map->order from a simulated timeline (SimResult::timeline) of the plan: by the
// start of each module's first forward kernel that computes (sources, which cost
// nothing, do not count).
void SetExecutionOrder(const Graph& graph, const ModuleMap& modules, const std::vector<TimelineEvent>& timeline,
                       DeviceMap* map);

// A device as Accelerate names it: the accelerator's index among the cluster's
// accelerators (AcceleratorIndex; "0", "1", ... in DeviceMapValue), or none for a
// CPU ("cpu").
std::optional<int> AcceleratorIndex(const Cluster& cluster, DeviceId device);
std::string DeviceMapValue(const Cluster& cluster, DeviceId device);

// The map as JSON: {"format": "graphopt-device-map", "version": 1, "model", "cluster",
// "depth", "device_map": {module: index or "cpu"}, "order": [...]}.
std::string DeviceMapJson(const DeviceMap& map, const Graph& graph, const Cluster& cluster);

}  // namespace graphopt
