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

// A graph named as an ONNX export from PyTorch names it (graph/modules.h), in op order:
//   0 onnx::Input_0     graph input (no module)
//   1 enc.l0.weight     parameter of module enc.l0 (400 bytes)
//   2 /enc/l0/MatMul    reads 0 and 1
//   3 /enc/l0/Relu
//   4 onnx::MatMul_7    parameter transposed by the exporter, read by 5 (800 bytes)
//   5 /enc/l1/MatMul    reads 3 and 4
//   6 enc.scale         parameter of module enc itself (100 bytes)
//   7 /enc/Add          an op of module enc itself, reads 5 and 6
//   8 /dec/MatMul       reads 7
//   9 grad//enc/l1/MatMul/in0   a gradient op of 5 (forward_op 5)
inline Graph ModuleNamedGraph() {
  Graph g("modules");
  auto add = [&g](const std::string& name, OpKind kind, const std::vector<TensorId>& inputs, int64_t param_bytes) {
    Op op;
    op.name = name;
    op.kind = kind;
    op.inputs = inputs;
    op.param_bytes = param_bytes;
    op.outputs = {g.AddTensor(name + ":0", {64})};
    return g.AddOp(std::move(op), /*compute_cost=*/false);
  };
  auto out = [&g](OpId o) { return g.op(o).outputs[0]; };
  const OpId input = add("onnx::Input_0", OpKind::kInput, {}, 0);
  const OpId w0 = add("enc.l0.weight", OpKind::kVariable, {}, 400);
  const OpId mm0 = add("/enc/l0/MatMul", OpKind::kGeneric, {out(input), out(w0)}, 0);
  const OpId relu = add("/enc/l0/Relu", OpKind::kGeneric, {out(mm0)}, 0);
  const OpId w1 = add("onnx::MatMul_7", OpKind::kVariable, {}, 800);
  const OpId mm1 = add("/enc/l1/MatMul", OpKind::kGeneric, {out(relu), out(w1)}, 0);
  const OpId scale = add("enc.scale", OpKind::kVariable, {}, 100);
  const OpId sum = add("/enc/Add", OpKind::kGeneric, {out(mm1), out(scale)}, 0);
  add("/dec/MatMul", OpKind::kGeneric, {out(sum)}, 0);
  const OpId grad = add("grad//enc/l1/MatMul/in0", OpKind::kGeneric, {out(mm1)}, 0);
  g.mutable_op(grad).phase = Phase::kBackward;
  g.mutable_op(grad).forward_op = mm1;
  return g;
}

}  // namespace graphopt::testing
