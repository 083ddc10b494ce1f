// Gradient ops: dL/dx_i of input i of the forward op F (graph/training.h), from the
// gradients of F's outputs and the forward tensors the op was given.
//
// Which input is which: the attributes "grad_input" and "grad_outputs" that the
// training expansion writes; for graphs without them (older JSON files) the "/in<i>"
// of the op's name, and the leading inputs that backward ops produced, matched in
// order to F's outputs of the same shape. A gradient op without output gradients
// belongs to a sink, the loss: its seed is ones of each output's shape.
//
// Exact with ATen's backward kernels: Conv/ConvTranspose (convolution_backward, the
// one input's mask), MatMul/BatchMatMul/Gemm (products with the other operand,
// broadcast dims summed), Softmax/LogSoftmax (_softmax_backward_data and the log form),
// LayerNorm (native_layer_norm_backward, mean and rstd recomputed from the input),
// BatchNorm (native_batch_norm_backward, batch statistics recomputed), MaxPool
// (indices recomputed, max_pool*_with_indices_backward), AvgPool (avg_pool*_backward),
// Relu/Sigmoid/Tanh from their outputs, and by hand: Add/Sub/Mul/Div/AddN/Neg/Where
// with broadcast gradients reduced to the input's shape, reductions, Concat/Split/
// Slice/Transpose/Pad/Expand/Tile, Gather (index_add), SoftmaxCrossEntropy (softmax
// minus one-hot), Dropout (its mask drawn again).
//
// Recomputed under autograd (AutogradGradient): recurrent layers and cells (the graph
// keeps none of their internals), Pow/Max/Min and the unary kinds without a closed
// form here (all their inputs are given: exact), the ONNX norms that share
// LayerNorm (their bias is not given, and no gradient depends on it: exact), ONNX
// resize, depth-to-space, non-constant pads (linear: exact with placeholders), Generic
// ops and profile surrogates. Approximations, where the graph gives a gradient op less
// than the exact derivative needs: ONNX ReduceSumSquare/L1/L2/LogSum(Exp)/Prod and
// GlobalMaxPool/LpPool without their input (taken as a plain sum / average), Sin/Cos
// and HardSwish from their outputs only (the branch is assumed), PRelu's input without
// its slope and ScatterND/ScatterElements without their indices (zeros stand in).
#include <algorithm>
#include <array>
#include <limits>

#include "exec/kernels_impl.h"

