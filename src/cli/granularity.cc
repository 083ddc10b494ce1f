#include "cli/granularity.h"

#include "core/options.h"
#include "core/strings.h"
#include "graph/modules.h"
#include "sim/device_map.h"

namespace graphopt {

std::vector<FlagSpec> GranularityFlags() {
  return {
      {"granularity", true,
       "op (the default: each op placed freely) or module: every module of the model on one device, so that the plan "
       "is a {module: device} map (graphopt export --to device-map)"},
      {"depth", true,
       "with --granularity module: the depth of the modules (1: the model's children, 2: theirs, ...; default: the "
       "shallowest depth with two modules holding parameters per accelerator)"},
  };
}

StatusOr<std::string> ApplyGranularity(const Args& args, const Cluster& cluster, Graph* graph) {
  const std::string granularity = args.Get("granularity", "op");
  if (granularity != "op" && granularity != "module") {
    return InvalidArgument("--granularity: expected op or module, got '" + granularity + "'");
  }
  GO_ASSIGN_OR_RETURN(const int64_t depth, args.GetIntInRange("depth", 0, 0, 64));
  if (granularity == "op") {
    if (args.Has("depth")) return InvalidArgument("--depth goes with --granularity module");
    return std::string();
  }
  GO_ASSIGN_OR_RETURN(const ModuleMap modules, ClusterModules(*graph, cluster, static_cast<int>(depth)));
  const int groups = ColocateModules(modules, graph);
  int64_t placed = 0;
  for (int32_t m : modules.op_module) placed += m != kNoId;
  return StrFormat("modules  %zu at depth %d (%lld of %d ops in them; %d colocation groups)", modules.names.size(),
                   modules.depth, static_cast<long long>(placed), graph->num_ops(), groups);
}

}  // namespace graphopt
