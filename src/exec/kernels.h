// Kernels: every op of the graph IR run for real with ATen, at the op's shapes and
// dtypes, forward ops, their gradients and the optimizer's updates.
//
// A forward op computes what its kind and attributes say (an ONNX-style MatMul, Conv,
// Softmax, Concat, ...). A gradient op "grad/F/in<i>" (graph/training.h) computes
// dL/dx of input i of its forward op F from the gradients of F's outputs and the
// forward tensors it was given, with ATen's backward kernels where they exist
// (convolution_backward, the products of a MatMul's gradients, softmax's and the
// norms' backward functions). An update op applies its optimizer's step (sgd,
// momentum, adam) to its parameter in place, its state kept in a KernelState across
// steps. Source ops (Input, Variable, Constant) are not kernels: their data comes from
// MakeSourceTensor, random with a seed, integer tensors in the range their consumers
// index (token ids below the vocabulary, labels below the classes).
//
// Attributes a kernel needs but the graph lacks (built-in models and PipeDream
// profiles omit some; ONNX passes some as tensors whose values the graph does not keep)
// are inferred from the shapes (exec/kernel_plans.h); an op that no sensible computation
// gives its shapes is an error. Ops of unknown semantics (Generic, and the ops of a
// PipeDream profile whose 1-D tensors do not fit their kind) run a surrogate that reads
// every input and writes outputs of the graph's shapes. Which gradients are exact and
// which are recomputed or approximated: exec/kernels_backward.cc.
//
// Every function here is deterministic (same inputs, same bits with one thread) and
// thread-safe: workers of several devices call RunKernel at once on different ops. No
// function changes ATen's global settings (threads, generator).
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace graphopt {

// State an op keeps from one step to the next: an update op's optimizer state
// (momentum, Adam's moments and step count). Created by the op's first RunKernel.
struct KernelState {
  std::vector<at::Tensor> tensors;
  int64_t steps = 0;
};

// The ATen dtype of a graph dtype.
at::ScalarType ToScalarType(DType dtype);

// The data of a source op's output tensor (Input, Variable, Constant), contiguous, of
// the tensor's shape and dtype, generated from `seed` and the tensor's id only: floats
// normal with std 0.1, parameters of contractions and recurrences 1/sqrt(fan-in), norm
// scales around 1; single numbers (hyperparameters, mostly) in [0.5, 1.5), 2 as a Pow's
// exponent; a Constant's "value" attribute where it has one; integers uniform below the
// smallest range their consumers index (2 if none does); bools uniform.
StatusOr<at::Tensor> MakeSourceTensor(const Graph& graph, TensorId tensor, uint64_t seed);

// Runs op `op` (not a source op): `inputs` are its input tensors in op.inputs order,
// with the graph's shapes and dtypes. Returns its outputs in op.outputs order, each
// contiguous with exactly the graph's shape and dtype (a view's output shares its
// input's storage). An update op updates inputs[0] in place and returns no outputs;
// `state` may be null for ops other than updates (an update without one keeps no state
// between calls). Errors name the op, its kind, its shapes and what is wrong.
StatusOr<std::vector<at::Tensor>> RunKernel(const Graph& graph, OpId op, const std::vector<at::Tensor>& inputs,
                                            KernelState* state);

// Whether RunKernel can run every op of the graph (attributes and shapes it needs are
// there or inferable), working out each kernel's plan without computing: OK, or
// InvalidArgument listing the first ops it cannot run, each with why. Checked before a
// plan runs.
Status CheckKernels(const Graph& graph);

}  // namespace graphopt