namespace graphopt {
namespace exec_kernels {
namespace {

// Where a gradient op's inputs come from.
struct GradLayout {
  OpId fwd = kNoId;
  size_t input = 0;
  std::vector<size_t> grad_of;  // for each leading input: the index of F's output it is the gradient of
};

StatusOr<GradLayout> ResolveLayout(const KernelCall& c) {
  const Graph& g = *c.graph;
  const Op& op = c.op();
  GradLayout layout;
  layout.fwd = op.forward_op;
  if (layout.fwd < 0 || layout.fwd >= g.num_ops()) return c.Error("a gradient op must name its forward op");
  const Op& f = g.op(layout.fwd);
  int64_t i = GetIntAttr(op.attrs, "grad_input", -1);
  if (i < 0) i = ParseGradInputIndex(op.name);
  if (i < 0 || i >= static_cast<int64_t>(f.inputs.size())) {
    return c.Error("cannot tell which input of '" + f.name + "' it differentiates (no attribute grad_input, no /in<i> in the name)");
  }
  layout.input = static_cast<size_t>(i);
  if (c.num_outputs() != 1) return c.Error("a gradient op has one output");
  if (op.attrs.count("grad_outputs") != 0) {
    for (int64_t k : GetIntsAttr(op.attrs, "grad_outputs")) {
      if (k < 0 || k >= static_cast<int64_t>(f.outputs.size())) return c.Error("grad_outputs names an output F does not have");
      layout.grad_of.push_back(static_cast<size_t>(k));
    }
    if (layout.grad_of.size() > c.num_inputs()) return c.Error("grad_outputs lists more gradients than the op reads");
    return layout;
  }
  // Older graphs: the leading inputs made by backward ops, matched to F's outputs by shape.
  size_t next = 0;
  for (size_t j = 0; j < c.num_inputs(); ++j) {
    const Tensor& t = g.tensor(op.inputs[j]);
    if (t.producer == kNoId || g.op(t.producer).phase != Phase::kBackward) break;
    while (next < f.outputs.size() && g.tensor(f.outputs[next]).shape != t.shape) ++next;
    if (next == f.outputs.size()) return c.Error("input " + std::to_string(j) + " is a gradient of no output of '" + f.name + "'");
    layout.grad_of.push_back(next++);
  }
  return layout;
}



// ---- Contractions ---------------------------------------------------------------

StatusOr<at::Tensor> ConvGrad(const GradCall& gc) {
  const bool transposed = gc.f->kind == OpKind::kConvTranspose;
  const size_t i = gc.input;
  const at::Tensor dy = gc.Dy();
  if (i >= 2) {  // bias: the sum over everything but the channels
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < dy.dim(); ++d) dims.push_back(d);
    return dy.sum(dims);
  }
  StatusOr<WindowPlan> plan = PlanConv(*gc.f, gc.fin_shape(0), gc.fin_shape(1), gc.fout_shape(0), transposed);
  if (!plan.ok()) return gc.call->Wrap(plan.status());
  const WindowPlan& p = *plan;
  const size_t n = p.kernel.size();
  const std::vector<int64_t> zeros(n, 0);
  const std::array<bool, 3> mask{i == 0, i == 1, false};
  if (!gc.fin[1 - i].defined()) return gc.Missing(i == 0 ? "the weight" : "the input");
  const at::Tensor w = i == 0 ? gc.fin[1] : at::empty(gc.fin_shape(1), gc.fin[0].options());
  if (transposed) {
    const at::Tensor full = at::constant_pad_nd(dy, AtenPads(p.pad_begin, p.pad_end));
    const at::Tensor x = i == 1 ? gc.fin[0] : at::empty(gc.fin_shape(0), w.options());
    auto r = at::convolution_backward(full, x, w, c10::nullopt, p.stride, zeros, p.dilation, true, zeros, p.groups, mask);
    return i == 0 ? std::get<0>(r) : std::get<1>(r);
  }
  std::vector<int64_t> sym(n), eb(n), ee(n);
  for (size_t d = 0; d < n; ++d) {
    sym[d] = std::min(p.pad_begin[d], p.pad_end[d]);
    eb[d] = p.pad_begin[d] - sym[d];
    ee[d] = p.pad_end[d] - sym[d];
  }
  const bool extra = eb != zeros || ee != zeros;
  at::Tensor x;
  if (i == 1) {
    x = extra ? at::constant_pad_nd(gc.fin[0], AtenPads(eb, ee)) : gc.fin[0];
  } else {
    Shape padded = gc.fin_shape(0);
    for (size_t d = 0; d < n; ++d) padded[2 + d] += eb[d] + ee[d];
    x = at::empty(padded, w.options());  // only its shape is read
  }
  auto r = at::convolution_backward(dy, x, w, c10::nullopt, p.stride, sym, p.dilation, false, zeros, p.groups, mask);
  if (i == 1) return std::get<1>(r);
  at::Tensor dx = std::get<0>(r);
  return extra ? at::constant_pad_nd(dx, Negated(AtenPads(eb, ee))) : dx;
}

// A matrix operand as the product sees it: vectors as a row (a) or a column (b), transposed if asked.
Shape AsMatrix(Shape s, bool transposed, bool is_a) {
  if (s.size() == 1) return is_a ? Shape{1, s[0]} : Shape{s[0], 1};
  if (transposed) std::swap(s[s.size() - 1], s[s.size() - 2]);
  return s;
}

at::Tensor ToMatrix(const at::Tensor& t, bool transposed, bool is_a) {
  if (t.dim() == 1) return is_a ? t.unsqueeze(0) : t.unsqueeze(1);
  return transposed ? t.transpose(-1, -2) : t;
}

StatusOr<at::Tensor> MatMulGrad(const GradCall& gc) {
  const bool gemm = gc.f->kind == OpKind::kGemm;
  const size_t i = gc.input;
  at::Tensor dy = gc.Dy();
  if (gemm && i >= 2) return SumToShape(dy * GetFloatAttr(gc.f->attrs, "beta", 1.0), gc.x_shape());
  StatusOr<MatMulPlan> plan = PlanMatMul(*gc.f, gc.fin_shape(0), gc.fin_shape(1), gc.fout_shape(0));
  if (!plan.ok()) return gc.call->Wrap(plan.status());
  const bool ta = plan->transpose_a, tb = plan->transpose_b;
  if (!gc.fin[1 - i].defined()) return gc.Missing(i == 0 ? "the second operand" : "the first operand");
  const Shape a2 = AsMatrix(gc.fin_shape(0), ta, true), b2 = AsMatrix(gc.fin_shape(1), tb, false);
  // dy as [batch..., m, n]
  Shape batch;
  {
    const Shape ba(a2.begin(), a2.end() - 2), bb(b2.begin(), b2.end() - 2);
    const size_t r = std::max(ba.size(), bb.size());
    for (size_t d = 0; d < r; ++d) {
      const int64_t x = d < r - ba.size() ? 1 : ba[d - (r - ba.size())];
      const int64_t y = d < r - bb.size() ? 1 : bb[d - (r - bb.size())];
      batch.push_back(x == 1 ? y : x);
    }
  }
  Shape y2 = batch;
  y2.push_back(a2[a2.size() - 2]);
  y2.push_back(b2.back());
  dy = dy.reshape(y2);
  if (gemm) dy = dy * GetFloatAttr(gc.f->attrs, "alpha", 1.0);
  at::Tensor d;
  if (i == 0) {
    d = SumToShape(at::matmul(dy, ToMatrix(gc.fin[1], tb, false).transpose(-1, -2)), a2);
    if (ta && gc.fin_shape(0).size() >= 2) d = d.transpose(-1, -2);
  } else {
    d = SumToShape(at::matmul(ToMatrix(gc.fin[0], ta, true).transpose(-1, -2), dy), b2);
    if (tb && gc.fin_shape(1).size() >= 2) d = d.transpose(-1, -2);
  }
  return d.reshape(gc.x_shape());
}

// ---- Elementwise ----------------------------------------------------------------

StatusOr<at::Tensor> ElementwiseGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  const std::string t = OnnxType(f);
  const size_t i = gc.input;
  const at::Tensor dy = gc.Dy();
  const at::Tensor y = gc.fout.empty() ? at::Tensor() : gc.fout[0];
  switch (f.kind) {
    case OpKind::kAdd: return SumToShape(dy, gc.x_shape());
    case OpKind::kSub: return SumToShape(i == 0 ? dy : -dy, gc.x_shape());
    case OpKind::kNeg: return -dy;
    case OpKind::kCast: return dy;
    case OpKind::kAddN: {
      const double scale = t == "Mean" ? 1.0 / static_cast<double>(f.inputs.size()) : 1.0;
      return SumToShape(scale == 1.0 ? dy : dy * scale, gc.x_shape());
    }
    case OpKind::kMul:
      if (f.inputs.size() != 2 || !gc.fin[1 - i].defined()) return gc.Missing("the other factor");
      return SumToShape(dy * gc.fin[1 - i], gc.x_shape());
    case OpKind::kRelu:
      if (!y.defined()) return ViaAutograd(gc);
      return at::threshold_backward(dy, y, 0);
    case OpKind::kSigmoid: {
      if (!y.defined()) return ViaAutograd(gc);
      if (t == "HardSigmoid") return dy * (y.gt(0) & y.lt(1)).to(dy.scalar_type()) * GetFloatAttr(f.attrs, "alpha", 0.2);
      if (t == "Softplus") return dy * (1.0 - at::exp(-y));
      if (t == "Softsign") return dy * (1.0 - at::abs(y)).pow(2);
      if (t == "HardSwish") {
        // The input from the output on the increasing branch (x >= -1.5).
        const at::Tensor x = at::where(y.ge(3), y, at::sqrt(at::clamp_min(6.0 * y + 2.25, 0.0)) - 1.5);
        return dy * at::where(x.ge(3), at::ones_like(x), at::clamp((2.0 * x + 3.0) / 6.0, 0.0, 1.0));
      }
      return at::sigmoid_backward(dy, y);
    }
    case OpKind::kTanh:
      if (!y.defined()) return ViaAutograd(gc);
      if (t == "Tan") return dy * (1.0 + y * y);
      if (t == "Sin") return dy * at::sqrt(at::clamp_min(1.0 - y * y, 0.0));   // cos(x), taking cos(x) >= 0
      if (t == "Cos") return -dy * at::sqrt(at::clamp_min(1.0 - y * y, 0.0));  // -sin(x), taking sin(x) >= 0
      return at::tanh_backward(dy, y);
    case OpKind::kExp:
      if (!y.defined()) return ViaAutograd(gc);
      return dy * y;
    case OpKind::kSqrt:
      if (!y.defined()) return ViaAutograd(gc);
      return dy / (2.0 * y);
    case OpKind::kDropout: {
      if (t == "Bernoulli") return gc.Zeros();
      const double rate = DropoutRate(f);
      return dy * DropoutMask(gc.fid, gc.fin_shape(0), rate).to(dy.scalar_type()) * (1.0 / (1.0 - rate));
    }
    case OpKind::kClip: {
      if (i != 0) return gc.Zeros();
      if (!gc.fin[0].defined()) return gc.Missing("the input");
      const at::Tensor& x = gc.fin[0];
      at::Tensor inside = at::ones_like(x, at::TensorOptions().dtype(at::kBool));
      if (f.attrs.count("min")) inside = inside & x.ge(GetFloatAttr(f.attrs, "min", 0.0));
      if (f.attrs.count("max")) inside = inside & x.le(GetFloatAttr(f.attrs, "max", 0.0));
      if (!f.attrs.count("min") && f.inputs.size() >= 2 && gc.fin[1].defined()) inside = inside & x.ge(gc.fin[1]);
      if (!f.attrs.count("max") && f.inputs.size() >= 3 && gc.fin[2].defined()) inside = inside & x.le(gc.fin[2]);
      return dy * inside.to(dy.scalar_type());
    }
    case OpKind::kDiv:
      if (t.empty() && f.inputs.size() == 2 && gc.fin[0].defined() && gc.fin[1].defined()) {
        const at::Tensor& den = gc.fin[1];
        return SumToShape(i == 0 ? dy / den : -dy * gc.fin[0] / (den * den), gc.x_shape());
      }
      return ViaAutograd(gc);
    case OpKind::kWhere:
      if (t.empty() && f.inputs.size() == 3 && gc.fin[0].defined() && i >= 1) {
        const at::Tensor cond = gc.fin[0].to(at::kBool);
        const at::Tensor zero = at::zeros({}, dy.options());
        return SumToShape(i == 1 ? at::where(cond, dy, zero) : at::where(cond, zero, dy), gc.x_shape());
      }
      return ViaAutograd(gc);
    case OpKind::kCompare:
    case OpKind::kNot:
      return gc.Zeros();
    default:
      return ViaAutograd(gc);  // Pow, Max, Min, Abs, LeakyRelu, Gelu, Erf, Log, Reciprocal
  }
}

// ---- Reductions and norms ---------------------------------------------------------

// dy of a reduction expanded back to the input's shape.
at::Tensor Unreduce(const at::Tensor& dy, const ReducePlan& p, const Shape& x) {
  at::Tensor g = dy;
  if (!p.keepdims) {
    Shape kept = x;
    for (int64_t a : p.axes) kept[static_cast<size_t>(a)] = 1;
    g = g.reshape(kept);
  }
  return g.expand(x);
}

StatusOr<at::Tensor> ReduceGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  const std::string t = OnnxType(f);
  const Shape& xs = gc.x_shape();
  const at::Tensor dy = gc.Dy();
  if (t == "NonZero" || t == "ArgMax" || t == "ArgMin" || t == "Hardmax") return gc.Zeros();
  if (t == "CumSum") return xs.empty() ? dy : dy.flip({-1}).cumsum(-1).flip({-1});
  if (t == "TopK") {
    if (!gc.fin[0].defined()) return gc.Missing("the input");
    const int64_t axis = NormalizeAxis(GetIntAttr(f.attrs, "axis", -1), xs.size());
    const at::Tensor idx = std::get<1>(at::topk(gc.fin[0], gc.fout_shape(0)[static_cast<size_t>(axis)], axis,
                                                GetIntAttr(f.attrs, "largest", 1) != 0));
    return at::zeros_like(gc.fin[0]).scatter(axis, idx, dy.to(gc.fin[0].scalar_type()));
  }
  StatusOr<ReducePlan> plan = PlanReduce(f, xs, gc.fout_shape(0));
  if (!plan.ok()) return gc.call->Wrap(plan.status());
  if (plan->axes.empty()) return dy;
  if (f.kind == OpKind::kReduceMax) {
    if (!gc.fin[0].defined() || !gc.fout[0].defined()) return gc.Missing("the input and the output");
    const at::Tensor y = Unreduce(gc.fout[0], *plan, xs);
    const at::Tensor hit = gc.fin[0].eq(y).to(dy.scalar_type());
    return Unreduce(dy, *plan, xs) * hit / hit.sum(plan->axes, true);  // ties share the gradient
  }
  const bool plain = t.empty() || t == "ReduceSum" || t == "ReduceMean";
  if (!plain && gc.fin[0].defined()) return ViaAutograd(gc);
  at::Tensor g = Unreduce(dy, *plan, xs);
  if (f.kind == OpKind::kReduceMean) {
    int64_t count = 1;
    for (int64_t a : plan->axes) count *= xs[static_cast<size_t>(a)];
    g = g / static_cast<double>(std::max<int64_t>(count, 1));
  }
  return g;
}

