// Private to src/exec/kernels*.cc: the call every kernel gets and the helpers the
// forward, gradient and autograd kernels share.
//
// A kernel works in two modes. Given input tensors it computes; given none (a dry
// run, CheckKernels) it only works out its plan (exec/kernel_plans.h) from the graph's
// shapes and attributes and returns no tensors, so a graph is checked by the same
// code that runs it.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "exec/kernel_plans.h"
#include "exec/kernels.h"

namespace graphopt {
namespace exec_kernels {

using Tensors = std::vector<at::Tensor>;

struct KernelCall {
  const Graph* graph = nullptr;
  OpId id = kNoId;
  const Tensors* inputs = nullptr;  // nullptr: a dry run
  KernelState* state = nullptr;

  const Op& op() const { return graph->op(id); }
  bool dry() const { return inputs == nullptr; }
  size_t num_inputs() const { return op().inputs.size(); }
  size_t num_outputs() const { return op().outputs.size(); }
  const Shape& in_shape(size_t i) const { return graph->tensor(op().inputs[i]).shape; }
  DType in_dtype(size_t i) const { return graph->tensor(op().inputs[i]).dtype; }
  const Shape& out_shape(size_t i) const { return graph->tensor(op().outputs[i]).shape; }
  DType out_dtype(size_t i) const { return graph->tensor(op().outputs[i]).dtype; }
  const at::Tensor& in(size_t i) const { return (*inputs)[i]; }
  // InvalidArgument "op 'name' (Kind, inputs [..] -> outputs [..]): <what>".
  Status Error(const std::string& what) const;
  // A plan's error with the op's description in front.
  Status Wrap(const Status& status) const { return Error(status.message()); }
};

// "op 'name' (Kind, inputs [2, 3], [3] -> outputs [2])".
std::string DescribeOp(const Graph& graph, OpId id);

// A gradient op "grad/F/in<i>" (as opposed to the AddN sums of the backward pass).
bool IsGradientOp(const Op& op);
// The i of a name ending in "/in<i>" (or "/in<i>_<k>"); -1 if it has none.
int ParseGradInputIndex(const std::string& name);

// Output i of the call made exactly the graph's: reshaped (same element count), cast
// to the graph's dtype, contiguous. Fails naming the op if the element count differs.
StatusOr<at::Tensor> FitOutput(const KernelCall& call, size_t i, const at::Tensor& t);
StatusOr<Tensors> FitOutputs(const KernelCall& call, const Tensors& outs);

// g summed over the dims that broadcasting added or stretched to reach its shape
// from `shape`: the gradient of a broadcast input.
at::Tensor SumToShape(const at::Tensor& g, const Shape& shape);
// ATen's padding list (last dim first) for the trailing dims' begin/end pads.
std::vector<int64_t> AtenPads(const std::vector<int64_t>& begin, const std::vector<int64_t>& end);
std::vector<int64_t> Negated(std::vector<int64_t> v);
bool IsFloatingType(at::ScalarType t);

// A generator of its own for op-internal randomness (dropout masks, random fills):
// from the op id only, so the forward op and its gradient draw the same mask.
at::Generator OpGenerator(OpId op, uint64_t salt);
// The dropout rate of a Dropout op ("rate", "ratio", else 0.1) and its keep mask.
double DropoutRate(const Op& op);
at::Tensor DropoutMask(OpId op, const Shape& shape, double rate);

// Ops without sensible semantics at their shapes (Generic ops, PipeDream profiles):
// outputs of the graph's shapes computed from every input (the first floating input
// cycled or cut to each output's size, plus a small multiple of every input's mean).
Tensors SurrogateForward(const KernelCall& call);

// Forward kernels (kernels_forward.cc), outputs already fitted. Differentiable: the
// autograd gradients re-run them.
StatusOr<Tensors> RunForward(const KernelCall& call);
// True if op runs SurrogateForward instead of its kind's kernel (Generic ops, and
// ops of profile graphs whose shapes do not fit their kind).
bool RunsSurrogate(const Graph& graph, OpId op);
// Data movement and the loss (kernels_data.cc), called by RunForward.
StatusOr<Tensors> DataMovementForward(const KernelCall& call);
// Gradient ops (kernels_backward.cc).
StatusOr<Tensors> RunGradient(const KernelCall& call);

// A gradient op's view of its forward op F: which input it differentiates, the
// gradients of F's outputs and the forward tensors it was given.
struct GradCall {
  const KernelCall* call;
  OpId fid;
  const Op* f;
  size_t input;
  Tensors dy;        // per output of F: its gradient, undefined where it has none
  Tensors fin, fout;  // per input/output of F: the forward tensor, undefined where not given

  const Graph& g() const { return *call->graph; }
  const Shape& x_shape() const { return fin_shape(input); }
  const Shape& fin_shape(size_t j) const { return g().tensor(f->inputs[j]).shape; }
  const Shape& fout_shape(size_t k) const { return g().tensor(f->outputs[k]).shape; }
  at::Tensor Dy(size_t k = 0) const {
    if (k < dy.size() && dy[k].defined()) return dy[k];
    return at::zeros(fout_shape(k), at::TensorOptions().dtype(at::kFloat));
  }
  at::Tensor Zeros() const { return at::zeros(x_shape(), at::TensorOptions().dtype(at::kFloat)); }
  Status Missing(const std::string& what) const { return call->Error("the gradient needs " + what + ", which it was not given"); }
};

// The gradient re-run under autograd (AutogradGradient); the forward inputs the
// gradient op was not given are zeros.
StatusOr<at::Tensor> ViaAutograd(const GradCall& gc);
// Gradients of data movement and of the loss (kernels_data.cc).
StatusOr<at::Tensor> DataMovementGradient(const GradCall& gc);
// LSTM/GRU/RNN layers and cells (kernels_autograd.cc).
StatusOr<Tensors> RecurrentForward(const KernelCall& call);
// dL/d(input `input` of forward op `fwd`) by running the forward kernel on `fwd_inputs`
// under autograd and back-propagating `out_grads` (one per output of fwd, undefined
// where the output has none). Inputs the gradient op was not given are placeholders
// (zeros): exact for inputs the derivative does not depend on (linear ops, a norm's
// bias), an approximation otherwise (see kernels_backward.cc).
StatusOr<at::Tensor> AutogradGradient(const Graph& graph, OpId fwd, const Tensors& fwd_inputs, const Tensors& out_grads,
                                      size_t input);

}  // namespace exec_kernels
}  // namespace graphopt
