// Small hand-built graphs of the tests. Header-only; needs graphopt_graph.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "graph/graph.h"

namespace graphopt::testing {

// A generic op reading `inputs` and writing one tensor of `elements` floats, taking
// `measured_us` on a GPU (costs not computed).
inline OpId AddTimedOp(Graph& g, const std::string& name, const std::vector<TensorId>& inputs, double measured_us,
                       int64_t elements = 1024) {
  Op op;
  op.name = name;
  op.kind = OpKind::kGeneric;
  op.inputs = inputs;
  op.measured_time_us = measured_us;
  op.outputs = {g.AddTensor(name + ":0", {elements})};
  return g.AddOp(std::move(op), /*compute_cost=*/false);
}

// AddTimedOp with a layer tag and a phase (one tensor of 1024 floats).
inline OpId AddLayerTimedOp(Graph& g, const std::string& name, const std::vector<TensorId>& inputs, double measured_us,
                            int32_t layer = kNoId, Phase phase = Phase::kForward) {
  Op op;
  op.name = name;
  op.kind = OpKind::kGeneric;
  op.phase = phase;
  op.inputs = inputs;
  op.layer = layer;
  op.measured_time_us = measured_us;
  op.outputs = {g.AddTensor(name + ":0", {1024})};
  return g.AddOp(std::move(op), /*compute_cost=*/false);
}

// A generic op reading `inputs` and writing one tensor of `elements` floats, without
// a time (costs not computed).
inline OpId AddUntimedOp(Graph& g, const std::string& name, const std::vector<TensorId>& inputs,
                         int64_t elements = 256) {
  Op op;
  op.name = name;
  op.kind = OpKind::kGeneric;
  op.inputs = inputs;
  op.outputs = {g.AddTensor(name + ":0", {elements})};
  return g.AddOp(std::move(op), /*compute_cost=*/false);
}

// Two independent chains of n untimed generic ops (AddUntimedOp, 256 floats each):
// a0 -> a1 -> ..., b0 -> b1 -> ...
inline Graph TwoUntimedChains(int n) {
  Graph g("two_chains");
  for (const char* chain : {"a", "b"}) {
    std::vector<TensorId> in;
    for (int i = 0; i < n; ++i) in = {g.op(AddUntimedOp(g, chain + std::to_string(i), in)).outputs[0]};
  }
  return g;
}

// Two independent chains of n generic ops a0 -> a1 -> ..., b0 -> b1 -> ..., each
// taking `measured_us` and writing one tensor of `elements` floats.
inline Graph TwoTimedChains(int n, double measured_us, int64_t elements) {
  Graph g("two_chains");
  for (const char* chain : {"a", "b"}) {
    std::vector<TensorId> in;
    for (int i = 0; i < n; ++i) {
      Op op;
      op.name = chain + std::to_string(i);
      op.kind = OpKind::kGeneric;
      op.inputs = in;
      op.measured_time_us = measured_us;
      op.outputs = {g.AddTensor(op.name + ":0", {elements})};
      in = op.outputs;
      g.AddOp(std::move(op), /*compute_cost=*/false);
    }
  }
  return g;
}

}  // namespace graphopt::testing
