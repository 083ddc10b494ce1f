// Forward kernels: every non-source kind at the op's shapes, ONNX operator types that
// share a kind (op_type: "Flatten", "HardSigmoid", ...) by their own semantics. Data
// movement and the loss are in kernels_data.cc. Each kernel works out its plan
// first and returns nothing in a dry run. Kernels use only functional ATen ops, so
// that the autograd gradients can re-run them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "exec/kernels_impl.h"

namespace graphopt {
namespace exec_kernels {
namespace {

using Result = StatusOr<Tensors>;

bool Integral(const at::Tensor& t) { return !IsFloatingType(t.scalar_type()) && t.scalar_type() != at::kBool; }

// True if `in` broadcasts to `out` (NumPy rules, `in` not of a higher rank).
bool BroadcastsTo(const Shape& in, const Shape& out) {
  if (in.size() > out.size()) return NumElements(in) == NumElements(out);
  const size_t off = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] != out[off + d] && in[d] != 1) return false;
  }
  return true;
}

Status CheckBroadcast(const KernelCall& c, size_t data_inputs) {
  for (size_t i = 0; i < data_inputs && i < c.num_inputs(); ++i) {
    if (!BroadcastsTo(c.in_shape(i), c.out_shape(0))) {
      return c.Error("input " + std::to_string(i) + " does not broadcast to the output");
    }
  }
  return Status::Ok();
}

// ---- Metadata and views ------------------------------------------------------------

Result ShapeOp(const KernelCall& c) {
  if (c.num_inputs() < 1 || c.num_outputs() < 1) return c.Error("Shape reads one tensor");
  if (c.dry()) return Tensors{};
  const Shape& x = c.in_shape(0);
  const int64_t n = NumElements(c.out_shape(0));
  std::vector<int64_t> v;
  if (n == static_cast<int64_t>(x.size())) {
    v = x;
  } else if (n == 1) {
    v = {NumElements(x)};  // Size
  } else {
    const int64_t start = std::clamp<int64_t>(GetIntAttr(c.op().attrs, "start", 0), 0, static_cast<int64_t>(x.size()));
    for (int64_t i = 0; i < n; ++i) {
      const size_t d = static_cast<size_t>(start + i);
      v.push_back(d < x.size() ? x[d] : 1);
    }
  }
  return Tensors{at::tensor(v, at::TensorOptions().dtype(at::kLong))};
}

// Values computed from shapes that the graph does not keep: zeros (valid indices,
// harmless sizes; every kernel takes its shapes from the graph).
Result ShapeComputeOp(const KernelCall& c) {
  if (c.dry()) return Tensors{};
  Tensors outs;
  for (size_t k = 0; k < c.num_outputs(); ++k) {
    outs.push_back(at::zeros(c.out_shape(k), at::TensorOptions().dtype(ToScalarType(c.out_dtype(k)))));
  }
  return outs;
}

Result ViewOp(const KernelCall& c) {
  if (c.num_inputs() < 1 || c.num_outputs() < 1) return c.Error("a view reads one tensor");
  if (NumElements(c.in_shape(0)) != NumElements(c.out_shape(0))) {
    return c.Error("a view cannot change the element count");
  }
  if (c.dry()) return Tensors{};
  return Tensors{c.in(0).reshape(c.out_shape(0))};
}

// ---- Contractions -----------------------------------------------------------------

Result ConvOp(const KernelCall& c) {
  const bool transposed = c.op().kind == OpKind::kConvTranspose;
  if (c.num_inputs() < 2) return c.Error("a convolution reads an input and a weight");
  StatusOr<WindowPlan> plan = PlanConv(c.op(), c.in_shape(0), c.in_shape(1), c.out_shape(0), transposed);
  if (!plan.ok()) return c.Wrap(plan.status());
  const WindowPlan& p = *plan;
  const int64_t channels = c.out_shape(0)[1];
  const bool has_bias = c.num_inputs() >= 3 && NumElements(c.in_shape(2)) == channels;
  if (c.dry()) return Tensors{};
  const size_t n = p.kernel.size();
  const std::vector<int64_t> zeros(n, 0);
  at::Tensor bias = has_bias ? c.in(2).reshape({channels}) : at::Tensor();
  if (!transposed) {
    std::vector<int64_t> sym(n), eb(n), ee(n);
    for (size_t d = 0; d < n; ++d) {
      sym[d] = std::min(p.pad_begin[d], p.pad_end[d]);
      eb[d] = p.pad_begin[d] - sym[d];
      ee[d] = p.pad_end[d] - sym[d];
    }
    at::Tensor x = c.in(0);
    if (eb != zeros || ee != zeros) x = at::constant_pad_nd(x, AtenPads(eb, ee));
    return Tensors{at::convolution(x, c.in(1), bias, p.stride, sym, p.dilation, false, zeros, p.groups)};
  }
  at::Tensor full = at::convolution(c.in(0), c.in(1), {}, p.stride, zeros, p.dilation, true, zeros, p.groups);
  at::Tensor y = at::constant_pad_nd(full, Negated(AtenPads(p.pad_begin, p.pad_end)));
  if (has_bias) {
    std::vector<int64_t> view(c.out_shape(0).size(), 1);
    view[1] = channels;
    y = y + bias.reshape(view);
  }
  return Tensors{y};
}

