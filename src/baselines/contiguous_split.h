// Optimal contiguous splits: the best assignment of consecutive blocks of a linear
// order of the graph to the accelerators, by dynamic programming over prefix sums, in
// the spirit of "Efficient Algorithms for Device Placement of DNN Graph Operators"
// (NeurIPS 2020). Exact within the model below (tests/baselines/contiguous_split_test.cc
// checks it against brute force).
//
// The linear order (ContiguousSplitUnits). The units are the graph's layers when it has
// at least two layer tags (Op::layer, in Graph::layer_names order, the model order the
// expert placement also splits): a layer is what a person would cut between, and the
// builders tag gradient ops with their forward op's layer and update ops with their
// variable's, so a layer's forward, backward and update work stay together. Without
// layers (imported graphs), the units are runs of the topological order of the forward
// ops, at most kMaxSplitUnits of about equal time on the first accelerator (the DP is
// quadratic in the units); a backward or update op goes with its forward op
// (Op::forward_op). Ops still without a unit take a neighbour's (FillFromNeighbours),
// and a colocation group takes the unit of its lowest-id op, so the plan keeps groups
// whole and is the split the model scored.
//
// The model (SplitProblem). The units in order are cut into K blocks, K = the number
// of accelerators; block k (possibly empty) runs on accelerator k, in the cluster's
// order (a pipeline; no search over device permutations). A block's cost on its device
// is its units' compute (CostModel::OpTimeUs on that device, 0 for instant ops) plus
// its incoming transfers: every tensor produced outside the block and read inside it
// is moved into it once (forward activations from earlier blocks, gradients from later
// ones), at latency + bytes x time per byte of the slowest link from another
// accelerator into device k (exact on the presets, whose links are uniform; an upper
// bound where links differ, since the DP cannot know the producer's block). A block's
// memory is its units' resident bytes (OpResidentBytes: parameters, optimizer state)
// plus an activation estimate, the outputs of its forward ops (kept for the backward
// pass in a step without microbatches; backward temporaries are not counted), plus the
// copies of its incoming tensors; it fits if that is at most the device's memory.
//
// The objective. kSum (the planner "contiguous-split"): the sum of the blocks' costs,
// the time of one training step of the simulator without microbatches when the
// linear order is a chain: the forward pass runs blocks 1..K, the backward K..1, and
// one device waits while another computes. It is an upper bound where the graph has
// parallel branches across blocks (they overlap in the simulator, the model ignores
// it), so it splits only as far as memory forces or transfers are cheap. kMax (the
// planner "contiguous-split-max"): the largest block cost, the balanced partition of a
// pipelined steady state, and of graphs whose blocks overlap in one step (the layers
// of an unrolled RNN run as a wavefront over the time steps). Both are solved exactly.
//
// The DP. best[k][b] = the best split of units [0, b) over devices 0..k, from
// best[k-1][a] and block [a, b) on device k: O(n^2 K) after O(n (n + E)) tables of
// the incoming bytes and tensor counts of every block (E: unit-level tensor reads).
// Splits are compared by (total memory overflow, cost) lexicographically, which both
// objectives respect block by block, so one DP gives the best split that fits when one
// does and the least overflowing one (then the cheapest) when none does; fits = false
// says which. Ties go to the latest cut (earlier devices take what they can: with room
// and alike devices, kSum is the single-device plan), so the result is deterministic.
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"
#include "sim/plan.h"

namespace graphopt {

enum class SplitObjective : uint8_t { kSum, kMax };

// At most this many units when the order comes from the topological order.
inline constexpr int kMaxSplitUnits = 256;

// A tensor at unit level: made in `producer`, read in `consumers` (distinct units,
// none the producer).
struct SplitTensor {
  int32_t producer = 0;
  std::vector<int32_t> consumers;
  int64_t bytes = 0;
};

struct SplitProblem {
  int num_units = 0;
  int num_devices = 0;
  std::vector<double> compute;  // num_units x num_devices, row major, us
  std::vector<int64_t> memory;  // per unit, bytes (resident + activations)
  std::vector<SplitTensor> tensors;
  std::vector<double> latency;        // per destination device, us per tensor moved in
  std::vector<double> time_per_byte;  // per destination device, us per byte moved in
  std::vector<int64_t> capacity;      // per device, bytes

  double Compute(int unit, int device) const {
    return compute[static_cast<size_t>(unit) * static_cast<size_t>(num_devices) + static_cast<size_t>(device)];
  }
};

// A split: block k is units [bounds[k], bounds[k + 1]), bounds[0] = 0, bounds[K] = n.
struct ContiguousSplit {
  std::vector<int32_t> bounds;
  std::vector<double> block_cost;     // per block, us
  std::vector<int64_t> block_memory;  // per block, bytes
  double cost = 0;                    // the objective: sum or max of block_cost
  int64_t overflow_bytes = 0;         // sum over blocks of memory beyond capacity
  bool fits = true;                   // overflow_bytes == 0
};

// Checks sizes, unit ranges, distinct consumers other than the producer, and finite,
// non-negative costs, bytes and capacities. The error names the unit or tensor.
Status ValidateSplitProblem(const SplitProblem& problem);
// The costs of a given split, computed from the tensors directly (not the DP's tables).
// Fails on an invalid problem or bounds that are not K + 1 non-decreasing cuts of [0, n].
StatusOr<ContiguousSplit> EvaluateSplit(const SplitProblem& problem, const std::vector<int32_t>& bounds,
                                        SplitObjective objective);
// The optimal split of the model (see above): the best that fits, or, when none fits,
// the least overflowing (fits = false). With require_fit, that case is instead a
// kOutOfMemory status saying by how much the least overflowing split passes.
StatusOr<ContiguousSplit> SolveContiguousSplit(const SplitProblem& problem, SplitObjective objective,
                                               bool require_fit = false);

// The linear order of a graph: the unit of every op (0..num_units-1, in order).
struct SplitUnits {
  std::vector<int32_t> op_unit;
  int num_units = 0;
  bool by_layer = false;  // layers (true) or runs of the topological order
};
StatusOr<SplitUnits> ContiguousSplitUnits(const Graph& graph, const Cluster& cluster, const CostModel& cost_model);
// The model of placing those units on the cluster's accelerators (or its first device
// if it has none), listed in *devices in pipeline order.
StatusOr<SplitProblem> SplitProblemFromGraph(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                             const SplitUnits& units, std::vector<DeviceId>* devices);
// The optimal split of the graph as a plan: ready order (priority 0), no fusion. A split
// that does not fit is logged as a warning and still returned (the least overflowing).
StatusOr<Plan> ContiguousSplitPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                   SplitObjective objective);

}  // namespace graphopt