StatusOr<at::Tensor> SoftmaxGrad(const GradCall& gc) {
  if (!gc.fout[0].defined()) return gc.Missing("the output");
  StatusOr<SoftmaxPlan> plan = PlanSoftmax(gc.g(), *gc.f, gc.x_shape());
  if (!plan.ok()) return gc.call->Wrap(plan.status());
  at::Tensor y = gc.fout[0], dy = gc.Dy().to(y.scalar_type());
  if (y.dim() == 0) return at::zeros_like(y);
  int64_t dim = plan->axis;
  if (plan->coerce_2d) {
    const int64_t rows = NumElements(Shape(gc.x_shape().begin(), gc.x_shape().begin() + dim));
    y = y.reshape({rows, -1});
    dy = dy.reshape({rows, -1});
    dim = 1;
  }
  if (gc.f->kind == OpKind::kLogSoftmax) return at::_log_softmax_backward_data(dy, y, dim, y.scalar_type());
  return at::_softmax_backward_data(dy, y, dim, y.scalar_type());
}

StatusOr<at::Tensor> LayerNormGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  const std::string t = OnnxType(f);
  if ((!t.empty() && t != "LayerNormalization") || !gc.fin[0].defined()) return ViaAutograd(gc);
  const size_t i = gc.input;
  const at::Tensor& x = gc.fin[0];
  const Shape& xs = gc.fin_shape(0);
  StatusOr<int64_t> axis = PlanLayerNormAxis(f, xs, f.inputs.size() >= 2 ? &gc.fin_shape(1) : nullptr);
  if (!axis.ok()) return gc.call->Wrap(axis.status());
  const Shape normalized(xs.begin() + *axis, xs.end());
  c10::optional<at::Tensor> w, b;
  if (f.inputs.size() >= 2) {
    if (!gc.fin[1].defined()) return gc.Missing("the scale");
    w = gc.fin[1].reshape(normalized);
  }
  if (i == 2) b = at::zeros(normalized, x.options());  // only its options are read
  const double eps = GetFloatAttr(f.attrs, "epsilon", 1e-5);
  // The graph keeps no mean and rstd: recomputed from the saved input.
  auto stats = at::native_layer_norm(x, normalized, w, c10::nullopt, eps);
  auto r = at::native_layer_norm_backward(gc.Dy().to(x.scalar_type()), x, normalized, std::get<1>(stats), std::get<2>(stats), w, b,
                                          {i == 0, i == 1, i == 2});
  return i == 0 ? std::get<0>(r) : i == 1 ? std::get<1>(r) : std::get<2>(r);
}

