// Plan: the three decisions for every op of a graph, the one thing every policy and
// baseline produces and the simulator consumes.
//
// For op i: device[i] runs it; priority[i] orders it among the kernels ready on that
// device at the same time (higher first; ties go to the kernel that became ready
// first, so all-equal priorities are ready-order execution); fuse_with_producer[i]
// puts it in the fused kernel of its fusion producer.
//
// Fusion representation: a flag per op. The fusion producer of op i is the producer
// of i's first input that is not a free op (source or metadata); see FusionProducer.
// Flagged ops join the group of that producer, transitively, so a group is a tree of
// ops rooted at one unflagged op and runs as one kernel. A fusion is legal when the
// op has a fusion producer on the same device, the kernel it joins is one a compiler
// would emit (sim/fusion_rules.h: the rules of XLA's GPU fusion and TorchInductor's
// scheduler, with their sources: loop fusion over one iteration space, one reduction
// per kernel, contractions with an elementwise epilogue only, updates with same-size
// elementwise ops only), and the groups stay acyclic (no path leaves a group and
// comes back into it).
//
// A plan may leave any of the three vectors empty: the defaults are device 0 (the
// first accelerator of every preset), priority 0 and no fusion. A non-empty vector
// must have one entry per op.
//
// JSON ("graphopt-plan", version 1), arrays indexed by op id:
//   {"format": "graphopt-plan", "version": 1, "graph": "gnmt", "num_ops": 3,
//    "device": [0, 0, 1], "priority": [0, 2.5, 0], "fuse_with_producer": [0, 1, 0]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/fusion_rules.h"

namespace graphopt {

struct Plan {
  std::vector<DeviceId> device;
  std::vector<double> priority;
  std::vector<uint8_t> fuse_with_producer;
};

// Whether an op of this kind may fuse into its producer (kind only).
FusionDecision CanFuseKind(OpKind kind);
// The op a flagged op fuses into: the producer of its first input whose producer is
// not free, or kNoId.
OpId FusionProducer(const Graph& graph, OpId op);
// Plan-independent legality of flagging op: kind and fusion producer.
FusionDecision CanFuseIntoProducer(const Graph& graph, OpId op);

// All ops on `device`, priority 0, no fusion.
Plan DefaultPlan(const Graph& graph, DeviceId device = 0);
// Fills empty vectors with the defaults; fails if a vector has the wrong length.
Status CompletePlan(const Graph& graph, Plan* plan);

// Checks a plan against a graph and a cluster. Every problem found is reported, each
// naming the offending ops (the first few of them): vector lengths, devices out of
// range, non-finite priorities, colocation groups split over devices, illegal
// fusions (kind, no producer, producer on another device, a kernel no compiler
// emits: the rule it breaks, sim/fusion_rules.h) and fused groups that form a cycle.
Status ValidatePlan(const Graph& graph, const Cluster& cluster, const Plan& plan);

// Puts every colocation group on the device of its lowest-id op. Completes the plan
// first (these three abort on vectors of the wrong length: a caller's bug).
void RespectColocation(const Graph& graph, Plan* plan);
// Clears every illegal fusion flag: kind, producer, device and the kernel rules of
// sim/fusion_rules.h (ops visited after their fusion producers, each joining only a
// kernel it keeps legal: the first ops to join win), then cycles of fused groups: the flags where a cycle re-enters a group, round after round until no cycle
// is left (sim/plan_legalizer.cc; groups on no cycle keep every flag). Returns the
// number of flags cleared.
int DropIllegalFusions(const Graph& graph, Plan* plan);
// Clamps out-of-range devices to the first accelerator, respects colocation and
// drops illegal fusions: what a policy's raw output needs before simulation.
// (These three read the graph op by op; to legalize many plans of one graph, build
// a PlanLegalizer (sim/plan_legalizer.h) once: same results, far faster.)
void MakePlanValid(const Graph& graph, const Cluster& cluster, Plan* plan);

// Whether every fused kernel of the plan is one a compiler emits (sim/fusion_rules.h);
// the error names each op that breaks a rule, the rule and its kernel. Fusion flags
// without a producer are ValidatePlan's to report.
Status CheckFusionRules(const Graph& graph, const Plan& plan);

std::string PlanToJson(const Graph& graph, const Plan& plan);
// Parses a plan for `graph`; `source` names the file in errors. The header
// ("format": "graphopt-plan", "version": 1) and "graph" (the graph's name) are
// required; device ids must be integers in [0, 2^31) (the cluster's range is
// checked by ValidatePlan), priorities finite numbers.
StatusOr<Plan> PlanFromJson(const std::string& text, const Graph& graph, const std::string& source);
// Writes the plan atomically; refuses (CheckFusionRules) a plan whose fused kernels
// break a rule, so that no plan file holds a kernel no compiler emits.
Status WritePlanJson(const Graph& graph, const Plan& plan, const std::string& path);
StatusOr<Plan> ReadPlanJson(const std::string& path, const Graph& graph);

}  // namespace graphopt
