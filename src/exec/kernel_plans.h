// Kernel plans: the parameters a kernel runs with, worked out from an op's attributes
// and the graph's shapes alone (no data), so that CheckKernels can check a graph
// without running it and the forward and gradient kernels of one op agree.
//
// Attributes win where they are present and give the graph's shapes; where they are
// absent or do not fit (built-in models and PipeDream profiles omit some, ONNX passes
// some as tensors whose values the graph does not keep), a plan infers them from the
// shapes: a concat's axis from the dim whose sizes differ, a convolution's stride and
// padding from the spatial sizes and the kernel, a transpose's permutation by
// matching sizes. A plan that no sensible computation gives fails with a message
// saying what does not fit; the caller adds the op's name, kind and shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "graph/graph.h"

namespace graphopt {
namespace exec_kernels {

// Normalizes a possibly negative axis for a tensor of rank `rank`; -1 if out of range.
int64_t NormalizeAxis(int64_t axis, size_t rank);
// The op's ONNX operator type where the importer recorded one that differs from the
// kind ("Flatten", "HardSigmoid", ...), else "".
std::string OnnxType(const Op& op);
// True for graphs read from a PipeDream profile: every tensor 1-D of its profiled
// bytes, so the kinds' shape rules need not hold (kernels run shape-free surrogates).
bool IsProfileGraph(const Graph& graph);

// A sliding window (convolution or pooling) over the spatial dims of [N, C, ...].
// Pads may differ per side; a transposed convolution crops its full output by
// pad_begin/pad_end (a negative value adds zeros).
struct WindowPlan {
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
  int64_t groups = 1;
  bool adaptive = false;  // pools without a usable window: adaptive to the output size
  bool symmetric() const { return pad_begin == pad_end; }
};

// x [N, C, ...], w [O, C/g, k...] (transposed: [C, O/g, k...]) -> y.
StatusOr<WindowPlan> PlanConv(const Op& op, const Shape& x, const Shape& w, const Shape& y, bool transposed);
// x [N, C, ...] -> y [N, C, ...]; falls back to adaptive pooling when no window fits.
StatusOr<WindowPlan> PlanPool(const Op& op, const Shape& x, const Shape& y);

// The axes a reduction reduces and whether it keeps them.
struct ReducePlan {
  std::vector<int64_t> axes;
  bool keepdims = false;
};
StatusOr<ReducePlan> PlanReduce(const Op& op, const Shape& x, const Shape& y);

// The axis of a concat of `xs` into y; flat = true when the inputs only add up as
// flattened vectors (profiles).
struct ConcatPlan {
  int64_t axis = 0;
  bool flat = false;
};
StatusOr<ConcatPlan> PlanConcat(const Op& op, const std::vector<Shape>& xs, const Shape& y);
// The axis a split of x into ys cuts (sizes are the outputs' sizes along it).
StatusOr<ConcatPlan> PlanSplit(const Op& op, const Shape& x, const std::vector<Shape>& ys);

// One sliced dim: y = x[start : start + length * step : step] along dim.
struct SliceDim {
  int64_t dim, start, step, length;
};
StatusOr<std::vector<SliceDim>> PlanSlice(const Op& op, const Shape& x, const Shape& y);
// PlanSlice of a graph's op. A slice whose bounds the graph does not keep (ONNX passes
// them as tensors) starts at 0, except that slices of one tensor along one dim, none
// with known bounds, take consecutive parts in op order (a fused projection cut into
// its query, key and value).
StatusOr<std::vector<SliceDim>> PlanSliceInGraph(const Graph& graph, OpId op);

// The permutation with y.shape[i] = x.shape[perm[i]].
StatusOr<std::vector<int64_t>> PlanTranspose(const Op& op, const Shape& x, const Shape& y);

// Constant/reflect/edge padding per dim (negative: crop), as begin and end; pads the
// graph does not keep are split as SAME padding splits them (the odd one at the end).
struct PadPlan {
  std::vector<int64_t> begin, end;
  std::string mode = "constant";  // ATen's names: constant, reflect, replicate
};
StatusOr<PadPlan> PlanPad(const Op& op, const Shape& x, const Shape& y);

// Gather: y = data gathered along axis by indices.
struct GatherPlan {
  int64_t axis = 0;
  enum Mode { kTake, kElements, kNd, kCompress } mode = kTake;
};
StatusOr<GatherPlan> PlanGather(const Op& op, const Shape& data, const Shape& indices, const Shape& y);

// MatMul/BatchMatMul/Gemm: which operands are transposed (attributes, else inferred).
struct MatMulPlan {
  bool transpose_a = false, transpose_b = false;
};
StatusOr<MatMulPlan> PlanMatMul(const Op& op, const Shape& a, const Shape& b, const Shape& y);

// Softmax/LogSoftmax: the axis, and whether ONNX before opset 13 flattens to 2-D there.
struct SoftmaxPlan {
  int64_t axis = -1;
  bool coerce_2d = false;
};
StatusOr<SoftmaxPlan> PlanSoftmax(const Graph& graph, const Op& op, const Shape& x);

// LayerNorm: the first normalized axis (normalized dims are axis..rank-1).
StatusOr<int64_t> PlanLayerNormAxis(const Op& op, const Shape& x, const Shape* scale);

// SoftmaxCrossEntropy: the class axis of the logits, and the reduction.
struct CrossEntropyPlan {
  int64_t class_axis = 1;
  bool soft_labels = false;  // labels are probabilities of the logits' shape
  std::string reduction = "mean";  // mean, sum or none
};
StatusOr<CrossEntropyPlan> PlanCrossEntropy(const Op& op, const Shape& logits, const Shape& labels, const Shape& y);

}  // namespace exec_kernels
}  // namespace graphopt
