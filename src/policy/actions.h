// Actions: one set of decisions of the GO policy for a graph, in plain arrays, and
// their translation into a sim/plan.h Plan.
//
// Placement is decided per unit (policy/features.h: a colocation group, or an op on
// its own), so colocated ops share a device by construction. Scheduling is one of
// a few priority levels per op (higher runs first among the kernels ready on a
// device); fusion is a flag per op (fuse into its fusion producer). An empty vector
// means "task not decided": ToPlan fills the default (the input's default device,
// priority 0, no fusion).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/graph.h"
#include "policy/features.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/plan_legalizer.h"

namespace graphopt {

struct Actions {
  std::vector<int32_t> unit_device;     // [num_units] device of each unit, or empty
  std::vector<int32_t> priority_level;  // [num_ops] by op id: 0 .. levels - 1, or empty
  std::vector<uint8_t> fuse;            // [num_ops] by op id: fuse with producer, or empty

  bool operator==(const Actions& other) const {
    return unit_device == other.unit_device && priority_level == other.priority_level && fuse == other.fuse;
  }
};

// Default actions: every unit on the default device, level 0, no fusion.
Actions DefaultActions(const PolicyInput& input);

// The plan of the actions: each op on its unit's device, priority = level, fusion
// flags as given, then MakePlanValid (drops fusions whose producer ended up on
// another device or that would form a cycle). `input` must come from `graph` and
// `cluster`. The result always passes ValidatePlan. `legalizer`, if given, must be
// built for `graph`: the same plan, faster (sim/plan_legalizer.h).
Plan ToPlan(const Graph& graph, const Cluster& cluster, const PolicyInput& input, const Actions& actions,
            const PlanLegalizer* legalizer = nullptr);

}  // namespace graphopt
