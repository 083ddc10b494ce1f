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

StatusOr<std::string> ApplyGranularityFlags(const Args& args, const Cluster& cluster, Graph* graph) {
  GO_ASSIGN_OR_RETURN(const int64_t depth, args.GetIntInRange("depth", 0, INT32_MIN, INT32_MAX));
  if (args.Has("depth") && !args.Has("granularity")) return InvalidArgument("--depth goes with --granularity module");
  StatusOr<std::optional<ModuleMap>> modules = ApplyGranularity(args.Get("granularity", "op"), depth, cluster, graph);
  if (!modules.ok()) return InvalidArgument("--" + modules.status().message());
  if (!modules->has_value()) return std::string();
  const ModuleMap& m = **modules;
  int64_t placed = 0;
  for (int32_t id : m.op_module) placed += id != kNoId;
  return StrFormat("modules  %zu at depth %d (%lld of %d ops in them; %d colocation groups)", m.names.size(), m.depth,
                   static_cast<long long>(placed), graph->num_ops(), graph->num_colocation_groups());
}

}  // namespace graphopt
