// Greedy producer-consumer fusion (baselines/fusion.cc says how it works) for the many
// plans of one graph: what depends on the graph alone (its adjacency and topological
// order, the fusion rules, which ops may join their fusion producer) is built once,
// and Apply fuses one plan on its devices. baselines/baseline.h ApplyGreedyFusion,
// ApplyGreedyFusionOfKinds and ApplyDefaultFusion are one Apply of a fusion made for
// the call.
#pragma once

#include <functional>
#include <vector>

#include "graph/graph.h"
#include "sim/fusion_rules.h"
#include "sim/plan.h"

namespace graphopt {

class GreedyFusion {
 public:
  // Fuses the ops whose kind `fusible` accepts (on top of CanFuseKind). The graph must
  // outlive the fusion.
  GreedyFusion(const Graph& graph, const std::function<bool(OpKind)>& fusible);
  // TensorFlow's default fusion: elementwise ops alone (ApplyDefaultFusion's).
  static GreedyFusion Default(const Graph& graph);

  // Clears the plan's fusion flags and fuses greedily on its devices (the plan
  // completed first, sim/plan.h CompletePlan; it must be valid otherwise). Returns
  // the number of ops fused. Const and thread-safe.
  int Apply(Plan* plan) const;

  const Graph& graph() const { return *graph_; }

 private:
  friend class GreedyFuser;
  const Graph* graph_;
  Adjacency adj_;
  FusionRules rules_;
  std::vector<OpId> topo_;                // a topological order of the ops
  std::vector<OpId> producer_;            // per op: its fusion producer if it may join it, else kNoId
  std::vector<uint8_t> free_;             // per op: a free op (graph/op_kind.h IsFree)
  std::vector<FusionGroupSummary> start_;  // per op: the summary of a group of it alone
};

}  // namespace graphopt