StatusOr<at::Tensor> BatchNormGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  const size_t i = gc.input;
  if (i >= 3) return gc.Zeros();  // running statistics: training mode does not read them
  if (!gc.fin[0].defined()) return gc.Missing("the input");
  const at::Tensor& x = gc.fin[0];
  const int64_t channels = x.size(1);
  c10::optional<at::Tensor> w;
  if (f.inputs.size() >= 2) {
    if (!gc.fin[1].defined()) return gc.Missing("the scale");
    w = gc.fin[1].reshape({channels});
  }
  std::vector<int64_t> dims{0};
  for (int64_t d = 2; d < x.dim(); ++d) dims.push_back(d);
  const double eps = GetFloatAttr(f.attrs, "epsilon", 1e-5);
  // The batch statistics, recomputed from the saved input.
  auto [var, mean] = at::var_mean(x, dims, /*unbiased=*/false);
  const at::Tensor invstd = (var + eps).rsqrt();
  auto r = at::native_batch_norm_backward(gc.Dy().to(x.scalar_type()), x, w, c10::nullopt, c10::nullopt, mean, invstd, true, eps,
                                          {i == 0, i == 1, i == 2});
  return i == 0 ? std::get<0>(r) : i == 1 ? std::get<1>(r) : std::get<2>(r);
}

