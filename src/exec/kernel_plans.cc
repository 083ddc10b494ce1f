#include "exec/kernel_plans.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

namespace graphopt {
namespace exec_kernels {
namespace {

Status Fail(const std::string& what) { return InvalidArgument(what); }

// A list attribute of exactly n entries, else empty.
std::vector<int64_t> IntsOfSize(const Op& op, const std::string& key, size_t n) {
  std::vector<int64_t> v = GetIntsAttr(op.attrs, key);
  if (v.size() != n) v.clear();
  return v;
}

bool HasAttr(const Op& op, const std::string& key) { return op.attrs.count(key) != 0; }

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Output size of a window over `in` padded by pb + pe; -1 if the window does not fit.
int64_t WindowOut(int64_t in, int64_t keff, int64_t stride, int64_t pb, int64_t pe, bool ceil_mode) {
  const int64_t span = in + pb + pe - keff;
  if (span < 0 || stride < 1) return -1;
  int64_t out = (ceil_mode ? CeilDiv(span, stride) : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pb) --out;  // the last window must start inside
  return out;
}

// Strides to try for a window: the attribute's first, then 1, 2, ...
std::vector<int64_t> StrideCandidates(int64_t given, int64_t in) {
  std::vector<int64_t> c;
  if (given >= 1) c.push_back(given);
  for (int64_t s = 1; s <= std::max<int64_t>(in, 1); ++s) {
    if (s != given) c.push_back(s);
  }
  return c;
}

// Splits a total padding between the two sides: the attribute's split if it has this
// total, else SAME_UPPER (the extra pixel at the end) or SAME_LOWER.
void SplitPad(int64_t total, int64_t given_b, int64_t given_e, const std::string& auto_pad, int64_t* pb, int64_t* pe) {
  if (given_b + given_e == total && given_b >= 0 && given_e >= 0) {
    *pb = given_b;
  } else {
    *pb = auto_pad == "SAME_LOWER" ? total - total / 2 : total / 2;
  }
  *pe = total - *pb;
}

// Pads of n spatial dims from "pads": 2n (begins, then ends) or n (symmetric); zeros if neither.
void ReadPads(const Op& op, size_t n, std::vector<int64_t>* begin, std::vector<int64_t>* end) {
  const std::vector<int64_t> pads = GetIntsAttr(op.attrs, "pads");
  begin->assign(n, 0);
  end->assign(n, 0);
  if (pads.size() == 2 * n) {
    for (size_t d = 0; d < n; ++d) {
      (*begin)[d] = pads[d];
      (*end)[d] = pads[n + d];
    }
  } else if (pads.size() == n) {
    *begin = pads;
    *end = pads;
  }
}

std::optional<Shape> MatMulShape(Shape a, Shape b, bool ta, bool tb) {
  if (a.empty() || b.empty()) return std::nullopt;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  if (ta) std::swap(a[a.size() - 1], a[a.size() - 2]);
  if (tb) std::swap(b[b.size() - 1], b[b.size() - 2]);
  if (a.back() != b[b.size() - 2]) return std::nullopt;
  const Shape ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  const size_t n = std::max(ba.size(), bb.size());
  Shape out(n, 1);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - ba.size() ? 1 : ba[i - (n - ba.size())];
    const int64_t db = i < n - bb.size() ? 1 : bb[i - (n - bb.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return out;
}

Shape Reduced(const Shape& x, const std::vector<int64_t>& axes, bool keep) {
  Shape out;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool r = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (!r) out.push_back(x[d]);
    if (r && keep) out.push_back(1);
  }
  return out;
}

}  // namespace

int64_t NormalizeAxis(int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < 0) axis += r;
  return axis >= 0 && axis < r ? axis : -1;
}

std::string OnnxType(const Op& op) { return GetStringAttr(op.attrs, "op_type", ""); }

bool IsProfileGraph(const Graph& graph) {
  auto it = graph.metadata().find("profile");
  return it != graph.metadata().end() && it->second == "pipedream";
}

StatusOr<WindowPlan> PlanConv(const Op& op, const Shape& x, const Shape& w, const Shape& y, bool transposed) {
  const size_t r = x.size();
  if (r < 3 || w.size() != r || y.size() != r) {
    return Fail("a convolution needs an input [N, C, spatial...], a weight and an output of the same rank >= 3");
  }
  const size_t n = r - 2;
  WindowPlan p;
  p.kernel.assign(w.begin() + 2, w.end());
  if (y[0] != x[0]) return Fail("the batch sizes of input and output differ");
  int64_t g = GetIntAttr(op.attrs, "group", 0);
  const int64_t in_c = transposed ? y[1] : x[1];  // channels of the non-transposed view
  const int64_t out_c = transposed ? x[1] : y[1];
  if (w[0] != out_c) {
    return Fail(transposed ? "the weight's first dim is not the input's channels"
                           : "the weight's first dim is not the output's channels");
  }
  if (g <= 0 || in_c != w[1] * g) {
    if (w[1] <= 0 || in_c % w[1] != 0) return Fail("the channels are not a multiple of the weight's second dim");
    g = in_c / w[1];
  }
  if (g <= 0 || out_c % g != 0) return Fail("the groups do not divide the channels");
  p.groups = g;
  p.dilation = IntsOfSize(op, "dilations", n);
  if (p.dilation.empty() || std::any_of(p.dilation.begin(), p.dilation.end(), [](int64_t d) { return d < 1; })) {
    p.dilation.assign(n, 1);
  }
  std::vector<int64_t> strides = IntsOfSize(op, "strides", n);
  std::vector<int64_t> gb, ge;
  ReadPads(op, n, &gb, &ge);
  std::vector<int64_t> out_pad = IntsOfSize(op, "output_padding", n);
  if (out_pad.empty()) out_pad.assign(n, 0);
  const std::string auto_pad = GetStringAttr(op.attrs, "auto_pad", "NOTSET");
  p.stride.assign(n, 1);
  p.pad_begin.assign(n, 0);
  p.pad_end.assign(n, 0);
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = x[2 + d], out = y[2 + d];
    const int64_t keff = p.dilation[d] * (p.kernel[d] - 1) + 1;
    const int64_t s_attr = strides.empty() ? 0 : strides[d];
    bool found = false;
    if (!transposed) {
      if (s_attr >= 1 && WindowOut(in, keff, s_attr, gb[d], ge[d], false) == out) {
        p.stride[d] = s_attr;
        p.pad_begin[d] = gb[d];
        p.pad_end[d] = ge[d];
        continue;
      }
      for (int64_t s : StrideCandidates(s_attr, in)) {
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + keff - in);
        if (total > 2 * (keff - 1) + s - 1 || WindowOut(in, keff, s, total, 0, false) != out) continue;
        p.stride[d] = s;
        SplitPad(total, gb[d], ge[d], auto_pad, &p.pad_begin[d], &p.pad_end[d]);
        found = true;
        break;
      }
    } else {
      // Full output (in - 1) * s + keff, cropped by pad_begin and pad_end (negative: zeros added).
      if (s_attr >= 1 && (in - 1) * s_attr + keff - gb[d] - ge[d] + out_pad[d] == out) {
        p.stride[d] = s_attr;
        p.pad_begin[d] = gb[d];
        p.pad_end[d] = ge[d] - out_pad[d];
        continue;
      }
      for (int64_t s : StrideCandidates(s_attr, std::max<int64_t>(out, 1))) {
        const int64_t total = (in - 1) * s + keff - out;
        if (total < -(s - 1) || total > 2 * (keff - 1)) continue;
        p.stride[d] = s;
        if (total >= 0) {
          SplitPad(total, gb[d], ge[d], auto_pad, &p.pad_begin[d], &p.pad_end[d]);
        } else {
          p.pad_begin[d] = 0;
          p.pad_end[d] = total;
        }
        found = true;
        break;
      }
    }
    if (!found) {
      return Fail("no stride and padding turn spatial size " + std::to_string(in) + " into " + std::to_string(out) +
                  " with kernel " + std::to_string(p.kernel[d]) + " (dim " + std::to_string(d + 2) + ")");
    }
  }
  return p;
}

