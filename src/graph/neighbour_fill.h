// A value per op carried to the ops that have none from their neighbours: the layer an
// untagged op belongs to (policy/units.h), the device slot of an op the expert's rule
// does not place (baselines/expert.cc).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"

namespace graphopt {

// Every op whose value is kNoId takes, walking `order` (a topological order of
// `graph`), the value of its first input's producer that has one; an op still without
// one then takes, walking `order` backwards, the value of its first consumer that has
// one (outputs in order, each's consumers in order). So a value flows down a chain of
// unvalued ops, then up what is left. An op with no valued op on either side keeps
// kNoId. values: one per op.
void FillFromNeighbours(const Graph& graph, const std::vector<OpId>& order, std::vector<int32_t>* values);

}  // namespace graphopt
