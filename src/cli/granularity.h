// The --granularity and --depth flags of the commands that plan (optimize, baseline):
// `--granularity module` keeps every module of the model (graph/modules.h) on one
// device, so that the plan can be applied as a {module: device} map
// (`graphopt export --to device-map`); `op` (the default) places each op freely.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"
#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"

namespace graphopt {

// --granularity and --depth, for a command's flag list.
std::vector<FlagSpec> GranularityFlags();

// Applies --granularity and --depth to `graph` (sim/device_map.h ApplyGranularity) and
// returns a line for the run's header ("" with op granularity).
StatusOr<std::string> ApplyGranularityFlags(const Args& args, const Cluster& cluster, Graph* graph);

}  // namespace graphopt
