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

// With --granularity module, colocates the ops of each module of --depth (0 or none:
// the shallowest depth with at least two modules holding parameters per accelerator
// of `cluster`) and returns a line for the run's header; "" with op granularity.
StatusOr<std::string> ApplyGranularity(const Args& args, const Cluster& cluster, Graph* graph);

}  // namespace graphopt