StatusOr<WindowPlan> PlanPool(const Op& op, const Shape& x, const Shape& y) {
  const size_t r = x.size();
  if (r < 3 || y.size() != r || y[0] != x[0] || y[1] != x[1]) {
    return Fail("pooling needs an input [N, C, spatial...] and an output of the same rank, N and C");
  }
  const size_t n = r - 2;
  WindowPlan p;
  p.groups = 1;
  p.kernel = IntsOfSize(op, "kernel", n);
  if (p.kernel.empty()) p.kernel = IntsOfSize(op, "kernel_shape", n);
  if (p.kernel.empty() || std::any_of(p.kernel.begin(), p.kernel.end(), [](int64_t k) { return k < 1; })) {
    p.adaptive = true;
    return p;
  }
  p.dilation = IntsOfSize(op, "dilations", n);
  if (p.dilation.empty() || std::any_of(p.dilation.begin(), p.dilation.end(), [](int64_t d) { return d < 1; })) {
    p.dilation.assign(n, 1);
  }
  const std::vector<int64_t> strides = IntsOfSize(op, "strides", n);
  std::vector<int64_t> gb, ge;
  ReadPads(op, n, &gb, &ge);
  const bool ceil_mode = GetIntAttr(op.attrs, "ceil_mode", 0) != 0;
  const std::string auto_pad = GetStringAttr(op.attrs, "auto_pad", "NOTSET");
  p.stride.assign(n, 1);
  p.pad_begin.assign(n, 0);
  p.pad_end.assign(n, 0);
  for (size_t d = 0; d < n; ++d) {
    const int64_t in = x[2 + d], out = y[2 + d];
    const int64_t keff = p.dilation[d] * (p.kernel[d] - 1) + 1;
    const int64_t s_attr = strides.empty() ? 1 : strides[d];
    if (s_attr >= 1 && WindowOut(in, keff, s_attr, gb[d], ge[d], ceil_mode) == out) {
      p.stride[d] = s_attr;
      p.pad_begin[d] = gb[d];
      // Ceil mode: the partial last window reads padding at the end.
      p.pad_end[d] = std::max(ge[d], (out - 1) * s_attr + keff - in - gb[d]);
      continue;
    }
    bool found = false;
    for (int64_t s : StrideCandidates(s_attr, in)) {
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + keff - in);
      if (total > keff - 1 + s - 1 || WindowOut(in, keff, s, total, 0, false) != out) continue;
      p.stride[d] = s;
      SplitPad(total, gb[d], ge[d], auto_pad, &p.pad_begin[d], &p.pad_end[d]);
      found = true;
      break;
    }
    if (!found) {
      p.adaptive = true;  // no window of this kernel gives the output size: adapt to it
      return p;
    }
  }
  return p;
}

