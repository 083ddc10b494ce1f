// Structural checks of a Graph and its topological order.
#pragma once

#include <vector>

#include "graph/graph.h"

namespace graphopt {

// Checks that the graph is well formed: op and tensor names unique and non-empty;
// every tensor produced by exactly one op (the one its producer field names) and
// consumed by the ops that list it; ids in range; no cycle; shapes non-negative; the
// shapes of ops whose kinds constrain them consistent (elementwise broadcasting,
// contraction inner dimensions, concat); colocation groups and layer tags in range.
// The error names the op or tensor and the problem.
Status VerifyGraph(const Graph& graph);

// A topological order of the ops (every producer before its consumers). Ties go to
// the lower op id first, so the order is deterministic. Fails naming an op on a
// cycle if there is one.
StatusOr<std::vector<OpId>> TopologicalOrder(const Graph& graph);

}  // namespace graphopt
