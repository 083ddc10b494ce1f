// The memory-constrained list placers of "Baechi: Fast Device Placement of Machine
// Learning Graphs" (SoCC 2020): m-TOPO, m-ETF and m-SCT, on an abstract task graph
// and on a Graph.
//
// A BaechiProblem is a DAG of tasks that read and write tensors, a set of
// processors with a memory capacity each, the computation cost of every task on
// every processor, and the memory every task keeps (resident: parameters and
// optimizer state, all step) and every tensor holds while it is live. Moving a
// tensor from processor a to b costs latency(a, b) + bytes x time_per_byte(a, b)
// (the paper's communication model: a linear function of the size per tensor);
// each processor has one channel that its sends and its receives share, so
// transfers in and out of one processor run one after another, and a tensor is sent
// to a processor once (later readers there use the copy).
//
//   m-TOPO  the tasks in a topological order (breadth first, as the paper's code
//           numbers them), filled onto the processors in turn: each gets tasks until
//           its memory reaches total / processors + the largest unit (the paper's
//           uniform share of the memory), or its capacity. Memory is counted
//           statically: every tensor of a task placed counts as if live all step;
//           if that count fits no placement, the share alone decides (as the
//           paper's code, which checks no capacity) and fits is false.
//   m-ETF   earliest-time-first list scheduling: time advances from event to event;
//           at each time, among the processors that are idle, the ready task and
//           processor of the earliest start time (ties: topological position, then
//           processor) is scheduled, only on processors where the task's memory
//           (its outputs, the copies of its inputs and, for the first task of a
//           colocation group, the whole group's resident memory) fits in what is
//           free at that time. Memory is counted by liveness in the planner's own
//           schedule: a tensor is live from its producer's start to the end of its
//           last reader on that processor (copies: from their transfer).
//   m-SCT   m-ETF with favourite children (small communication times): a task's
//           favourite child is the successor joined to it by an edge that the LP
//           relaxation of the scheduling problem (minimise the makespan w subject to
//           s_i + p_i + c_ij x_ij <= s_j, s_i + p_i <= w, x in [0, 1], at most one
//           x_ij below 1 out of every task and into every task) puts below the
//           threshold (x < threshold; the paper's code uses 0.1). A processor that
//           just ran a task whose favourite child is ready and starts there as early
//           as anywhere waits for it, unless an urgent task (one whose latest start
//           over the processors has come) can run. The LP is solved with COIN-OR CLP;
//           if it fails or passes its time limit, each task's favourite child is the
//           successor of the largest communication cost not already taken (a greedy
//           rule: BaechiSchedule::lp_solved says which).
//
// Colocation groups are placed as one: the group's processor is the one chosen for
// its first member scheduled, and its whole resident memory is reserved there.
// Deferred tasks (entry tasks that cost nothing: inputs, parameters) are not
// scheduled by themselves: each goes to the processor of its group if that is
// decided, else of its first scheduled consumer (so a parameter sits with the op
// that first reads it and its update op follows); deferred tasks nobody reads go to
// their group's processor or processor 0.
//
// When no processor has room for a task (m-ETF/m-SCT: none will have, even after
// the tensors in use are freed), the task goes to the processor it overflows least,
// and the schedule says it does not fit (fits = false): the placers always return a
// complete placement. The list placers count memory in their own schedule; the
// simulator runs the ops in ready order and sends tensors as soon as they are made,
// so its peak can pass the placers' count (by up to 31% on one GPU of a random
// 300-op training graph given 40-60% of its single-GPU peak per GPU: docs/baselines.md).
// Two extensions serve the modes of baselines/baechi_modes.h: routes (transfers
// that contend for the links and ports they cross, instead of one channel per
// processor) and pinned tasks (the estimate of a given placement). Left out of the
// paper: its "reserve memory" variant and the non-uniform m-TOPO.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {

enum class BaechiMethod : uint8_t { kTopo, kEtf, kSct };
const char* BaechiMethodName(BaechiMethod method);  // "m-topo", "m-etf", "m-sct"

