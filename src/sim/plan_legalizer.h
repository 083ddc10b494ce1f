// PlanLegalizer: makes raw plans legal (sim/plan.h's rules, sim/fusion_rules.h's
// kernels) fast, for the trainers
// and the local search that legalize every plan they build.
//
// The rules read the graph op by op (kinds, fusion producers, input producers,
// colocation groups); on a graph of tens of thousands of ops, chasing them through
// Graph's op and tensor records costs about as much per plan as simulating the plan
// (docs/experiments/2026-11-23-coherent-scheduling-cheaper-steps.md, "Follow-ups").
// The legalizer copies what the rules need into flat arrays
// once per graph, and keeps its working memory per thread.
//
//   PlanLegalizer legalizer(graph);           // once per graph (O(ops + edges))
//   legalizer.MakeValid(cluster, &plan);      // per plan: same result as MakePlanValid
//
// Every method gives exactly the result of the free function of sim/plan.h with the
// same name; those are written on top of a legalizer built for the call. Thread-safe
// (const methods, per-thread scratch). The graph must outlive the legalizer and not
// change.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/fusion_rules.h"
#include "sim/plan.h"

namespace graphopt {

class PlanLegalizer {
 public:
  explicit PlanLegalizer(const Graph& graph);

  const Graph& graph() const { return *graph_; }

  // sim/plan.h RespectColocation, DropIllegalFusions and MakePlanValid.
  void RespectColocation(Plan* plan) const;
  int DropIllegalFusions(Plan* plan) const;
  // DropIllegalFusions' first phase: clears the flags the kind, producer, device and
  // kernel rules forbid (each op after its fusion producer, joining only a kernel it
  // keeps legal; first joins win), leaving the cycles. Returns the flags cleared.
  int DropRuleBreakingFusions(Plan* plan) const;
  void MakeValid(const Cluster& cluster, Plan* plan) const;

  // The flagged ops (those with a fusion producer) whose fused groups lie on a cycle
  // of the group graph: a path that leaves a group and comes back into it. Groups
  // follow the flags wherever the op has a fusion producer, whatever its kind;
  // dependencies into free ops are not edges (free ops wait for nothing).
  std::vector<OpId> FusedOpsOnCycles(const std::vector<uint8_t>& fuse) const;

 private:
  struct CycleScratch;
  // The groups of the flags and their cycles, in this thread's scratch; with `active`
  // (one flag per op), among the active ops alone (the others single groups on no cycle).
  const CycleScratch& FindCycles(const std::vector<uint8_t>& fuse, const std::vector<uint8_t>* active = nullptr) const;

  const Graph* graph_;
  int n_ = 0;
  FusionRules rules_;
  std::vector<OpId> fusion_producer_;   // FusionProducer per op
  std::vector<uint8_t> can_fuse_kind_;  // CanFuseKind per op
  std::vector<int32_t> colocation_;     // colocation group per op, kNoId if none
  // Producers of the inputs of every non-free op, in compressed rows (edges into
  // free ops are left out, as the group graph leaves them out).
  std::vector<int32_t> in_begin_;
  std::vector<OpId> in_producer_;
};

}  // namespace graphopt