// ---- Pooling -------------------------------------------------------------------

StatusOr<at::Tensor> PoolGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  const std::string t = OnnxType(f);
  const Shape& xs = gc.x_shape();
  at::Tensor dy = gc.Dy();
  if (f.kind == OpKind::kGlobalAvgPool) {
    // GlobalMaxPool/GlobalLpPool are not given their input: taken as an average.
    int64_t count = 1;
    for (size_t d = 2; d < xs.size(); ++d) count *= xs[d];
    return dy.reshape(gc.fout_shape(0)).expand(xs) / static_cast<double>(std::max<int64_t>(count, 1));
  }
  StatusOr<WindowPlan> plan = PlanPool(f, xs, gc.fout_shape(0));
  if (!plan.ok()) return gc.call->Wrap(plan.status());
  const WindowPlan& p = *plan;
  const bool max = f.kind == OpKind::kMaxPool;
  if (p.adaptive || t == "LpPool") return ViaAutograd(gc);
  if (max && !gc.fin[0].defined()) return gc.Missing("the input");
  const size_t n = xs.size() - 2;
  std::vector<int64_t> pad(n, 0);
  bool explicit_pad = !p.symmetric();
  for (size_t d = 0; d < n; ++d) explicit_pad |= p.pad_begin[d] * 2 > p.dilation[d] * (p.kernel[d] - 1) + 1;
  Shape padded = xs;
  for (size_t d = 0; d < n && explicit_pad; ++d) padded[2 + d] += p.pad_begin[d] + p.pad_end[d];
  at::Tensor x;
  if (max) {
    x = explicit_pad ? at::constant_pad_nd(gc.fin[0], AtenPads(p.pad_begin, p.pad_end), -std::numeric_limits<double>::infinity())
                     : gc.fin[0];
  } else {
    x = at::empty(padded, dy.options());  // only its shape is read
  }
  if (!explicit_pad) pad = p.pad_begin;
  std::vector<int64_t> k = p.kernel, s = p.stride, dil = p.dilation;
  if (n == 1) {
    x = x.unsqueeze(2);
    dy = dy.unsqueeze(2);
    k.insert(k.begin(), 1);
    s.insert(s.begin(), 1);
    dil.insert(dil.begin(), 1);
    pad.insert(pad.begin(), 0);
  }
  at::Tensor dx;
  if (max) {
    // The graph keeps no indices: recomputed from the saved input.
    const at::Tensor idx = std::get<1>(n == 3 ? at::max_pool3d_with_indices(x, k, s, pad, dil) : at::max_pool2d_with_indices(x, k, s, pad, dil));
    dx = n == 3 ? at::max_pool3d_with_indices_backward(dy, x, k, s, pad, dil, false, idx)
                : at::max_pool2d_with_indices_backward(dy, x, k, s, pad, dil, false, idx);
  } else {
    const bool include_pad = GetIntAttr(f.attrs, "count_include_pad", 0) != 0;
    dx = n == 3 ? at::avg_pool3d_backward(dy, x, k, s, pad, false, include_pad, c10::nullopt)
                : at::avg_pool2d_backward(dy, x, k, s, pad, false, include_pad, c10::nullopt);
  }
  if (n == 1) dx = dx.squeeze(2);
  return explicit_pad ? at::constant_pad_nd(dx, Negated(AtenPads(p.pad_begin, p.pad_end))) : dx;
}

