// Placement and order as one exact program (a mixed-integer linear program in the
// manner of Pesto, 2021), on a coarsened graph, solved by COIN-OR CBC under a time
// limit.
//
// The model, on a BaechiProblem (baselines/baechi.h) whose tasks are the groups of the
// coarsened graph: every task runs without interruption on one processor, one task at
// a time per processor, after each predecessor ends and, if the predecessor is on
// another processor a, after its tensors have moved to this one b (latency(a, b) +
// bytes x time_per_byte(a, b) per tensor, as BaechiProblem::TransferTime; transfers do
// not contend with each other); the makespan is minimised. Tasks of one colocation
// group share a processor. Memory is counted statically: a processor holds the
// resident bytes of its tasks and every tensor its tasks produce (after coarsening, the
// tensors that leave their group: in a training step most of them are activations kept
// for the backward pass); it must fit the processor's capacity.
//
// Variables: x[c][d] (colocation class c on processor d, binary), s[i] (start), C (the
// makespan), and for every pair of tasks that no path orders, o[ij] (i first, binary)
// and q[ij] (same processor, in [0, 1], forced to 1 by q >= x[ci][d] + x[cj][d] - 1).
// With p_i = sum_d cost(i, d) x[ci][d] and H an upper bound on C:
//   s_j >= s_i + p_i                                     every edge i -> j
//   s_j >= s_i + p_i + T_ab (x[ci][a] + sum_{b in B} x[cj][b] - 1)
//                                                        every edge, processor a and set
//                                                        B of processors b != a with one
//                                                        transfer time T_ab
//   s_j >= s_i + p_i - H (1 - o) - H (1 - q),  s_i >= s_j + p_j - H o - H (1 - q)
//   C >= s_i + p_i,  C >= sum_i cost(i, d) x[ci][d]      (every processor's load)
//   sum_d x[c][d] = 1,  sum_c memory(c) x[c][d] <= capacity(d)
// If the processors are interchangeable (equal costs, capacities and transfer times),
// class c may use only processors 0..c (a symmetry cut that keeps an optimum).
// CBC starts from the best of the warm starts given (each a placement, scheduled by
// the model's own earliest-start list rule) and H is that start's makespan. It stops at
// the time limit or the node limit and reports its best schedule, the proven lower
// bound and the gap; a gap of zero is a certificate that no schedule of the model is
// shorter. Without a time limit hit, the same problem gives the same schedule.
//
// Coarsening (CoarsenForMilp): the tasks are sorted by (earliest start with their
// cheapest costs and no transfers, topological position) and cut into bands of equal
// cheapest work; a task joins the latest group of its (band, label) unless one of its
// predecessors sits in a later group, else it opens a new group. Every edge then goes
// from a group to the same or a later one, so the coarsened graph is acyclic. The
// number of bands is the largest that keeps at most max_groups groups. Labels are the
// caller's, finest first (MilpPlan: the layers, then runs of consecutive layers, then
// the m-ETF placement's processor); the first set that fits max_groups in one band is
// used, and without labels one band is one group. A deferred task (a parameter, an input) goes to the
// earliest group of its readers (so the coarsened graph stays acyclic), else to its
// colocation group's, else to the first group.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "baselines/baechi.h"
#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {

struct MilpOptions {
  int max_groups = 64;       // coarsening: at most this many groups
  double time_limit_s = 60;  // CBC's limit (0: none)
  int64_t max_nodes = 0;     // CBC's branch-and-bound nodes (0: no limit)
};

struct MilpCoarsening {
  BaechiProblem problem;               // one task per group
  std::vector<int32_t> group_of_task;  // per task of the original problem
  int num_bands = 0;
  int label_set = 0;  // the label set used (label_sets.size(): none)
};
// Label sets finest first, each one label per task; the first that keeps within
// max_groups with one band is used, else none. Fails if the problem is invalid or a
// label set has the wrong size.
StatusOr<MilpCoarsening> CoarsenForMilp(const BaechiProblem& problem,
                                        const std::vector<std::vector<int32_t>>& label_sets, int max_groups);

struct MilpSchedule {
  std::vector<int32_t> proc;  // per task
  std::vector<double> start;  // per task
  double makespan_us = 0;     // within the model
  bool fits = false;          // within every capacity by the model's count
};
// The model's static memory per task: resident bytes plus the memory of its tensors.
std::vector<int64_t> MilpTaskMemory(const BaechiProblem& problem);
// The model's schedule of a placement: earliest start first among the ready tasks
// (ties: topological position), each on its processor. Fails on an invalid problem or
// a placement of the wrong size or out of range.
StatusOr<MilpSchedule> MilpScheduleOf(const BaechiProblem& problem, const std::vector<int32_t>& proc);

struct MilpResult {
  MilpSchedule schedule;     // the best found (fits false: none within memory found)
  double lower_bound_us = 0;  // no schedule of the model is shorter
  double gap = 0;             // (makespan - bound) / makespan
  bool optimal = false;       // proved: no schedule of the model is shorter
  bool limit_reached = false;  // stopped by the time or node limit
  bool infeasible = false;     // proved: no placement fits the capacities
  std::string source;          // "cbc", or the warm start kept ("start 0", ...)
  int64_t nodes = 0;
  int num_columns = 0, num_rows = 0;
  double seconds = 0;
};
// Solves the model of a valid problem from the warm-start placements (each one
// processor per task; none fitting: CBC starts from nothing).
StatusOr<MilpResult> SolveMilp(const BaechiProblem& problem, const std::vector<std::vector<int32_t>>& starts,
                               const MilpOptions& options);

struct MilpPlanResult {
  Plan plan;
  MilpResult result;
  int num_groups = 0;
  int num_bands = 0;
};
// The graph's problem (BaechiProblemFromGraph), coarsened with the labels above, solved
// from the placements of m-ETF, the expert and contiguous-split-max (each group where
// most of its ops' cost is) and from every group on each single processor. The plan
// places each op with its group and gives the groups priorities in the order of their
// starts (no fusion). A plan that fits nowhere by the model's count is logged and still
// returned (the least overflowing start's).
StatusOr<MilpPlanResult> MilpPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                  const MilpOptions& options = {});

}  // namespace graphopt
