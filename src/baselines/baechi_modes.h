// The modes of the Baechi placers (baselines/baechi.h) as the published code of
// "Baechi: Fast Device Placement of Machine Learning Graphs" (SoCC 2020) runs them,
// a variant that sees graphopt's ports, and the best of them by the placers' own
// estimate.
//
//   forward   Baechi's forward-graph mode (its --only_forward with gradients
//             colocated with their ops): the forward ops alone are placed, and every
//             backward and update op goes with the forward op it comes from
//             (Op::forward_op, followed to a forward op). Unlike Baechi's code, which
//             profiles the forward pass only, a forward task is charged the cost and
//             resident bytes of the ops that follow it, so the list scheduler sees the
//             whole step's work; the ops that follow a deferred op (a parameter: its
//             update, its gradient's sum) are timed on its first forward reader, where
//             the parameter goes, and their memory stays with it. A forward tensor
//             that a backward op reads (a saved activation) is held by its producer all
//             step. Only forward tensors are edges. A non-forward op with no forward op
//             to follow goes with its first producer's task (or, with none, is a task
//             of its own).
//   coplace   Baechi's co-placement grouper and operator fusion (its --grouper=coplace
//             --placer_type=fusion): a task whose output goes to one task only joins that
//             task's group (to a fixed point, on top of the colocation groups); then,
//             group by group, two tasks of a group joined by an edge are fused into one
//             (costs and resident bytes summed, the tensors between them no longer
//             held) unless the first has other successors and the second other
//             predecessors (the fusion could close a cycle), as Baechi's FusedOpPlacer.
//   ports     the transfers hold the link and every port they cross (the cluster's
//             ports and switches, sim/cluster.h) for their whole duration, one transfer
//             at a time per link and per port, instead of Baechi's one channel per
//             device shared by its sends and receives.
//
// The estimate of a plan (BaechiEstimate) is the placers' own list schedule of the
// whole training graph with every op pinned to its device, transfers routed over the
// ports, memory not limited: the step time the best-of compares. It is not the
// simulator (a baseline never sees a simulated result): it runs each device's ready
// ops earliest start first and knows no fusion or launch overheads. Its peak memory
// per device (liveness in that schedule) says whether a plan fits.
#pragma once

#include <string>
#include <vector>

#include "baselines/baechi.h"

namespace graphopt {

struct BaechiVariant {
  BaechiMethod method = BaechiMethod::kEtf;
  bool forward = false;  // place the forward graph; the other ops follow their forward op
  bool coplace = false;  // co-placement groups and fusion of grouped neighbours
  bool ports = false;    // transfers contend for links and ports (else Baechi's channels)
};
// "m-etf", "m-sct-fwd", "m-etf-fwd-coplace-ports", ...
std::string BaechiVariantName(const BaechiVariant& variant);
// The variants the best-of runs: m-ETF and m-SCT x whole / forward x co-placement off /
// on x Baechi's channels / the ports (16).
std::vector<BaechiVariant> BaechiAllVariants();

struct BaechiVariantResult {
  BaechiVariant variant;
  Plan plan;
  double estimate_us = 0;            // BaechiEstimate of the plan
  std::vector<int64_t> peak_memory;  // per accelerator, in the estimate's schedule
  bool fits = true;                  // that peak within every device's memory
  double makespan_us = 0;            // the placer's own makespan of the problem it placed
  int num_tasks = 0;                 // tasks of that problem
  bool lp_solved = false;            // m-SCT: the favourite children came from the LP
  double seconds = 0;                // time to place (not counting the estimate)
};

// The forward problem of a graph from its whole problem (BaechiProblemFromGraph of
// the same graph); (*task_of_op)[o] is the task op o goes with.
StatusOr<BaechiProblem> BaechiForwardProblem(const Graph& graph, const BaechiProblem& whole,
                                             std::vector<int32_t>* task_of_op);
// Co-placement: joins the group of every task that has one successor with the
// successor's (tasks left alone keep their group or none).
void BaechiCoplace(BaechiProblem* problem);
// Fusion of the grouped neighbours of a valid problem; (*fused_of_task)[v] is the
// fused task of task v.
BaechiProblem BaechiFuse(const BaechiProblem& problem, std::vector<int32_t>* fused_of_task);
// Routes each pair of the processors `devices` of the cluster over its link (resource
// a * procs + b) and its ports (procs^2 + the port's index).
void SetBaechiPortRoutes(const Cluster& cluster, const std::vector<DeviceId>& devices, BaechiProblem* problem);
// The list schedule of a valid problem with task v pinned to proc[v] (every task),
// capacities and groups dropped (m-ETF's rule among the ready tasks of each processor).
StatusOr<BaechiSchedule> BaechiEstimate(const BaechiProblem& problem, const std::vector<int32_t>& proc);

// One variant's plan of a graph, with its estimate.
StatusOr<BaechiVariantResult> BaechiPlanVariant(const Graph& graph, const Cluster& cluster,
                                                const CostModel& cost_model, const BaechiVariant& variant,
                                                const BaechiOptions& options = {});
// The variants' plans (each m-SCT LP solved once for both communication models), in
// the order given.
StatusOr<std::vector<BaechiVariantResult>> BaechiPlanVariants(const Graph& graph, const Cluster& cluster,
                                                              const CostModel& cost_model,
                                                              const std::vector<BaechiVariant>& variants,
                                                              const BaechiOptions& options = {});
// Index of the best result: the lowest estimate among those that fit, else the
// lowest estimate (ties: the first).
int BaechiBestIndex(const std::vector<BaechiVariantResult>& results);
// The best of BaechiAllVariants by the estimate (logged with every variant's).
StatusOr<BaechiVariantResult> BaechiBestPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                             const BaechiOptions& options = {});

}  // namespace graphopt