StatusOr<ReducePlan> PlanReduce(const Op& op, const Shape& x, const Shape& y) {
  const size_t r = x.size();
  ReducePlan p;
  p.keepdims = GetIntAttr(op.attrs, "keepdims", 1) != 0;
  std::vector<int64_t> axes;
  if (HasAttr(op, "axes")) {
    for (int64_t a : GetIntsAttr(op.attrs, "axes")) axes.push_back(NormalizeAxis(a, r));
  } else if (HasAttr(op, "axis")) {
    axes.push_back(NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), r));
  } else {
    for (size_t d = 0; d < r; ++d) axes.push_back(static_cast<int64_t>(d));
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (std::find(axes.begin(), axes.end(), -1) == axes.end() && Reduced(x, axes, p.keepdims) == y) {
    p.axes = axes;
    return p;
  }
  p.axes.clear();
  if (y.size() == r) {
    p.keepdims = true;
    for (size_t d = 0; d < r; ++d) {
      if (x[d] == y[d]) continue;
      if (y[d] != 1) return Fail("the output is not the input with some dims reduced");
      p.axes.push_back(static_cast<int64_t>(d));
    }
    return p;
  }
  if (y.size() > r) return Fail("a reduction's output has a higher rank than its input");
  p.keepdims = false;
  size_t j = 0;
  for (size_t d = 0; d < r; ++d) {
    if (j < y.size() && x[d] == y[j]) {
      ++j;
    } else {
      p.axes.push_back(static_cast<int64_t>(d));
    }
  }
  if (j != y.size()) return Fail("the output is not the input with some dims reduced");
  return p;
}

