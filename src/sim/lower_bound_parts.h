// The interval and memory-cut parts of the lower bound (sim/lower_bound.h argues
// both). Internal to sim/lower_bound.cc: include sim/lower_bound.h instead.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "sim/cluster.h"

namespace graphopt {
namespace lower_bound_internal {

// The least step time the interval argument proves, given per op p, ES and tail, the
// number of devices and a bound already proven (> 0); 0 if it proves nothing more.
// Evaluates about max_evaluations op-interval pairs (at least a few per op).
double IntervalBound(const std::vector<double>& p, const std::vector<double>& es, const std::vector<double>& tail,
                     int num_devices, double proven_us, double max_evaluations = 2e7);

struct MemoryCut {
  double bound_us = 0;  // +inf if no plan fits
  bool no_plan_fits = false;
};
// The memory-forced cut over the graph's data edges, with p, ES and tail as above.
MemoryCut MemoryCutBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& p,
                         const std::vector<double>& es, const std::vector<double>& tail);

}  // namespace lower_bound_internal
}  // namespace graphopt
