// Balanced contiguous stages: the linear-partition helper of the expert placements.
//
// A sequence of items (layers of a CNN, ops of a graph in topological order) with a
// cost each is cut into k contiguous stages, one per device. The split minimizes the
// cost of the most expensive stage (the bottleneck of a pipeline of stages); among
// the splits that reach that bottleneck it takes the most equal one (smallest sum
// of squared stage costs). Sequences up to kExactStageItems items are split exactly
// by dynamic programming; longer ones (fine-grained op sequences) by a binary search
// on the bottleneck and a greedy left-to-right packing, which reaches the smallest
// bottleneck (to a relative 1e-9) but may leave the last stages lighter.
#pragma once

#include <vector>

namespace graphopt {

// Longest sequence split by the exact dynamic program (O(k n^2) time).
inline constexpr int kExactStageItems = 1024;

// Stage (0..num_stages-1) of each item, non-decreasing along the sequence. Costs
// must be non-negative; if they are all zero, every item counts as cost 1. With at
// least num_stages items every stage is non-empty; with fewer, item i is stage i.
// num_stages must be at least 1.
std::vector<int> BalancedContiguousStages(const std::vector<double>& costs, int num_stages);

// The stage of item `index` of `count` items split evenly by count into num_stages
// stages: floor(index * num_stages / count).
int EvenStage(int index, int count, int num_stages);

}  // namespace graphopt
