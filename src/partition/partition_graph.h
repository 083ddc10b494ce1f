// k-way partitions of an op graph with METIS and Scotch: balanced in a per-op
// weight, cutting as few tensor bytes as possible. Used by the partitioner
// baselines (baselines/partition.cc, one part per device) and by the policy's
// decision units (policy/units.h, many small parts).
//
// The partition graph is undirected. Every colocation group is contracted into one
// vertex (so no group is ever split) and every op outside a group is a vertex of its
// own, vertices numbered in order of their lowest op id. A vertex weighs the summed
// weight of its ops, at least 1 (free ops alone weigh 1). Two vertices are joined by
// an edge when a tensor produced in one is consumed in the other; its weight is the
// bytes of those tensors (a tensor counts once per consuming vertex, parallel edges
// are merged, self loops dropped), at least 1. Weights are scaled down, if need be,
// so that their totals fit the libraries' 32-bit integers.
//
// METIS: METIS_PartGraphKway with its default options (edge-cut objective, 3%
// imbalance) and METIS_OPTION_SEED from the seed; what it prints is discarded. METIS seeds and draws from the C
// library's global rand(), so calls are reproducible when made one at a time (not
// when another thread draws from rand() meanwhile). Scotch: SCOTCH_graphPart with
// the default mapping strategy built for k parts and the same 3% imbalance, run in a
// private single-threaded context whose random generator is seeded from the seed:
// the result depends on the inputs and the seed only.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace graphopt {

// The undirected, contracted op graph in compressed sparse rows.
struct PartitionGraph {
  std::vector<int32_t> vertex_of_op;
  std::vector<int64_t> vertex_weight;
  std::vector<int64_t> offsets;  // neighbours of v: neighbours[offsets[v] .. offsets[v+1])
  std::vector<int32_t> neighbours;
  std::vector<int64_t> edge_weight;
  int num_vertices() const { return static_cast<int>(vertex_weight.size()); }
};

// op_weight: one non-negative weight per op (e.g. its run time in ns).
PartitionGraph BuildPartitionGraph(const Graph& graph, const std::vector<double>& op_weight);

// Part of every vertex, in [0, k). 2 <= k < num_vertices.
StatusOr<std::vector<int>> MetisPartition(const PartitionGraph& pg, int k, uint64_t seed);
StatusOr<std::vector<int>> ScotchPartition(const PartitionGraph& pg, int k, uint64_t seed);

}  // namespace graphopt