Result MatMulOp(const KernelCall& c) {
  if (c.num_inputs() < 2) return c.Error("a matrix product reads two operands");
  StatusOr<MatMulPlan> plan = PlanMatMul(c.op(), c.in_shape(0), c.in_shape(1), c.out_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  const bool gemm = c.op().kind == OpKind::kGemm;
  if (gemm && c.num_inputs() >= 3 && !BroadcastsTo(c.in_shape(2), c.out_shape(0))) {
    return c.Error("Gemm's C does not broadcast to the output");
  }
  if (c.dry()) return Tensors{};
  at::Tensor a = plan->transpose_a ? c.in(0).transpose(-1, -2) : c.in(0);
  at::Tensor b = plan->transpose_b ? c.in(1).transpose(-1, -2) : c.in(1);
  at::Tensor y = at::matmul(a, b);
  if (gemm) {
    const double alpha = GetFloatAttr(c.op().attrs, "alpha", 1.0), beta = GetFloatAttr(c.op().attrs, "beta", 1.0);
    if (alpha != 1.0) y = y * alpha;
    if (c.num_inputs() >= 3) y = y + (beta == 1.0 ? c.in(2) : c.in(2) * beta);
  }
  return Tensors{y};
}

// ---- Elementwise -------------------------------------------------------------------

// How many leading inputs are data (broadcast to the output); the rest are parameters
// (ONNX Clip's bounds, Dropout's ratio, Trilu's k).
size_t DataInputs(const KernelCall& c) {
  const std::string t = OnnxType(c.op());
  switch (c.op().kind) {
    case OpKind::kClip:
    case OpKind::kDropout:
    case OpKind::kCast:
    case OpKind::kNot:
      return 1;
    case OpKind::kWhere:
      return t == "Trilu" ? 1 : 3;
    case OpKind::kAddN:
    case OpKind::kMax:
    case OpKind::kMin:
      return c.num_inputs();
    default:
      return CategoryOf(c.op().kind) == OpCategory::kElementwise ? std::min<size_t>(c.num_inputs(), 2) : 1;
  }
}

at::Tensor CompareOp(const KernelCall& c) {
  const Op& op = c.op();
  const std::string t = OnnxType(op);
  const at::Tensor& a = c.in(0);
  if (c.num_inputs() == 1) {
    if (t == "IsNaN") return at::isnan(a);
    if (t == "IsInf") return at::isinf(a);
    const std::string cmp = GetStringAttr(op.attrs, "comparison", "equal");
    if (cmp == "sequence_mask") {
      const int64_t maxlen = GetIntAttr(op.attrs, "maxlen", c.out_shape(0).empty() ? 1 : c.out_shape(0).back());
      const at::Tensor steps = at::arange(maxlen, at::TensorOptions().dtype(at::kLong));
      return steps.lt(a.to(at::kLong).reshape({-1, 1})).reshape(c.out_shape(0));
    }
    const at::Scalar v = GetFloatAttr(op.attrs, "value", static_cast<double>(GetIntAttr(op.attrs, "value", 0)));
    if (cmp == "greater") return a.gt(v);
    if (cmp == "greater_equal") return a.ge(v);
    if (cmp == "less") return a.lt(v);
    if (cmp == "less_equal") return a.le(v);
    if (cmp == "not_equal") return a.ne(v);
    return a.eq(v);
  }
  const at::Tensor& b = c.in(1);
  const std::string cmp = t.empty() ? GetStringAttr(op.attrs, "comparison", "equal") : t;
  if (cmp == "Less" || cmp == "less") return a.lt(b);
  if (cmp == "LessOrEqual" || cmp == "less_equal") return a.le(b);
  if (cmp == "Greater" || cmp == "greater") return a.gt(b);
  if (cmp == "GreaterOrEqual" || cmp == "greater_equal") return a.ge(b);
  if (cmp == "And") return at::logical_and(a, b);
  if (cmp == "Or") return at::logical_or(a, b);
  if (cmp == "Xor") return at::logical_xor(a, b);
  if (cmp == "BitwiseAnd") return Integral(a) ? at::bitwise_and(a, b) : at::logical_and(a, b);
  if (cmp == "BitwiseOr") return Integral(a) ? at::bitwise_or(a, b) : at::logical_or(a, b);
  if (cmp == "BitwiseXor") return Integral(a) ? at::bitwise_xor(a, b) : at::logical_xor(a, b);
  if (cmp == "not_equal") return a.ne(b);
  return a.eq(b);
}

Result ElementwiseOp(const KernelCall& c) {
  const Op& op = c.op();
  const std::string t = OnnxType(op);
  if (c.num_inputs() < 1) return c.Error("an elementwise op reads at least one tensor");
  const size_t data = DataInputs(c);
  const bool binary = op.kind == OpKind::kAdd || op.kind == OpKind::kSub || op.kind == OpKind::kMul ||
                      op.kind == OpKind::kDiv || op.kind == OpKind::kPow;
  if (binary && c.num_inputs() < 2) return c.Error("a binary op reads two tensors");
  if (op.kind == OpKind::kWhere && t != "Trilu" && c.num_inputs() < 3) return c.Error("Where reads a condition and two tensors");
  if (op.kind == OpKind::kWhere && t == "Trilu" && c.in_shape(0).size() < 2) return c.Error("Trilu needs a matrix");
  if (op.kind != OpKind::kCompare || c.num_inputs() > 1) GO_RETURN_IF_ERROR(CheckBroadcast(c, data));
  if (c.dry()) return Tensors{};
  const at::Tensor& x = c.in(0);
  auto alpha = [&](double fallback) { return GetFloatAttr(op.attrs, "alpha", fallback); };
  switch (op.kind) {
    case OpKind::kAdd: return Tensors{x + c.in(1)};
    case OpKind::kSub: return Tensors{x - c.in(1)};
    case OpKind::kMul: return Tensors{x * c.in(1)};
    case OpKind::kDiv: {
      at::Tensor b = c.in(1);
      const bool ints = Integral(x) && Integral(b);
      if (ints) b = at::where(b.eq(0), at::ones_like(b), b);  // random integers may be zero
      if (t == "Mod") return Tensors{GetIntAttr(op.attrs, "fmod", 0) != 0 ? at::fmod(x, b) : at::remainder(x, b)};
      return Tensors{ints ? at::div(x, b, "trunc") : x / b};
    }
    case OpKind::kPow: {
      at::Tensor e = c.in(1);
      if (Integral(x) && Integral(e)) e = e.clamp_min(0);
      return Tensors{at::pow(x, e)};
    }
    case OpKind::kMax:
    case OpKind::kMin:
    case OpKind::kAddN: {
      at::Tensor acc = x;
      for (size_t i = 1; i < c.num_inputs(); ++i) {
        acc = op.kind == OpKind::kMax ? at::maximum(acc, c.in(i))
              : op.kind == OpKind::kMin ? at::minimum(acc, c.in(i))
                                        : acc + c.in(i);
      }
      if (op.kind == OpKind::kAddN && t == "Mean") acc = acc / static_cast<double>(c.num_inputs());
      if (acc.sizes() != at::IntArrayRef(c.out_shape(0))) acc = acc.expand(c.out_shape(0));
      return Tensors{acc};
    }
    case OpKind::kNeg: return Tensors{-x};
    case OpKind::kAbs:
      if (t == "Sign") return Tensors{at::sign(x)};
      if (t == "Floor") return Tensors{at::floor(x)};
      if (t == "Ceil") return Tensors{at::ceil(x)};
      if (t == "Round") return Tensors{at::round(x)};
      return Tensors{at::abs(x)};
    case OpKind::kRelu:
      if (t == "ThresholdedRelu") return Tensors{at::where(x.gt(alpha(1.0)), x, at::zeros_like(x))};
      return Tensors{at::relu(x)};
    case OpKind::kLeakyRelu:
      if (t == "PRelu" && c.num_inputs() >= 2) return Tensors{at::where(x.ge(0), x, x * c.in(1))};
      if (t == "Elu") return Tensors{at::elu(x, alpha(1.0))};
      if (t == "Selu") return Tensors{at::selu(x)};
      if (t == "Celu") return Tensors{at::celu(x, alpha(1.0))};
      return Tensors{at::leaky_relu(x, alpha(0.01))};
    case OpKind::kSigmoid:
      if (t == "HardSigmoid") return Tensors{at::clamp(x * alpha(0.2) + GetFloatAttr(op.attrs, "beta", 0.5), 0.0, 1.0)};
      if (t == "HardSwish") return Tensors{at::hardswish(x)};
      if (t == "Softplus") return Tensors{at::softplus(x)};
      if (t == "Softsign") return Tensors{x / (at::abs(x) + 1.0)};
      return Tensors{at::sigmoid(x)};
    case OpKind::kTanh:
      if (t == "Sin") return Tensors{at::sin(x)};
      if (t == "Cos") return Tensors{at::cos(x)};
      if (t == "Tan") return Tensors{at::tan(x)};
      return Tensors{at::tanh(x)};
    case OpKind::kGelu:
      if (t == "Mish") return Tensors{at::mish(x)};
      return Tensors{at::gelu(x, GetStringAttr(op.attrs, "approximate", "none") == "tanh" ? "tanh" : "none")};
    case OpKind::kErf: return Tensors{at::erf(x)};
    case OpKind::kExp: return Tensors{at::exp(x)};
    case OpKind::kLog: return Tensors{at::log(x)};
    case OpKind::kSqrt: return Tensors{at::sqrt(x)};
    case OpKind::kReciprocal: return Tensors{at::reciprocal(x)};
    case OpKind::kClip: {
      c10::optional<at::Tensor> lo, hi;
      if (op.attrs.count("min")) lo = at::full({}, GetFloatAttr(op.attrs, "min", 0.0), x.options());
      if (op.attrs.count("max")) hi = at::full({}, GetFloatAttr(op.attrs, "max", 0.0), x.options());
      if (!lo && c.num_inputs() >= 2 && c.in(1).numel() == 1) lo = c.in(1).reshape({}).to(x.scalar_type());
      if (!hi && c.num_inputs() >= 3 && c.in(2).numel() == 1) hi = c.in(2).reshape({}).to(x.scalar_type());
      if (!lo && !hi) return Tensors{x};
      return Tensors{at::clamp(x, lo, hi)};
    }
    case OpKind::kWhere: {
      if (t == "Trilu") return Tensors{GetIntAttr(op.attrs, "upper", 1) != 0 ? at::triu(x) : at::tril(x)};
      const at::Tensor a = c.in(1);
      return Tensors{at::where(x.to(at::kBool), a, c.in(2).to(a.scalar_type()))};
    }
    case OpKind::kCompare: return Tensors{CompareOp(c)};
    case OpKind::kNot: return Tensors{x.scalar_type() == at::kBool || IsFloatingType(x.scalar_type()) ? at::logical_not(x) : at::bitwise_not(x)};
    case OpKind::kCast: return Tensors{x.to(ToScalarType(c.out_dtype(0)))};
    case OpKind::kDropout: {
      if (t == "Bernoulli") return Tensors{at::bernoulli(at::clamp(x.to(at::kFloat), 0.0, 1.0), OpGenerator(c.id, 0xbe))};
      const double rate = DropoutRate(op);
      const at::Tensor mask = DropoutMask(c.id, c.in_shape(0), rate);
      Tensors outs{x * mask.to(x.scalar_type()) * (1.0 / (1.0 - rate))};
      if (c.num_outputs() >= 2) outs.push_back(mask.to(at::kBool));
      return outs;
    }
    default:
      return c.Error("not an elementwise kind");
  }
}

// ---- Reductions and norms ----------------------------------------------------------

Result ReduceOp(const KernelCall& c) {
  const Op& op = c.op();
  const std::string t = OnnxType(op);
  if (c.num_inputs() < 1) return c.Error("a reduction reads a tensor");
  const Shape& xs = c.in_shape(0);
  const Shape& ys = c.out_shape(0);
  if (t == "NonZero") return ShapeComputeOp(c);  // data-dependent size: no values to compute
  if (t == "CumSum" || t == "Hardmax") {
    if (xs != ys) return c.Error(t + " keeps the shape");
    if (c.dry() || xs.empty()) return c.dry() ? Tensors{} : Tensors{c.in(0)};
    const int64_t axis = t == "CumSum" ? static_cast<int64_t>(xs.size()) - 1
                                       : std::max<int64_t>(NormalizeAxis(GetIntAttr(op.attrs, "axis", -1), xs.size()), 0);
    if (t == "CumSum") return Tensors{at::cumsum(c.in(0), axis)};
    return Tensors{at::one_hot(c.in(0).argmax(axis), xs[static_cast<size_t>(axis)]).movedim(-1, axis)};
  }
  if (t == "TopK") {
    const int64_t axis = NormalizeAxis(GetIntAttr(op.attrs, "axis", -1), xs.size());
    if (axis < 0 || ys.size() != xs.size()) return c.Error("TopK keeps the rank");
    if (c.dry()) return Tensors{};
    auto [values, indices] = at::topk(c.in(0), ys[static_cast<size_t>(axis)], axis, GetIntAttr(op.attrs, "largest", 1) != 0);
    return Tensors{values, indices};
  }
  StatusOr<ReducePlan> plan = PlanReduce(op, xs, ys);
  if (!plan.ok()) return c.Wrap(plan.status());
  if (c.dry()) return Tensors{};
  const at::Tensor& x = c.in(0);
  const std::vector<int64_t>& axes = plan->axes;
  const bool keep = plan->keepdims;
  if (axes.empty()) return Tensors{x};
  if (t == "ArgMax" || t == "ArgMin") {
    return Tensors{t == "ArgMax" ? x.argmax(axes[0], keep) : x.argmin(axes[0], keep)};
  }
  switch (op.kind) {
    case OpKind::kReduceMean: return Tensors{x.mean(axes, keep)};
    case OpKind::kReduceMax: return Tensors{t == "ReduceMin" ? x.amin(axes, keep) : x.amax(axes, keep)};
    default: break;
  }
  if (t == "ReduceSumSquare") return Tensors{(x * x).sum(axes, keep)};
  if (t == "ReduceL1") return Tensors{at::abs(x).sum(axes, keep)};
  if (t == "ReduceL2") return Tensors{(x * x).sum(axes, keep).sqrt()};
  if (t == "ReduceLogSum") return Tensors{x.sum(axes, keep).log()};
  if (t == "ReduceLogSumExp") return Tensors{at::logsumexp(x, axes, keep)};
  if (t == "ReduceProd") {
    at::Tensor r = x;
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) r = r.prod(*it, keep);
    return Tensors{r};
  }
  return Tensors{x.sum(axes, keep)};
}

