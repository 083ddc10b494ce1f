// The --cluster and --profile flags of every command: a preset, a cluster .json file,
// a spec such as 2xV100+1xP100 (sim/cluster.h: LoadCluster), or this machine's cores,
// local or local:N (exec/local_cluster.h: measured when first used), where the build
// has the executor; a profile (exec/profiler.h) gives the graph measured op times and,
// for a local cluster, the figures measured with them.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"

namespace graphopt {

// The cluster of the commands that plan (run, baseline, optimize, bench --models) when
// --cluster is not given.
inline constexpr const char* kDefaultCluster = "4xV100";

StatusOr<Cluster> LoadClusterFlag(const std::string& name);

// The cluster of --cluster NAME and, when `profile` is not empty, the profile's op
// times written into `graph`; a local cluster is then the profile's if it has that
// name (no second measurement: the plan is made on the figures the times go with).
StatusOr<Cluster> LoadClusterAndProfile(const std::string& name, const std::string& profile, Graph* graph);

// The commands that run kernels on a local cluster (execute, profile): ATen's OpenMP
// threads are read from OMP_NUM_THREADS when the runtime loads, so the process
// restarts itself once with the smallest device's core count unless it has it
// already. Returns the core sets of `name` (local or local:N), or an error.
StatusOr<std::vector<std::vector<int>>> LocalCoresWithThreads(const std::string& name, char** argv);

}  // namespace graphopt
