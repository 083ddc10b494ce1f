// The graph the plan and cluster targets read their inputs against: a small
// built-in training graph (143 ops: convolutions, gated units, fusable elementwise
// ops, parameters with their updates in colocation groups). scripts/fuzz.sh reads
// kFuzzModel from this file to write the plan seeds with `graphopt baseline`.
#pragma once

#include "core/status.h"
#include "graph/graph.h"
#include "models/load.h"

namespace graphopt {

inline constexpr const char* kFuzzModel = "wavenet:stacks=1,layers=2,batch=1,length=16,channels=4,skip=4,quantization=8";

// Built once; aborts if the built-in does not build (a bug, not an input).
inline const Graph& FuzzModel() {
  static const Graph* graph = [] {
    StatusOr<Graph> g = LoadModel(kFuzzModel);
    GO_CHECK_MSG(g.ok(), g.status().message());
    return new Graph(std::move(*g));
  }();
  return *graph;
}

}  // namespace graphopt
