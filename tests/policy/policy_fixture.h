// A graph, a cluster and the GO policy's input for them, as the policy tests use
// them (LibTorch: the tensors).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "graph/graph.h"
#include "policy/features.h"
#include "policy/go_policy.h"
#include "sim/cluster.h"
#include "sim/cost_model.h"

namespace graphopt::testing {

// A network small enough to be fast (hidden 16, 2 heads, segments of 8 with a memory
// of 4, 8 relative buckets, 4 priority levels), large enough that the MLP graph
// (about 40 ops) spans several segments; seeded with `seed`.
inline GoPolicyConfig TinyPolicyConfig(uint64_t seed) {
  GoPolicyConfig c;
  c.hidden = 16;
  c.heads = 2;
  c.segment = 8;
  c.memory = 4;
  c.relative_buckets = 8;
  c.priority_levels = 4;
  c.seed = seed;
  return c;
}

struct PolicyFixture {
  Graph graph;
  Cluster cluster;
  PolicyInput input;
  PolicyTensors tensors;
};

inline PolicyFixture MakePolicyFixture(Graph graph, Cluster cluster, const PolicyInputOptions& options = {},
                                       bool mask_unit_memory = false) {
  PolicyFixture f;
  f.graph = std::move(graph);
  f.cluster = std::move(cluster);
  auto input = BuildPolicyInput(f.graph, f.cluster, CostModel(), options);
  EXPECT_TRUE(input.ok()) << input.status().message();
  f.input = std::move(*input);
  f.tensors = ToTensors(f.input, mask_unit_memory);
  return f;
}

}  // namespace graphopt::testing