StatusOr<at::Tensor> Gradient(const GradCall& gc) {
  if (RunsSurrogate(gc.g(), gc.fid)) return ViaAutograd(gc);
  switch (gc.f->kind) {
    case OpKind::kReshape:
    case OpKind::kIdentity:
    case OpKind::kStopGradient:
      return gc.Dy().reshape(gc.x_shape());
    case OpKind::kConv:
    case OpKind::kConvTranspose:
      return ConvGrad(gc);
    case OpKind::kMatMul:
    case OpKind::kBatchMatMul:
    case OpKind::kGemm:
      return MatMulGrad(gc);
    case OpKind::kLSTM:
    case OpKind::kGRU:
    case OpKind::kRNN:
    case OpKind::kLSTMCell:
    case OpKind::kGRUCell:
      return ViaAutograd(gc);
    case OpKind::kReduceSum:
    case OpKind::kReduceMean:
    case OpKind::kReduceMax:
      return ReduceGrad(gc);
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
      return SoftmaxGrad(gc);
    case OpKind::kLayerNorm:
      return LayerNormGrad(gc);
    case OpKind::kBatchNorm:
      return BatchNormGrad(gc);
    case OpKind::kMaxPool:
    case OpKind::kAvgPool:
    case OpKind::kGlobalAvgPool:
      return PoolGrad(gc);
    case OpKind::kSoftmaxCrossEntropy:
      return DataMovementGradient(gc);
    case OpKind::kShape:
    case OpKind::kShapeCompute:
      return gc.Zeros();
    default:
      break;
  }
  const OpCategory cat = CategoryOf(gc.f->kind);
  if (cat == OpCategory::kElementwise) return ElementwiseGrad(gc);
  if (cat == OpCategory::kDataMovement) return DataMovementGradient(gc);
  return ViaAutograd(gc);
}

}  // namespace

