// A lower bound on the step time of every plan of a graph on a cluster.
//
// Each op gets its least possible contribution to a kernel, lb(o, d), on every
// device d: its own kernel time; or, if its kind lets it fuse into its producer,
// only its compute part (measured time minus launch, or FLOPs / (peak x efficiency)),
// since a fused kernel pays one launch and its memory traffic once; or, if some
// consumer could fuse into it, launch + compute part. A fused kernel lasts at least
// launch + the sum of its members' compute parts (cost_model.h), so every kernel
// lasts at least the sum of lb over its ops. Free ops and instant views count 0.
//
// critical_path_us: the longest dependency path (the simulator's dependencies: free
// ops wait for nothing), each op weighted by min over devices of lb(o, d), with no
// communication. It holds because the ops of a path run in kernels one after
// another (a kernel starts after its inputs' kernels end; transfers take >= 0), and
// the ops of one fused group are contiguous on a path (groups are acyclic), so the
// path's weight is at most the sum of those kernels' durations.
//
// work_us: the devices are busy for at least sum over ops of lb(o, device of o) in
// total, and the step lasts at least as long as every device is busy. So for any
// weights z >= 0 over devices summing to 1, step >= sum_d z_d busy_d >= sum over ops
// of min_d z_d lb(o, d). With identical devices z is uniform (total work / number
// of devices); with mixed devices we search z over the classes of identical
// devices (the bound holds for every z, so an inexact search only loosens it).
#pragma once

#include <algorithm>

#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"

namespace graphopt {

struct LowerBound {
  double critical_path_us = 0;
  double work_us = 0;
  double value_us() const { return std::max(critical_path_us, work_us); }
};

// lb(o, d) as above, for every op and device: result[o * num_devices + d].
std::vector<double> LeastOpContributions(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);
// Fails if the graph has a cycle.
StatusOr<LowerBound> ComputeLowerBound(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);

}  // namespace graphopt