struct BaechiTensor {
  int32_t producer = 0;
  int64_t bytes = 0;               // moved when read on another processor (a copy there holds as much)
  int64_t memory = 0;              // held on the producer's processor while live (0: an alias, or resident)
  std::vector<int32_t> consumers;  // distinct tasks that wait for it
};

struct BaechiProblem {
  int num_tasks = 0;
  int num_procs = 0;
  std::vector<double> cost;  // num_tasks x num_procs, row major, us
  std::vector<BaechiTensor> tensors;
  std::vector<double> latency;        // num_procs x num_procs, row = from, us per tensor; empty = 0
  std::vector<double> time_per_byte;  // num_procs x num_procs, row = from, us per byte; empty = 1
  std::vector<int64_t> capacity;      // per processor, bytes; empty = unlimited
  std::vector<int64_t> resident;      // per task, bytes kept all step; empty = 0
  std::vector<int32_t> group;         // per task, -1 for none; empty = no groups
  std::vector<uint8_t> deferred;      // per task; empty = none deferred
  // The variant that sees the cluster's ports: per ordered pair of processors (row =
  // from), the resources (ids >= 0: its link, the ports it crosses) a transfer from a
  // to b holds for its whole duration; a resource carries one transfer at a time, as
  // in the simulator. Empty = Baechi's model (one channel per processor).
  std::vector<std::vector<int32_t>> route;
  std::vector<int32_t> pinned;  // per task, the only processor it may run on, -1 for any; empty = none

  double Cost(int task, int proc) const {
    return cost[static_cast<size_t>(task) * static_cast<size_t>(num_procs) + static_cast<size_t>(proc)];
  }
  // Time to move `bytes` as one tensor from a to b (0 if a == b).
  double TransferTime(int64_t bytes, int a, int b) const;
};

struct BaechiOptions {
  double sct_threshold = 0.1;   // m-SCT: an LP edge value below it makes a favourite child
  double lp_time_limit_s = 60;  // m-SCT: CLP's limit; past it, the greedy favourite children
};

struct BaechiSchedule {
  std::vector<int32_t> proc;         // processor per task
  std::vector<double> start;         // per task (m-TOPO: 0; deferred tasks: 0)
  std::vector<double> finish;        // per task
  double makespan = 0;               // the planner's own estimate (m-TOPO: 0, it does not schedule)
  std::vector<int64_t> peak_memory;  // per processor, the planner's own count
  bool fits = true;                  // no placement went beyond a capacity
  std::vector<int32_t> favourite;    // m-SCT: favourite child per task, -1 for none
  bool lp_solved = false;            // m-SCT: the favourite children come from the LP
};

// Checks sizes, ranges, non-negative finite costs, acyclicity, that deferred
// tasks are entry tasks of zero cost, and that the pins of a group agree. The error
// names the task or tensor.
Status ValidateBaechiProblem(const BaechiProblem& problem);
// The favourite child of every task (-1 for none) from the LP relaxation, or from
// the greedy rule if the LP fails; *lp_solved says which (may be null).
std::vector<int32_t> BaechiFavouriteChildren(const BaechiProblem& problem, const BaechiOptions& options,
                                             bool* lp_solved);
// The schedule of a valid problem by the method; fails if the problem is invalid.
StatusOr<BaechiSchedule> ScheduleBaechi(const BaechiProblem& problem, BaechiMethod method,
                                        const BaechiOptions& options = {});

// The problem of placing a graph (baechi.cc): tasks are ops, processors the
// cluster's accelerators (or its first device if it has none), listed in *devices.
// An op costs CostModel::OpTimeUs (0 if instant); its resident bytes are
// OpResidentBytes; its output tensors hold their bytes while live (a Variable's:
// nothing, it is resident); a tensor waits for its readers that are not free ops.
// Transfers cost the link's latency + bytes / PathBandwidth; capacities are the
// devices' memory. Ops that cost nothing and wait for nothing are deferred.
StatusOr<BaechiProblem> BaechiProblemFromGraph(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                               std::vector<DeviceId>* devices);
// The placement of the method on the accelerators, ready order (priority 0), no
// fusion. A placement that does not fit in memory is logged and still returned.
StatusOr<Plan> BaechiPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model, BaechiMethod method,
                          const BaechiOptions& options = {});

}  // namespace graphopt