StatusOr<at::Tensor> ViaAutograd(const GradCall& gc) {
  Tensors ins(gc.f->inputs.size());
  for (size_t j = 0; j < ins.size(); ++j) {
    if (gc.fin[j].defined()) {
      ins[j] = gc.fin[j];
      continue;
    }
    at::ScalarType type = ToScalarType(gc.g().tensor(gc.f->inputs[j]).dtype);
    if (type == at::kHalf) type = at::kFloat;
    ins[j] = at::zeros(gc.fin_shape(j), at::TensorOptions().dtype(type));
  }
  return AutogradGradient(gc.g(), gc.fid, ins, gc.dy, gc.input);
}

StatusOr<Tensors> RunGradient(const KernelCall& c) {
  GO_ASSIGN_OR_RETURN(GradLayout layout, ResolveLayout(c));
  const Graph& g = *c.graph;
  const Op& f = g.op(layout.fwd);
  // The forward op must have a plan at its shapes for its gradient to have one.
  const KernelCall forward{c.graph, layout.fwd, nullptr, nullptr};
  StatusOr<Tensors> plan = RunForward(forward);
  if (!plan.ok()) return c.Error("its forward op cannot run: " + plan.status().message());
  if (c.dry()) return Tensors{};
  GradCall gc{&c, layout.fwd, &f, layout.input, Tensors(f.outputs.size()), Tensors(f.inputs.size()), Tensors(f.outputs.size())};
  for (size_t j = 0; j < layout.grad_of.size(); ++j) gc.dy[layout.grad_of[j]] = c.in(j);
  if (layout.grad_of.empty()) {  // a sink: the loss seeds the backward pass
    for (size_t k = 0; k < f.outputs.size(); ++k) {
      const Tensor& out = g.tensor(f.outputs[k]);
      if (IsFloating(out.dtype)) gc.dy[k] = at::ones(out.shape, at::TensorOptions().dtype(at::kFloat));
    }
  }
  for (size_t j = layout.grad_of.size(); j < c.num_inputs(); ++j) {
    const TensorId t = c.op().inputs[j];
    for (size_t p = 0; p < f.inputs.size(); ++p) {
      if (f.inputs[p] == t) gc.fin[p] = c.in(j);
    }
    for (size_t k = 0; k < f.outputs.size(); ++k) {
      if (f.outputs[k] == t) gc.fout[k] = c.in(j);
    }
  }
  GO_ASSIGN_OR_RETURN(at::Tensor dx, Gradient(gc));
  return FitOutputs(c, {dx});
}

}  // namespace exec_kernels
}  // namespace graphopt
