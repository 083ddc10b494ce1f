// A lower bound on the step time of every plan of a graph on a cluster.
//
// Each op gets its least possible contribution to a kernel, lb(o, d), on every
// device d: its own kernel time; or, if its kind lets it fuse into its producer,
// only its compute part (measured time minus launch, or FLOPs / (peak x efficiency)),
// since a fused kernel pays one launch and its memory traffic once; or, if some
// consumer could fuse into it, launch + compute part. A fused kernel lasts at least
// launch + the sum of its members' compute parts (cost_model.h), so every kernel
// lasts at least the sum of lb over its ops. Free ops and instant views count 0.
// Below, p(o) = min over devices of lb(o, d).
//
// critical_path_us: the longest dependency path (the simulator's dependencies: free
// ops wait for nothing), each op weighted by p, with no communication. It holds
// because the ops of a path run in kernels one after another (a kernel starts after
// its inputs' kernels end; transfers take >= 0), and the ops of one fused group are
// contiguous on a path (groups are acyclic), so the path's weight is at most the sum
// of those kernels' durations. ES(o), o's start in that pass, is the longest path
// into o; tail(o) is the longest p-weighted path out of o, o excluded.
//
// work_us: the devices are busy for at least sum over ops of lb(o, device of o) in
// total, and the step lasts at least as long as every device is busy. So for any
// weights z >= 0 over devices summing to 1, step >= sum_d z_d busy_d >= sum over ops
// of min_d z_d lb(o, d). With identical devices z is uniform (total work / number
// of devices); with mixed devices we search z over the classes of identical
// devices (the bound holds for every z, so an inexact search only loosens it).
//
// interval_us (Fernandez-Bussell, every plan): give each op a virtual slice of length
// p(o) inside its kernel: a kernel's members in topological order, one after another
// from the kernel's start (they fit: the kernel lasts at least the sum of their lb,
// and p <= lb on any device, so mixed devices keep it valid). A slice then starts
// after the slices of the op's predecessors end (inside the kernel by the order,
// outside because the kernel waits for its inputs' kernels), so in a plan of step T
// the slice lies in [ES(o), T - tail(o)]; and at any time at most D = num_devices
// slices run (one kernel per device). Its least overlap with an interval [t1, t2] is
// max(0, min(p, t2 - t1, ES + p - t1, t2 - (T - tail) + p)), and the overlaps sum to at
// most D (t2 - t1). We take intervals anchored at both ends, t1 = x, t2 = T - y, for x
// and y from the ES, ES + p, tail and tail + p of the ops (subsampled to keep about
// 2e7 op-interval evaluations on a large graph): then the overlap is min(B(o), L)^+
// with B = min(p, ES + p - x, tail + p - y) free of T and L = T - x - y. F(L) = sum_o
// min(B^+, L) is concave with F(0) = 0, so if more than D ops have B > 0, F(L) > D L
// exactly on (0, L*), L* = min over k < D of (sum of the B but the k largest) / (D - k)
// (F is the least of the lines "the k largest capped at L"). So every T in
// (x + y, x + y + L*) is infeasible; we use only pairs with x + y below a bound
// already proven (the larger of the parts above, then of those and this one, in a
// few rounds), so every plan's T exceeds x + y and hence is >= x + y + L*. This is the
// binary search over T solved in closed form: interval_us is the supremum of the T
// proven infeasible, a value no plan beats. 0 if no interval is violated.
//
// memory_cut_us (only plans that FIT in memory: the simulator reports OOM and goes
// on, so it stays out of value_us). If a data edge u -> v (v not free: its kernel
// waits for the tensor, which is sent once its producer's kernel ends) joins ops on
// different devices, the step lasts at least w = ES(u) + p(u) + c + p(v) + tail(v), c
// the least over ordered device pairs of link latency + bytes / PathBandwidth (u's
// slice ends by its kernel's end, the transfer follows, v's kernel starts after it).
// Every op holds its resident bytes (graph.h OpResidentBytes: parameters, a
// Variable's max(param_bytes, output bytes), an update's optimizer state) on its
// device all step, so a plan fits only if each device's resident bytes are within its
// capacity. Union the colocation groups (always on one device), then the edges'
// endpoints by decreasing w: the first union that makes a component's resident bytes
// exceed the largest device memory gives memory_cut_us = its w, since a fitting plan
// cannot hold that component on one device and so cuts one of the edges unioned so
// far (each with w >= this one). 0 if no union overflows. If a colocation group (or
// an op) alone overflows, or all resident bytes exceed the sum of the capacities, or
// a union overflows on a one-device cluster (no edge can be cut: w = +inf), no plan
// fits: no_plan_fits is set and memory_cut_us is +infinity.
#pragma once

#include <algorithm>
#include <vector>

#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"

namespace graphopt {

struct LowerBound {
  double critical_path_us = 0;
  double work_us = 0;
  double interval_us = 0;    // every plan (see above); 0 if it proves nothing
  double memory_cut_us = 0;  // plans that fit in memory only; +inf if none can
  bool no_plan_fits = false;  // the resident bytes fit no plan (memory_cut_us = +inf)
  // No plan is faster.
  double value_us() const { return std::max({critical_path_us, work_us, interval_us}); }
  // No plan that fits in memory is faster (+inf if no plan fits).
  double fitting_value_us() const { return std::max(value_us(), memory_cut_us); }
};

// lb(o, d) as above, for every op and device: result[o * num_devices + d].
std::vector<double> LeastOpContributions(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);
// Fails if the graph has a cycle.
StatusOr<LowerBound> ComputeLowerBound(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);

}  // namespace graphopt