Result SoftmaxOp(const KernelCall& c) {
  if (c.num_inputs() < 1) return c.Error("softmax reads a tensor");
  StatusOr<SoftmaxPlan> plan = PlanSoftmax(*c.graph, c.op(), c.in_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  if (c.dry()) return Tensors{};
  const bool log = c.op().kind == OpKind::kLogSoftmax;
  at::Tensor x = c.in(0);
  if (x.dim() == 0) return Tensors{log ? at::zeros_like(x) : at::ones_like(x)};
  if (plan->coerce_2d) {
    const at::Tensor x2 = x.reshape({NumElements(Shape(c.in_shape(0).begin(), c.in_shape(0).begin() + plan->axis)), -1});
    return Tensors{(log ? at::log_softmax(x2, 1) : at::softmax(x2, 1)).reshape(x.sizes())};
  }
  return Tensors{log ? at::log_softmax(x, plan->axis) : at::softmax(x, plan->axis)};
}

// ONNX normalizations that share the LayerNorm kind.
Result OtherNormOp(const KernelCall& c, const std::string& t) {
  const Op& op = c.op();
  const Shape& xs = c.in_shape(0);
  const double eps = GetFloatAttr(op.attrs, "epsilon", 1e-5);
  if ((t == "InstanceNormalization" || t == "GroupNormalization" || t == "LRN") && xs.size() < 3) {
    return c.Error(t + " needs an input [N, C, spatial...]");
  }
  if (c.dry()) return Tensors{};
  const at::Tensor& x = c.in(0);
  if (t == "InstanceNormalization" || t == "GroupNormalization") {
    const int64_t channels = xs[1];
    const int64_t groups = t == "InstanceNormalization" ? channels : std::max<int64_t>(GetIntAttr(op.attrs, "num_groups", 1), 1);
    if (channels % groups != 0) return c.Error("the groups do not divide the channels");
    // A scale per group (GroupNormalization before opset 21) is repeated per channel.
    auto per_channel = [&](size_t i) -> c10::optional<at::Tensor> {
      if (c.num_inputs() <= i || c.in(i).numel() == 0 || channels % c.in(i).numel() != 0) return c10::nullopt;
      return c.in(i).reshape({-1}).repeat_interleave(channels / c.in(i).numel());
    };
    const c10::optional<at::Tensor> w = per_channel(1), b = per_channel(2);
    return Tensors{at::group_norm(x, groups, w, b, eps)};
  }
  if (t == "MeanVarianceNormalization") {
    std::vector<int64_t> axes = GetIntsAttr(op.attrs, "axes", {0, 2, 3});
    for (int64_t& a : axes) a = NormalizeAxis(a, xs.size());
    axes.erase(std::remove(axes.begin(), axes.end(), -1), axes.end());
    if (axes.empty()) return Tensors{x};
    const at::Tensor mean = x.mean(axes, true);
    return Tensors{(x - mean) / ((x - mean).pow(2).mean(axes, true) + 1e-9).sqrt()};
  }
  if (t == "LpNormalization") {
    const int64_t axis = std::max<int64_t>(NormalizeAxis(GetIntAttr(op.attrs, "axis", -1), xs.size()), 0);
    return Tensors{x / at::norm(x, at::Scalar(GetIntAttr(op.attrs, "p", 2)), {axis}, true).clamp_min(1e-12)};
  }
  // LRN: x / (bias + alpha / size * sum of squares over `size` neighbouring channels)^beta.
  const int64_t size = std::max<int64_t>(GetIntAttr(op.attrs, "size", 1), 1);
  const at::Tensor sq = at::constant_pad_nd((x * x).flatten(2), {0, 0, (size - 1) / 2, size - 1 - (size - 1) / 2});
  const at::Tensor cs = at::cat({at::zeros_like(sq.narrow(1, 0, 1)), sq.cumsum(1)}, 1);
  const at::Tensor window = (cs.narrow(1, size, xs[1]) - cs.narrow(1, 0, xs[1])).reshape(x.sizes());
  const double a = GetFloatAttr(op.attrs, "alpha", 1e-4), beta = GetFloatAttr(op.attrs, "beta", 0.75);
  return Tensors{x / (window * (a / static_cast<double>(size)) + GetFloatAttr(op.attrs, "bias", 1.0)).pow(beta)};
}

Result LayerNormOp(const KernelCall& c) {
  const Op& op = c.op();
  if (c.num_inputs() < 1) return c.Error("a norm reads a tensor");
  const std::string t = OnnxType(op);
  if (!t.empty() && t != "LayerNormalization") return OtherNormOp(c, t);
  const Shape& xs = c.in_shape(0);
  StatusOr<int64_t> axis = PlanLayerNormAxis(op, xs, c.num_inputs() >= 2 ? &c.in_shape(1) : nullptr);
  if (!axis.ok()) return c.Wrap(axis.status());
  const Shape normalized(xs.begin() + *axis, xs.end());
  for (size_t i = 1; i < std::min<size_t>(c.num_inputs(), 3); ++i) {
    if (NumElements(c.in_shape(i)) != NumElements(normalized)) {
      return c.Error("the scale and bias must have the normalized dims' size " + ShapeToString(normalized));
    }
  }
  if (c.dry()) return Tensors{};
  c10::optional<at::Tensor> w, b;
  if (c.num_inputs() >= 2) w = c.in(1).reshape(normalized);
  if (c.num_inputs() >= 3) b = c.in(2).reshape(normalized);
  const double eps = GetFloatAttr(op.attrs, "epsilon", 1e-5);
  if (c.num_outputs() == 1) return Tensors{at::layer_norm(c.in(0), normalized, w, b, eps)};
  auto [y, mean, rstd] = at::native_layer_norm(c.in(0), normalized, w, b, eps);
  return Tensors{y, mean, rstd};
}

Result BatchNormOp(const KernelCall& c) {
  const Op& op = c.op();
  const Shape& xs = c.in_shape(0);
  if (c.num_inputs() < 1 || xs.size() < 2) return c.Error("batch norm needs an input [N, C, ...]");
  const int64_t channels = xs[1];
  for (size_t i = 1; i < c.num_inputs(); ++i) {
    if (NumElements(c.in_shape(i)) != channels) return c.Error("batch norm's parameters must have C elements");
  }
  if (c.dry()) return Tensors{};
  c10::optional<at::Tensor> w, b;
  if (c.num_inputs() >= 2) w = c.in(1).reshape({channels});
  if (c.num_inputs() >= 3) b = c.in(2).reshape({channels});
  const double eps = GetFloatAttr(op.attrs, "epsilon", 1e-5);
  const double momentum = GetFloatAttr(op.attrs, "momentum", 0.9);  // ONNX: weight of the running value
  // Training mode: the batch's statistics; the running statistics (ONNX inputs 3, 4)
  // only feed the running outputs.
  auto [y, mean, invstd] = at::native_batch_norm(c.in(0), w, b, {}, {}, true, 0.0, eps);
  Tensors outs{y};
  if (c.num_outputs() >= 2 && c.num_inputs() >= 5) {
    const at::Tensor var = invstd.pow(-2) - eps;
    outs.push_back(c.in(3).reshape({channels}) * momentum + mean * (1.0 - momentum));
    outs.push_back(c.in(4).reshape({channels}) * momentum + var * (1.0 - momentum));
  }
  for (size_t k = outs.size(); k < c.num_outputs(); ++k) outs.push_back(k == 1 ? mean : invstd);
  return outs;
}

// ---- Pooling ---------------------------------------------------------------------

Result PoolOp(const KernelCall& c) {
  const Op& op = c.op();
  const std::string t = OnnxType(op);
  if (c.num_inputs() < 1) return c.Error("a pool reads a tensor");
  const Shape& xs = c.in_shape(0);
  if (op.kind == OpKind::kGlobalAvgPool) {
    if (xs.size() < 2 || NumElements(c.out_shape(0)) != xs[0] * xs[1]) return c.Error("a global pool gives [N, C, 1, ...]");
    if (c.dry()) return Tensors{};
    std::vector<int64_t> dims;
    for (int64_t d = 2; d < static_cast<int64_t>(xs.size()); ++d) dims.push_back(d);
    if (dims.empty()) return Tensors{c.in(0)};
    if (t == "GlobalMaxPool") return Tensors{c.in(0).amax(dims, true)};
    if (t == "GlobalLpPool") return Tensors{at::norm(c.in(0), at::Scalar(GetIntAttr(op.attrs, "p", 2)), dims, true)};
    return Tensors{c.in(0).mean(dims, true)};
  }
  StatusOr<WindowPlan> plan = PlanPool(op, xs, c.out_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  const size_t n = xs.size() - 2;
  if (n > 3) return c.Error("pooling over more than 3 spatial dims");
  if (c.dry()) return Tensors{};
  const bool max = op.kind == OpKind::kMaxPool;
  const WindowPlan& p = *plan;
  at::Tensor x = c.in(0);
  const Shape& ys = c.out_shape(0);
  const std::vector<int64_t> out_size(ys.begin() + 2, ys.end());
  if (p.adaptive) {
    if (max) {
      auto r = n == 1 ? at::adaptive_max_pool1d(x, out_size) : n == 2 ? at::adaptive_max_pool2d(x, out_size) : at::adaptive_max_pool3d(x, out_size);
      return Tensors{std::get<0>(r), std::get<1>(r)};
    }
    return Tensors{n == 1 ? at::adaptive_avg_pool1d(x, out_size) : n == 2 ? at::adaptive_avg_pool2d(x, out_size) : at::adaptive_avg_pool3d(x, out_size)};
  }
  // Padding ATen cannot express (uneven, or over half the window) is added explicitly.
  std::vector<int64_t> pad(n, 0);
  bool explicit_pad = !p.symmetric();
  for (size_t d = 0; d < n; ++d) {
    explicit_pad |= p.pad_begin[d] * 2 > p.dilation[d] * (p.kernel[d] - 1) + 1;
  }
  if (explicit_pad) {
    x = at::constant_pad_nd(x, AtenPads(p.pad_begin, p.pad_end), max ? -std::numeric_limits<double>::infinity() : 0.0);
  } else {
    pad = p.pad_begin;
  }
  std::vector<int64_t> k = p.kernel, s = p.stride, dil = p.dilation;
  if (n == 1) {  // as 2-D with a window of height 1
    x = x.unsqueeze(2);
    k.insert(k.begin(), 1);
    s.insert(s.begin(), 1);
    dil.insert(dil.begin(), 1);
    pad.insert(pad.begin(), 0);
  }
  at::Tensor y, indices;
  if (max) {
    std::tie(y, indices) = n == 3 ? at::max_pool3d_with_indices(x, k, s, pad, dil) : at::max_pool2d_with_indices(x, k, s, pad, dil);
  } else {
    const bool include_pad = GetIntAttr(op.attrs, "count_include_pad", 0) != 0;
    if (t == "LpPool") {
      const double pw = static_cast<double>(GetIntAttr(op.attrs, "p", 2));
      const at::Tensor xp = at::abs(x).pow(pw);
      const double window = static_cast<double>(NumElements(k));
      y = (n == 3 ? at::avg_pool3d(xp, k, s, pad, false, true) : at::avg_pool2d(xp, k, s, pad, false, true)) * window;
      y = y.pow(1.0 / pw);
    } else {
      y = n == 3 ? at::avg_pool3d(x, k, s, pad, false, include_pad) : at::avg_pool2d(x, k, s, pad, false, include_pad);
    }
  }
  if (n == 1) {
    y = y.squeeze(2);
    if (indices.defined()) indices = indices.squeeze(2);
  }
  return indices.defined() ? Tensors{y, indices} : Tensors{y};
}

Result Dispatch(const KernelCall& c) {
  switch (c.op().kind) {
    case OpKind::kShape: return ShapeOp(c);
    case OpKind::kShapeCompute: return ShapeComputeOp(c);
    case OpKind::kReshape:
    case OpKind::kIdentity:
    case OpKind::kStopGradient: return ViewOp(c);
    case OpKind::kConv:
    case OpKind::kConvTranspose: return ConvOp(c);
    case OpKind::kMatMul:
    case OpKind::kBatchMatMul:
    case OpKind::kGemm: return MatMulOp(c);
    case OpKind::kLSTM:
    case OpKind::kGRU:
    case OpKind::kRNN:
    case OpKind::kLSTMCell:
    case OpKind::kGRUCell: return RecurrentForward(c);
    case OpKind::kReduceSum:
    case OpKind::kReduceMean:
    case OpKind::kReduceMax: return ReduceOp(c);
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax: return SoftmaxOp(c);
    case OpKind::kLayerNorm: return LayerNormOp(c);
    case OpKind::kBatchNorm: return BatchNormOp(c);
    case OpKind::kMaxPool:
    case OpKind::kAvgPool:
    case OpKind::kGlobalAvgPool: return PoolOp(c);
    case OpKind::kConcat:
    case OpKind::kSplit:
    case OpKind::kSlice:
    case OpKind::kGather:
    case OpKind::kTranspose:
    case OpKind::kPad:
    case OpKind::kExpand:
    case OpKind::kScatterAdd:
    case OpKind::kSoftmaxCrossEntropy: return DataMovementForward(c);
    case OpKind::kGeneric: return c.dry() ? Result(Tensors{}) : Result(SurrogateForward(c));
    default:
      if (CategoryOf(c.op().kind) == OpCategory::kElementwise) return ElementwiseOp(c);
      return c.Error("no forward kernel for this kind");
  }
}

}  // namespace

bool RunsSurrogate(const Graph& graph, OpId op) {
  if (graph.op(op).kind == OpKind::kGeneric) return true;
  if (!IsProfileGraph(graph)) return false;
  const KernelCall dry{&graph, op, nullptr, nullptr};
  return !Dispatch(dry).ok();
}

StatusOr<Tensors> RunForward(const KernelCall& c) {
  StatusOr<Tensors> r = Dispatch(c);
  if (r.ok() && !c.dry()) r = FitOutputs(c, *r);
  if (r.ok() || !IsProfileGraph(*c.graph)) return r;
  // A profile's tensors are 1-D of the profiled bytes: where the kind's shape rules do
  // not hold, a surrogate reads and writes the same bytes.
  if (c.dry()) return Tensors{};
  return FitOutputs(c, SurrogateForward(c));
}

}  // namespace exec_kernels
}  // namespace graphopt
