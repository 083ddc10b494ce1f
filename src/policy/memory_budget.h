// Memory-budgeted placement: the policy's placement decoded unit by unit under a
// running estimate of each device's memory, so that a plan of a large graph on a
// machine it barely fits does not run out of memory when the policy's most probable
// devices crowd a few accelerators and leave others empty
// (docs/experiments/2026-11-26-zero-shot-memory-budget.md, "Change").
//
// The estimate of a unit on a device: the bytes resident all step (parameters and
// optimizer state, graph.h OpResidentBytes), plus the activations its forward ops
// keep for the backward pass (an output of a forward op that a backward op reads,
// itself or through views that alias it; those views, CostModel::IsInstant, add
// nothing of their own), plus the copies of forward tensors its backward ops read
// from other devices. In the simulator's memory model (sim/simulator.h) those are
// all alive at the turn from the forward to the backward pass, so their sum is
// close to a device's peak; it leaves out short-lived tensors (gradients in flight),
// which the budget fraction leaves room for.
//
// The decoding: units in their numbering (the order of their first op in the
// topological order), each to the device the policy ranks first among the allowed
// devices where it still fits (running estimate + unit <= fraction x memory); with an
// rng, a draw from the policy's distribution restricted to those devices instead. A
// unit that fits nowhere goes to the allowed device with the most room left. Every
// choice is still the policy's: the budget only removes devices, as a mask would.
// When the policy's own choices all fit, the greedy decoding is the policy's greedy
// placement. No LibTorch in this header.
#pragma once

#include <cstdint>
#include <vector>

#include "core/rng.h"
#include "graph/graph.h"
#include "policy/features.h"
#include "sim/cost_model.h"

namespace graphopt {

// The estimate's parts, from the graph alone.
struct UnitMemory {
  // Per unit: resident bytes plus the kept activations its forward ops produce.
  std::vector<int64_t> own;
  // Per unit, the tensors its backward ops read from forward ops (a copy of one
  // made on another device lives on the reader's device from the forward pass to the
  // backward one): reads of unit u are [read_offsets[u], read_offsets[u + 1]) of
  // read_tensor (its id), read_bytes and read_unit (the producer's unit).
  std::vector<int32_t> read_offsets;
  std::vector<TensorId> read_tensor;
  std::vector<int64_t> read_bytes;
  std::vector<int32_t> read_unit;
  int num_tensors = 0;
};

// The estimate of every unit of `input` (built from `graph`).
UnitMemory EstimateUnitMemory(const Graph& graph, const CostModel& cost_model, const PolicyInput& input);

// The budgets zero-shot planning decodes under (rl/zero_shot.h): from `first` (a
// fraction of each device's memory) down by a tenth at a time over kBudgetRungs
// rungs (0.9, 0.81, 0.73, 0.66 from 0.9), since the estimate leaves out short-lived
// tensors by an amount that depends on the graph
// (docs/experiments/2026-11-26-zero-shot-memory-budget.md, "Change").
inline constexpr int kBudgetRungs = 4;
double BudgetRung(double first, int rung);

// The placement above. probs: [num_units x num_devices] row-major, each row the
// policy's distribution over devices (masked devices 0); fraction in (0, 1]. A unit
// on device d counts its own bytes plus the forward tensors its backward ops read
// from units already placed on other devices (once per tensor and device). A null
// rng decodes greedily (ties to the lower device id).
std::vector<int32_t> BudgetedPlacement(const PolicyInput& input, const float* probs, const UnitMemory& memory,
                                       double fraction, Rng* rng);

}  // namespace graphopt
