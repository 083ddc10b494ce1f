// HEFT list scheduling on an abstract task graph, as defined in "Performance-Effective
// and Low-Complexity Task Scheduling for Heterogeneous Computing" (IEEE TPDS, 2002).
//
// A HeftProblem is a DAG of tasks, a set of processors, the computation cost of every
// task on every processor and, for every edge, the data it carries. Moving data from
// processor a to processor b costs messages x latency(a, b) + data x time_per_unit(a, b);
// on one processor it costs nothing. The schedule:
//   1. upward rank: rank(i) = mean_p w(i, p) + max over successors j of (mean_c(i, j) + rank(j)),
//      with mean_c the transfer time averaged over the ordered pairs of distinct processors;
//   2. tasks in decreasing rank (ties, to 9 significant digits, by topological position),
//      each on the processor giving its earliest finish time, inserted into the first
//      idle slot that fits after its data arrives (insertion-based policy).
// Two extensions serve graphs of ML models, both off by default:
//   - colocation groups: the tasks of a group share a processor, the one chosen (by
//     earliest finish time) for the first member scheduled;
//   - deferred tasks: an entry task that costs nothing anywhere (a graph input or a
//     parameter) is not placed by itself (every processor would tie at time 0); it goes
//     to the processor of its group, or else of its first scheduled consumer, which
//     sees its data as local. Deferred tasks nobody consumes go to processor 0.
// Zero-cost tasks occupy no processor time. Idle slots are kept in a balanced search
// tree per processor, so scheduling n tasks with e edges on p processors costs
// O((n + e) p + n p log n).
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"

namespace graphopt {

struct HeftEdge {
  int32_t from = 0;
  int32_t to = 0;
  double data = 0;      // volume moved when the endpoints are on different processors
  double messages = 1;  // number of transfers (each pays the link latency once)
};

struct HeftProblem {
  int num_tasks = 0;
  int num_procs = 0;
  std::vector<double> cost;  // num_tasks x num_procs, row major: cost[task * num_procs + proc]
  std::vector<HeftEdge> edges;
  std::vector<double> latency;        // num_procs x num_procs, row = from; diagonal ignored; empty = 0
  std::vector<double> time_per_unit;  // num_procs x num_procs, row = from; diagonal ignored; empty = 1
  std::vector<int32_t> group;         // per task, -1 for none; empty = no groups
  std::vector<uint8_t> deferred;      // per task; empty = none deferred

  double Cost(int task, int proc) const {
    return cost[static_cast<size_t>(task) * static_cast<size_t>(num_procs) + static_cast<size_t>(proc)];
  }
  // Time to move edge e's data from processor a to b (0 if a == b).
  double CommTime(const HeftEdge& e, int a, int b) const;
};

struct HeftSchedule {
  std::vector<double> rank;    // upward rank per task
  std::vector<int32_t> order;  // tasks in scheduling order (decreasing rank)
  std::vector<int32_t> proc;   // processor per task
  std::vector<double> start;   // start time per task
  std::vector<double> finish;  // finish time per task
  double makespan = 0;         // latest finish
};

// Checks sizes, ranges, non-negative finite costs and data, acyclicity, and that
// deferred tasks are entry tasks of zero cost. The error names the task or edge.
Status ValidateHeftProblem(const HeftProblem& problem);
// Upward ranks of a valid problem.
std::vector<double> HeftUpwardRanks(const HeftProblem& problem);
// The HEFT schedule of the problem; fails if the problem is invalid.
StatusOr<HeftSchedule> ScheduleHeft(const HeftProblem& problem);

// HEFT on a graph (the problem HeftPlan solves, see scheduling.cc): tasks are ops,
// processors the cluster's accelerators (or its first device if it has none), listed
// in *devices; schedule.proc indexes *devices. The schedule's makespan is HEFT's own
// estimate (no link contention), not the simulator's step time.
StatusOr<HeftSchedule> ScheduleGraphHeft(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                         std::vector<DeviceId>* devices);

}  // namespace graphopt