StatusOr<MatMulPlan> PlanMatMul(const Op& op, const Shape& a, const Shape& b, const Shape& y) {
  MatMulPlan p;
  const bool gemm = op.kind == OpKind::kGemm;
  p.transpose_a = GetIntAttr(op.attrs, gemm ? "transA" : "transpose_a", 0) != 0;
  p.transpose_b = GetIntAttr(op.attrs, gemm ? "transB" : "transpose_b", 0) != 0;
  if (a.size() < 2) p.transpose_a = false;
  if (b.size() < 2) p.transpose_b = false;
  auto ok = [&](bool ta, bool tb) {
    const std::optional<Shape> s = MatMulShape(a, b, ta, tb);
    return s && NumElements(*s) == NumElements(y) && (*s == y || gemm);
  };
  if (ok(p.transpose_a, p.transpose_b)) return p;
  for (int combo = 0; combo < 4; ++combo) {
    const bool ta = (combo & 1) != 0, tb = (combo & 2) != 0;
    if ((ta && a.size() < 2) || (tb && b.size() < 2)) continue;
    if (ok(ta, tb)) {
      p.transpose_a = ta;
      p.transpose_b = tb;
      return p;
    }
  }
  return Fail("the operands' inner dims do not match (with or without transposing)");
}

StatusOr<SoftmaxPlan> PlanSoftmax(const Graph& graph, const Op& op, const Shape& x) {
  SoftmaxPlan p;
  const auto opset_it = graph.metadata().find("opset");
  int64_t opset = 0;
  if (opset_it != graph.metadata().end()) opset = std::atoll(opset_it->second.c_str());
  const bool old_onnx = opset > 0 && opset < 13;
  if (x.empty()) {
    p.axis = 0;
    return p;
  }
  const int64_t fallback = old_onnx ? 1 : -1;
  p.axis = NormalizeAxis(GetIntAttr(op.attrs, "axis", fallback), x.size());
  if (p.axis < 0) p.axis = static_cast<int64_t>(x.size()) - 1;
  p.coerce_2d = old_onnx && p.axis != static_cast<int64_t>(x.size()) - 1;
  return p;
}

StatusOr<int64_t> PlanLayerNormAxis(const Op& op, const Shape& x, const Shape* scale) {
  const size_t r = x.size();
  if (r == 0) return Fail("a layer norm needs an input of rank >= 1");
  if (HasAttr(op, "axis")) {
    const int64_t a = NormalizeAxis(GetIntAttr(op.attrs, "axis", -1), r);
    if (a >= 0) return a;
  }
  if (scale != nullptr && !scale->empty() && scale->size() <= r &&
      std::equal(scale->begin(), scale->end(), x.end() - static_cast<int64_t>(scale->size()))) {
    return static_cast<int64_t>(r - scale->size());
  }
  return static_cast<int64_t>(r) - 1;
}

StatusOr<CrossEntropyPlan> PlanCrossEntropy(const Op& op, const Shape& logits, const Shape& labels, const Shape& y) {
  CrossEntropyPlan p;
  if (logits.empty()) return Fail("the logits need a class dim");
  const size_t r = logits.size();
  p.reduction = GetStringAttr(op.attrs, "reduction", "mean");
  if (p.reduction != "sum" && p.reduction != "none") p.reduction = "mean";
  if (NumElements(y) == 1 && p.reduction == "none") p.reduction = "mean";
  auto without = [&](size_t a) {
    Shape s = logits;
    s.erase(s.begin() + static_cast<int64_t>(a));
    return s;
  };
  if (labels == logits) {
    p.soft_labels = true;
    p.class_axis = static_cast<int64_t>(r) - 1;
  } else {
    const bool onnx = !OnnxType(op).empty() || HasAttr(op, "reduction");
    std::vector<size_t> order = onnx ? std::vector<size_t>{1, r - 1} : std::vector<size_t>{r - 1, 1};
    bool found = false;
    for (size_t a : order) {
      if (a < r && without(a) == labels) {
        p.class_axis = static_cast<int64_t>(a);
        found = true;
        break;
      }
    }
    if (!found) return Fail("the labels are not the logits' shape without a class dim");
  }
  if (p.reduction == "none") {
    const Shape per = p.soft_labels ? without(static_cast<size_t>(p.class_axis)) : labels;
    if (NumElements(per) != NumElements(y)) return Fail("the per-example loss does not have the output's size");
  } else if (NumElements(y) != 1) {
    p.reduction = "none";
    if (NumElements(labels) != NumElements(y) || p.soft_labels) return Fail("the loss does not have the output's size");
  }
  return p;
}

}  // namespace exec_kernels
}  // namespace graphopt
