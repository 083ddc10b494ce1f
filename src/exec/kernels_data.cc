// Data movement (concat, split, slice, gather, transpose, pad, expand and its ONNX
// relatives, scatter) and the softmax cross-entropy loss: forward kernels (as in
// kernels_forward.cc: plan first, nothing computed in a dry run, functional ATen ops)
// and gradients (see kernels_backward.cc for which are exact).
#include <algorithm>
#include <limits>

#include "exec/kernels_impl.h"

namespace graphopt {
namespace exec_kernels {
namespace {

using Result = StatusOr<Tensors>;

// True if `in` broadcasts to `out` (NumPy rules).
bool BroadcastsTo(const Shape& in, const Shape& out) {
  if (in.size() > out.size()) return false;
  const size_t off = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) {
    if (in[d] != out[off + d] && in[d] != 1) return false;
  }
  return true;
}

// ---- Data movement ---------------------------------------------------------------

Result ConcatOp(const KernelCall& c) {
  std::vector<Shape> xs;
  for (size_t i = 0; i < c.num_inputs(); ++i) xs.push_back(c.in_shape(i));
  if (xs.empty()) return c.Error("a concat reads at least one tensor");
  StatusOr<ConcatPlan> plan = PlanConcat(c.op(), xs, c.out_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  if (c.dry()) return Tensors{};
  const at::ScalarType type = ToScalarType(c.out_dtype(0));
  std::vector<at::Tensor> parts;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    at::Tensor x = c.in(i).scalar_type() == type ? c.in(i) : c.in(i).to(type);
    parts.push_back(plan->flat ? x.flatten() : x);
  }
  return Tensors{at::cat(parts, plan->flat ? 0 : plan->axis)};
}

Result SplitOp(const KernelCall& c) {
  if (c.num_inputs() < 1) return c.Error("a split reads a tensor");
  std::vector<Shape> ys;
  for (size_t k = 0; k < c.num_outputs(); ++k) ys.push_back(c.out_shape(k));
  StatusOr<ConcatPlan> plan = PlanSplit(c.op(), c.in_shape(0), ys);
  if (!plan.ok()) return c.Wrap(plan.status());
  if (c.dry()) return Tensors{};
  std::vector<int64_t> sizes;
  for (const Shape& y : ys) sizes.push_back(plan->flat ? NumElements(y) : y[static_cast<size_t>(plan->axis)]);
  const at::Tensor x = plan->flat ? c.in(0).flatten() : c.in(0);
  return Tensors(x.split_with_sizes(sizes, plan->flat ? 0 : plan->axis));
}

Result SliceOp(const KernelCall& c) {
  if (c.num_inputs() < 1) return c.Error("a slice reads a tensor");
  StatusOr<std::vector<SliceDim>> plan = PlanSliceInGraph(*c.graph, c.id);
  if (!plan.ok()) return c.Wrap(plan.status());
  if (c.dry()) return Tensors{};
  at::Tensor y = c.in(0);
  for (const SliceDim& d : *plan) y = y.slice(d.dim, d.start, d.start + std::max<int64_t>(d.length - 1, 0) * d.step + (d.length > 0 ? 1 : 0), d.step);
  return Tensors{y};
}

// Linear row indices of GatherND/ScatterND indices [..., k] into the first k dims of `shape`.
at::Tensor LinearIndex(const at::Tensor& indices, const Shape& shape) {
  const int64_t k = indices.size(-1);
  at::Tensor lin = at::zeros(indices.sizes().slice(0, indices.dim() - 1), indices.options().dtype(at::kLong));
  for (int64_t j = 0; j < k; ++j) {
    lin = lin * shape[static_cast<size_t>(j)] + indices.select(-1, j).to(at::kLong).remainder(shape[static_cast<size_t>(j)]);
  }
  return lin.flatten();
}

Result GatherOp(const KernelCall& c) {
  if (c.num_inputs() < 2) return c.Error("a gather reads data and indices");
  const Shape& ds = c.in_shape(0);
  if (IsFloating(c.in_dtype(1))) return c.Error("the indices are not integers");
  StatusOr<GatherPlan> plan = PlanGather(c.op(), ds, c.in_shape(1), c.out_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  if (plan->axis >= 0 && ds[static_cast<size_t>(plan->axis)] == 0) return c.Error("gathering from an empty dim");
  if (c.dry()) return Tensors{};
  const at::Tensor& data = c.in(0);
  const at::Tensor idx = c.in(1).to(at::kLong);
  switch (plan->mode) {
    case GatherPlan::kElements:
      return Tensors{at::gather(data, plan->axis, idx.remainder(ds[static_cast<size_t>(plan->axis)]))};
    case GatherPlan::kNd: {
      const int64_t k = idx.size(-1);
      const Shape rest(ds.begin() + k, ds.end());
      std::vector<int64_t> rows{NumElements(Shape(ds.begin(), ds.begin() + k))};
      rows.insert(rows.end(), rest.begin(), rest.end());
      return Tensors{data.reshape(rows).index_select(0, LinearIndex(idx, ds))};
    }
    case GatherPlan::kCompress: {
      // The kept count is data-dependent: the first ones along the axis.
      const at::Tensor src = plan->axis < 0 ? data.flatten() : data;
      const int64_t axis = std::max<int64_t>(plan->axis, 0);
      return Tensors{src.narrow(axis, 0, c.out_shape(0)[static_cast<size_t>(axis)])};
    }
    case GatherPlan::kTake:
      break;
  }
  const at::Tensor rows = idx.flatten().remainder(ds[static_cast<size_t>(plan->axis)]);
  return Tensors{at::index_select(data, plan->axis, rows)};
}

Result TransposeOp(const KernelCall& c) {
  if (c.num_inputs() < 1) return c.Error("a transpose reads a tensor");
  const std::string t = OnnxType(c.op());
  const Shape& xs = c.in_shape(0);
  const Shape& ys = c.out_shape(0);
  if (t == "DepthToSpace" || t == "SpaceToDepth") {
    const int64_t b = GetIntAttr(c.op().attrs, "blocksize", 1);
    const bool to_space = t == "DepthToSpace";
    if (xs.size() != 4 || b < 1 || (to_space && xs[1] % (b * b) != 0) || (!to_space && (xs[2] % b || xs[3] % b))) {
      return c.Error(t + " needs [N, C, H, W] divisible by the block size");
    }
    if (c.dry()) return Tensors{};
    const at::Tensor& x = c.in(0);
    const int64_t n = xs[0], ch = xs[1], h = xs[2], w = xs[3];
    if (!to_space) return Tensors{x.reshape({n, ch, h / b, b, w / b, b}).permute({0, 3, 5, 1, 2, 4})};
    if (GetStringAttr(c.op().attrs, "mode", "DCR") == "CRD") {
      return Tensors{x.reshape({n, ch / (b * b), b, b, h, w}).permute({0, 1, 4, 2, 5, 3})};
    }
    return Tensors{x.reshape({n, b, b, ch / (b * b), h, w}).permute({0, 3, 4, 1, 5, 2})};
  }
  if (t == "ReverseSequence") {
    if (xs != ys || xs.empty()) return c.Error("ReverseSequence keeps the shape");
    if (c.dry()) return Tensors{};
    const int64_t axis = std::max<int64_t>(NormalizeAxis(GetIntAttr(c.op().attrs, "time_axis", 0), xs.size()), 0);
    return Tensors{c.in(0).flip({axis})};  // every sequence taken at full length
  }
  StatusOr<std::vector<int64_t>> perm = PlanTranspose(c.op(), xs, ys);
  if (!perm.ok()) return c.Wrap(perm.status());
  if (c.dry()) return Tensors{};
  return Tensors{c.in(0).permute(*perm)};
}

Result PadOp(const KernelCall& c) {
  if (c.num_inputs() < 1) return c.Error("a pad reads a tensor");
  StatusOr<PadPlan> plan = PlanPad(c.op(), c.in_shape(0), c.out_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  if (c.dry()) return Tensors{};
  const size_t r = c.in_shape(0).size();
  if (plan->mode != "constant" && r >= 3 && r <= 5) {
    bool leading = false;
    for (size_t d = 0; d < 2; ++d) leading |= plan->begin[d] != 0 || plan->end[d] != 0;
    if (!leading) {
      const std::vector<int64_t> b(plan->begin.begin() + 2, plan->begin.end()), e(plan->end.begin() + 2, plan->end.end());
      return Tensors{at::pad(c.in(0), AtenPads(b, e), plan->mode)};
    }
  }
  return Tensors{at::constant_pad_nd(c.in(0), AtenPads(plan->begin, plan->end))};
}

Result ExpandOp(const KernelCall& c) {
  const Op& op = c.op();
  const std::string t = OnnxType(op);
  const Shape& ys = c.out_shape(0);
  const at::TensorOptions out_options = at::TensorOptions().dtype(ToScalarType(c.out_dtype(0)));
  if (t == "ConstantOfShape" || t == "Range" || t.rfind("Random", 0) == 0) {
    if (c.dry()) return Tensors{};
    if (t == "ConstantOfShape") return Tensors{at::zeros(ys, out_options)};
    if (t == "Range") return Tensors{at::arange(NumElements(ys), at::TensorOptions().dtype(at::kDouble)).reshape(ys)};
    at::Tensor r = at::empty(ys, at::TensorOptions().dtype(at::kFloat));
    at::Generator gen = OpGenerator(c.id, 0x7a);
    if (t.find("Normal") != std::string::npos) {
      r.normal_(GetFloatAttr(op.attrs, "mean", 0.0), GetFloatAttr(op.attrs, "scale", 1.0), gen);
    } else {
      r.uniform_(GetFloatAttr(op.attrs, "low", 0.0), GetFloatAttr(op.attrs, "high", 1.0), gen);
    }
    return Tensors{r};
  }
  if (c.num_inputs() < 1) return c.Error("an expand reads a tensor");
  const Shape& xs = c.in_shape(0);
  if (t == "OneHot") {
    const int64_t axis = NormalizeAxis(GetIntAttr(op.attrs, "axis", -1), ys.size());
    if (axis < 0 || ys.size() != xs.size() + 1) return c.Error("OneHot adds one dim");
    if (c.dry()) return Tensors{};
    const int64_t depth = ys[static_cast<size_t>(axis)];
    return Tensors{at::one_hot(c.in(0).to(at::kLong).remainder(std::max<int64_t>(depth, 1)), depth).movedim(-1, axis)};
  }
  if (t == "Resize" || t == "Upsample") {
    if (xs.size() != ys.size()) return c.Error(t + " keeps the rank");
    if (c.dry()) return Tensors{};
    const std::string mode = GetStringAttr(op.attrs, "mode", "nearest");
    const bool spatial_only = xs.size() >= 3 && xs[0] == ys[0] && xs[1] == ys[1];
    const std::vector<int64_t> size(ys.begin() + std::min<size_t>(2, ys.size()), ys.end());
    at::Tensor x = c.in(0).to(at::kFloat);
    if (spatial_only && (mode == "linear" || mode == "bilinear")) {
      if (xs.size() == 3) return Tensors{at::upsample_linear1d(x, size, false)};
      if (xs.size() == 4) return Tensors{at::upsample_bilinear2d(x, size, false)};
      if (xs.size() == 5) return Tensors{at::upsample_trilinear3d(x, size, false)};
    }
    if (spatial_only && (mode == "cubic" || mode == "bicubic") && xs.size() == 4) {
      return Tensors{at::upsample_bicubic2d(x, size, false)};
    }
    at::Tensor y = c.in(0);  // nearest: index every resized dim
    for (size_t d = 0; d < xs.size(); ++d) {
      if (xs[d] == ys[d]) continue;
      const at::Tensor idx = at::div(at::arange(ys[d], at::TensorOptions().dtype(at::kLong)) * xs[d], ys[d], "floor");
      y = y.index_select(static_cast<int64_t>(d), idx);
    }
    return Tensors{y};
  }
  const bool tile_fits = xs.size() == ys.size() && [&] {
    for (size_t d = 0; d < xs.size(); ++d) {
      if (xs[d] == 0 || ys[d] % xs[d] != 0) return false;
    }
    return true;
  }();
  if (t == "Tile" || !BroadcastsTo(xs, ys) || xs.size() > ys.size()) {
    if (!tile_fits) return c.Error("the output is neither a broadcast nor a tiling of the input");
    if (c.dry()) return Tensors{};
    std::vector<int64_t> reps;
    for (size_t d = 0; d < xs.size(); ++d) reps.push_back(ys[d] / xs[d]);
    return Tensors{c.in(0).repeat(reps)};
  }
  if (c.dry()) return Tensors{};
  return Tensors{c.in(0).expand(ys)};
}

Result ScatterOp(const KernelCall& c) {
  const Op& op = c.op();
  if (c.num_inputs() < 3) return c.Error("a scatter reads data, indices and updates");
  const Shape& ds = c.in_shape(0);
  const Shape& is = c.in_shape(1);
  const Shape& us = c.in_shape(2);
  const std::string reduction = GetStringAttr(op.attrs, "reduction", OnnxType(op).empty() ? "add" : "none");
  const bool nd = OnnxType(op) == "ScatterND";
  if (IsFloating(c.in_dtype(1))) return c.Error("the indices are not integers");
  if (nd) {
    if (is.empty() || is.back() > static_cast<int64_t>(ds.size())) return c.Error("ScatterND indexes more dims than the data has");
    Shape want(is.begin(), is.end() - 1);
    want.insert(want.end(), ds.begin() + is.back(), ds.end());
    if (want != us) return c.Error("ScatterND's updates do not match its indices");
  } else if (is != us || is.size() != ds.size()) {
    return c.Error("the indices and updates must have one shape of the data's rank");
  }
  const int64_t axis = NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), ds.size());
  if (!nd && axis < 0) return c.Error("the axis is out of range");
  if (c.dry()) return Tensors{};
  const at::Tensor& data = c.in(0);
  const at::Tensor upd = c.in(2).to(data.scalar_type());
  const bool add = reduction == "add";
  if (nd) {
    const int64_t k = is.back();
    std::vector<int64_t> rows{NumElements(Shape(ds.begin(), ds.begin() + k))};
    rows.insert(rows.end(), ds.begin() + k, ds.end());
    const at::Tensor lin = LinearIndex(c.in(1), ds);
    std::vector<int64_t> upd_rows{lin.numel()};
    upd_rows.insert(upd_rows.end(), ds.begin() + k, ds.end());
    c10::List<c10::optional<at::Tensor>> index;
    index.push_back(lin);
    return Tensors{data.reshape(rows).index_put(index, upd.reshape(upd_rows), add).reshape(ds)};
  }
  const at::Tensor idx = c.in(1).to(at::kLong).remainder(std::max<int64_t>(ds[static_cast<size_t>(axis)], 1));
  return Tensors{add ? at::scatter_add(data, axis, idx, upd) : at::scatter(data, axis, idx, upd)};
}

// ---- Loss ------------------------------------------------------------------------

Result CrossEntropyOp(const KernelCall& c) {
  const Op& op = c.op();
  if (c.num_inputs() < 2) return c.Error("a cross-entropy reads logits and labels");
  StatusOr<CrossEntropyPlan> plan = PlanCrossEntropy(op, c.in_shape(0), c.in_shape(1), c.out_shape(0));
  if (!plan.ok()) return c.Wrap(plan.status());
  if (!plan->soft_labels && IsFloating(c.in_dtype(1))) return c.Error("the labels are not integers");
  if (c.dry()) return Tensors{};
  const int64_t axis = plan->class_axis;
  const at::Tensor x = c.in(0).movedim(axis, -1);
  const int64_t classes = x.size(-1);
  const at::Tensor logp = OnnxType(op) == "NegativeLogLikelihoodLoss" ? x : at::log_softmax(x, -1);
  at::Tensor per;
  if (plan->soft_labels) {
    per = -(c.in(1).movedim(axis, -1).to(logp.scalar_type()) * logp).sum(-1);
  } else {
    const at::Tensor labels = c.in(1).to(at::kLong).remainder(std::max<int64_t>(classes, 1));
    per = -logp.gather(-1, labels.unsqueeze(-1)).squeeze(-1);
  }
  at::Tensor loss = plan->reduction == "mean" ? per.mean() : plan->reduction == "sum" ? per.sum() : per;
  if (c.num_outputs() < 2) return Tensors{loss};
  return Tensors{loss, logp.movedim(-1, axis)};
}

// ---- Data movement and the loss ---------------------------------------------------

StatusOr<at::Tensor> MovementGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  const std::string t = OnnxType(f);
  const Shape& xs = gc.x_shape();
  const size_t i = gc.input;
  switch (f.kind) {
    case OpKind::kConcat: {
      std::vector<Shape> shapes;
      for (size_t j = 0; j < f.inputs.size(); ++j) shapes.push_back(gc.fin_shape(j));
      StatusOr<ConcatPlan> plan = PlanConcat(f, shapes, gc.fout_shape(0));
      if (!plan.ok()) return gc.call->Wrap(plan.status());
      int64_t offset = 0;
      for (size_t j = 0; j < i; ++j) offset += plan->flat ? NumElements(shapes[j]) : shapes[j][static_cast<size_t>(plan->axis)];
      if (plan->flat) return gc.Dy().flatten().narrow(0, offset, NumElements(xs));
      return gc.Dy().narrow(plan->axis, offset, xs[static_cast<size_t>(plan->axis)]);
    }
    case OpKind::kSplit: {
      std::vector<Shape> shapes;
      for (size_t k = 0; k < f.outputs.size(); ++k) shapes.push_back(gc.fout_shape(k));
      StatusOr<ConcatPlan> plan = PlanSplit(f, xs, shapes);
      if (!plan.ok()) return gc.call->Wrap(plan.status());
      std::vector<at::Tensor> parts;
      for (size_t k = 0; k < f.outputs.size(); ++k) parts.push_back(plan->flat ? gc.Dy(k).flatten() : gc.Dy(k));
      return at::cat(parts, plan->flat ? 0 : plan->axis);
    }
    case OpKind::kSlice: {
      StatusOr<std::vector<SliceDim>> plan = PlanSliceInGraph(gc.g(), gc.fid);
      if (!plan.ok()) return gc.call->Wrap(plan.status());
      at::Tensor dx = gc.Zeros();
      at::Tensor view = dx;
      for (const SliceDim& d : *plan) view = view.slice(d.dim, d.start, d.start + std::max<int64_t>(d.length - 1, 0) * d.step + (d.length > 0 ? 1 : 0), d.step);
      view.copy_(gc.Dy().reshape(view.sizes()));
      return dx;
    }
    case OpKind::kGather: {
      if (i != 0) return gc.Zeros();
      StatusOr<GatherPlan> plan = PlanGather(f, xs, gc.fin_shape(1), gc.fout_shape(0));
      if (!plan.ok()) return gc.call->Wrap(plan.status());
      if (!gc.fin[1].defined()) return gc.Missing("the indices");
      const at::Tensor idx = gc.fin[1].to(at::kLong);
      const at::Tensor dy = gc.Dy();
      at::Tensor dx = at::zeros(xs, dy.options());
      if (plan->mode == GatherPlan::kElements) return dx.scatter_add(plan->axis, idx.remainder(xs[static_cast<size_t>(plan->axis)]), dy);
      if (plan->mode == GatherPlan::kCompress) {
        const int64_t axis = std::max<int64_t>(plan->axis, 0);
        at::Tensor flat = plan->axis < 0 ? dx.view({-1}) : dx;
        flat.narrow(axis, 0, gc.fout_shape(0)[static_cast<size_t>(axis)]).copy_(dy.reshape(gc.fout_shape(0)));
        return dx;
      }
      if (plan->mode == GatherPlan::kNd) return ViaAutograd(gc);
      const size_t a = static_cast<size_t>(plan->axis);
      Shape rows(xs.begin(), xs.begin() + static_cast<int64_t>(a));
      rows.push_back(idx.numel());
      rows.insert(rows.end(), xs.begin() + static_cast<int64_t>(a) + 1, xs.end());
      return dx.index_add(plan->axis, idx.flatten().remainder(xs[a]), dy.reshape(rows));
    }
    case OpKind::kTranspose: {
      if (!t.empty()) return ViaAutograd(gc);
      StatusOr<std::vector<int64_t>> perm = PlanTranspose(f, xs, gc.fout_shape(0));
      if (!perm.ok()) return gc.call->Wrap(perm.status());
      std::vector<int64_t> inverse(perm->size());
      for (size_t d = 0; d < perm->size(); ++d) inverse[static_cast<size_t>((*perm)[d])] = static_cast<int64_t>(d);
      return gc.Dy().permute(inverse);
    }
    case OpKind::kPad: {
      if (i != 0) return gc.Zeros();
      StatusOr<PadPlan> plan = PlanPad(f, xs, gc.fout_shape(0));
      if (!plan.ok()) return gc.call->Wrap(plan.status());
      if (plan->mode != "constant") return ViaAutograd(gc);
      return at::constant_pad_nd(gc.Dy(), Negated(AtenPads(plan->begin, plan->end)));
    }
    case OpKind::kExpand: {
      if (i != 0 || t == "ConstantOfShape" || t == "Range" || t == "OneHot" || t.rfind("Random", 0) == 0) return gc.Zeros();
      if (t == "Resize" || t == "Upsample") return ViaAutograd(gc);
      const Shape& ys = gc.fout_shape(0);
      if (t != "Tile" && xs.size() <= ys.size()) {
        bool broadcast = true;
        for (size_t d = 0; d < xs.size(); ++d) broadcast &= xs[d] == ys[ys.size() - xs.size() + d] || xs[d] == 1;
        if (broadcast) return SumToShape(gc.Dy(), xs);
      }
      // Tile: the sum over the repeats.
      std::vector<int64_t> split, dims;
      for (size_t d = 0; d < xs.size(); ++d) {
        split.push_back(ys[d] / std::max<int64_t>(xs[d], 1));
        split.push_back(xs[d]);
        dims.push_back(static_cast<int64_t>(2 * d));
      }
      return gc.Dy().reshape(split).sum(dims);
    }
    case OpKind::kScatterAdd:
      return ViaAutograd(gc);
    default:
      return gc.call->Error("no gradient for this data movement kind");
  }
}

StatusOr<at::Tensor> CrossEntropyGrad(const GradCall& gc) {
  const Op& f = *gc.f;
  StatusOr<CrossEntropyPlan> plan = PlanCrossEntropy(f, gc.fin_shape(0), gc.fin_shape(1), gc.fout_shape(0));
  if (!plan.ok()) return gc.call->Wrap(plan.status());
  const bool extra_grads = gc.dy.size() > 1 && gc.dy[1].defined();
  if (gc.input != 0 || plan->soft_labels || extra_grads || OnnxType(f) == "NegativeLogLikelihoodLoss") return ViaAutograd(gc);
  if (!gc.fin[0].defined() || !gc.fin[1].defined()) return gc.Missing("the logits and the labels");
  const int64_t axis = plan->class_axis;
  const at::Tensor x = gc.fin[0].movedim(axis, -1);
  const int64_t classes = x.size(-1);
  const at::Tensor labels = gc.fin[1].to(at::kLong).remainder(std::max<int64_t>(classes, 1)).reshape(x.sizes().slice(0, x.dim() - 1));
  at::Tensor g = at::softmax(x, -1);
  g = g.scatter_add(-1, labels.unsqueeze(-1), at::full({1}, -1.0, g.options()).expand(labels.unsqueeze(-1).sizes()));
  const at::Tensor dy = gc.Dy().to(g.scalar_type());
  if (plan->reduction == "none") {
    g = g * dy.reshape(labels.sizes()).unsqueeze(-1);
  } else {
    const double scale = plan->reduction == "mean" ? 1.0 / static_cast<double>(std::max<int64_t>(labels.numel(), 1)) : 1.0;
    g = g * (dy.reshape({}) * scale);
  }
  return g.movedim(-1, axis);
}

}  // namespace

StatusOr<Tensors> DataMovementForward(const KernelCall& c) {
  switch (c.op().kind) {
    case OpKind::kConcat: return ConcatOp(c);
    case OpKind::kSplit: return SplitOp(c);
    case OpKind::kSlice: return SliceOp(c);
    case OpKind::kGather: return GatherOp(c);
    case OpKind::kTranspose: return TransposeOp(c);
    case OpKind::kPad: return PadOp(c);
    case OpKind::kExpand: return ExpandOp(c);
    case OpKind::kScatterAdd: return ScatterOp(c);
    case OpKind::kSoftmaxCrossEntropy: return CrossEntropyOp(c);
    default: return c.Error("not a data movement kind");
  }
}

StatusOr<at::Tensor> DataMovementGradient(const GradCall& gc) {
  if (gc.f->kind == OpKind::kSoftmaxCrossEntropy) return CrossEntropyGrad(gc);
  return MovementGrad(gc);
}

}  // namespace exec_kernels
}  // namespace graphopt
