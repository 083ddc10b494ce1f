// Training-step expansion: from a forward graph, the graph of one training step.
//
// For every differentiable forward op F and every input x of F that needs a
// gradient, one gradient op "grad/<F>/in<i>" (kind of F, phase backward) computes
// dL/dx from the gradients of F's outputs and the forward tensors that this
// derivative needs (saved activations: e.g. the weight for dX of a MatMul, the input
// for dW, the output of a Sigmoid). Reading those tensors extends their lifetime to
// the backward pass, which is what memory accounting needs. A gradient op keeps F's
// attributes and adds two: "grad_input" (the index i of F's input it differentiates)
// and "grad_outputs" (the indices of F's outputs whose gradients are its first
// inputs, in order; the forward tensors follow). A tensor consumed by
// several ops gets its gradient contributions summed by an AddN op. Every Variable
// gets an ApplyGradient op (phase update) in its colocation group that reads the
// parameter and its gradient; the optimizer's state (momentum, Adam moments) is
// that op's param_bytes. Sinks of the forward graph act as the loss (seed gradient).
//
// Gradient FLOPs: contractions 2 x MACs of the forward op per operand (so dX + dW =
// 2 x forward), bias inputs one FLOP per output element; recurrent layers: dX
// MACs = forward MACs (it carries the recurrence), dW = forward x I/(I+H), dR = forward
// x H/(I+H); elementwise, reductions, norms, pools: the forward FLOPs per input;
// data movement: bytes only. A measured backward time of F (profiles) is split
// over its gradient ops in proportion to their FLOPs.
#pragma once

#include <string>

#include "graph/graph.h"

namespace graphopt {

struct TrainingOptions {
  // "sgd" (2 FLOPs per parameter, no state), "momentum" (4 FLOPs, 1 state),
  // "adam" (12 FLOPs, 2 states).
  std::string optimizer = "momentum";
};

// Fails if the graph already has backward or update ops, or the optimizer is unknown.
StatusOr<Graph> BuildTrainingGraph(const Graph& forward, const TrainingOptions& options = {});

}  // namespace graphopt
