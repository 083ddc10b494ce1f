// Plans of data movement kinds (see kernel_plans.h).
#include <algorithm>

#include "exec/kernel_plans.h"

namespace graphopt {
namespace exec_kernels {
namespace {

Status Fail(const std::string& what) { return InvalidArgument(what); }

bool HasAttr(const Op& op, const std::string& key) { return op.attrs.count(key) != 0; }

}  // namespace

StatusOr<ConcatPlan> PlanConcat(const Op& op, const std::vector<Shape>& xs, const Shape& y) {
  auto fits = [&](int64_t axis) {
    if (axis < 0) return false;
    int64_t sum = 0;
    for (const Shape& s : xs) {
      if (s.size() != y.size()) return false;
      for (size_t d = 0; d < s.size(); ++d) {
        if (static_cast<int64_t>(d) != axis && s[d] != y[d]) return false;
      }
      sum += s[static_cast<size_t>(axis)];
    }
    return sum == y[static_cast<size_t>(axis)];
  };
  ConcatPlan p;
  const int64_t attr = HasAttr(op, "axis") ? NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), y.size()) : -1;
  if (fits(attr)) {
    p.axis = attr;
    return p;
  }
  for (size_t a = 0; a < y.size(); ++a) {
    if (fits(static_cast<int64_t>(a))) {
      p.axis = static_cast<int64_t>(a);
      return p;
    }
  }
  int64_t total = 0;
  for (const Shape& s : xs) total += NumElements(s);
  if (total == NumElements(y)) {
    p.flat = true;
    return p;
  }
  return Fail("no axis concatenates the inputs into the output");
}

StatusOr<ConcatPlan> PlanSplit(const Op& op, const Shape& x, const std::vector<Shape>& ys) {
  return PlanConcat(op, ys, x);
}

StatusOr<std::vector<SliceDim>> PlanSlice(const Op& op, const Shape& x, const Shape& y) {
  if (x.size() != y.size()) return Fail("a slice keeps the rank");
  const size_t r = x.size();
  std::vector<int64_t> starts(r, 0), steps(r, 1);
  std::vector<bool> given(r, false);
  if (HasAttr(op, "begin") && HasAttr(op, "axis")) {
    const int64_t a = NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), r);
    if (a >= 0) {
      starts[static_cast<size_t>(a)] = GetIntAttr(op.attrs, "begin", 0);
      given[static_cast<size_t>(a)] = true;
    }
  } else if (HasAttr(op, "starts")) {
    const std::vector<int64_t> s = GetIntsAttr(op.attrs, "starts");
    std::vector<int64_t> axes = GetIntsAttr(op.attrs, "axes");
    const std::vector<int64_t> st = GetIntsAttr(op.attrs, "steps");
    if (axes.empty()) {
      for (size_t i = 0; i < s.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    for (size_t i = 0; i < s.size() && i < axes.size(); ++i) {
      const int64_t a = NormalizeAxis(axes[i], r);
      if (a < 0) continue;
      starts[static_cast<size_t>(a)] = s[i];
      if (i < st.size()) steps[static_cast<size_t>(a)] = st[i];
      given[static_cast<size_t>(a)] = true;
    }
  }
  std::vector<SliceDim> dims;
  for (size_t d = 0; d < r; ++d) {
    if (y[d] > x[d]) return Fail("a slice's output is larger than its input along dim " + std::to_string(d));
    if (y[d] == x[d] && !given[d]) continue;
    int64_t start = starts[d], step = steps[d];
    if (start < 0) start += x[d];
    start = std::clamp<int64_t>(start, 0, x[d]);
    if (step < 1 || (y[d] > 0 && start + (y[d] - 1) * step >= x[d])) {
      start = 0;  // the bounds are not known (tensor inputs) or do not fit: the first y[d]
      step = 1;
    }
    if (y[d] == x[d] && start == 0 && step == 1) continue;
    dims.push_back({static_cast<int64_t>(d), start, step, y[d]});
  }
  return dims;
}

StatusOr<std::vector<SliceDim>> PlanSliceInGraph(const Graph& graph, OpId id) {
  const Op& op = graph.op(id);
  if (op.inputs.empty() || op.outputs.empty()) return Fail("a slice reads a tensor and gives one");
  const TensorId src = op.inputs[0];
  const Shape& x = graph.tensor(src).shape;
  auto known_bounds = [](const Op& s) { return HasAttr(s, "begin") || HasAttr(s, "starts"); };
  GO_ASSIGN_OR_RETURN(std::vector<SliceDim> dims, PlanSlice(op, x, graph.tensor(op.outputs[0]).shape));
  if (known_bounds(op) || dims.size() != 1 || dims[0].step != 1) return dims;
  int64_t offset = 0, start = -1;
  for (OpId c : graph.tensor(src).consumers) {
    const Op& s = graph.op(c);
    if (s.kind != OpKind::kSlice || s.phase != Phase::kForward || s.inputs[0] != src || known_bounds(s)) continue;
    if (s.outputs.empty()) continue;
    StatusOr<std::vector<SliceDim>> sd = PlanSlice(s, x, graph.tensor(s.outputs[0]).shape);
    if (!sd.ok() || sd->size() != 1 || (*sd)[0].dim != dims[0].dim) continue;
    if (c == id && start < 0) start = offset;
    offset += (*sd)[0].length;
  }
  if (start >= 0 && offset <= x[static_cast<size_t>(dims[0].dim)]) dims[0].start = start;
  return dims;
}

StatusOr<std::vector<int64_t>> PlanTranspose(const Op& op, const Shape& x, const Shape& y) {
  if (x.size() != y.size()) return Fail("a transpose keeps the rank");
  const size_t r = x.size();
  auto fits = [&](const std::vector<int64_t>& perm) {
    if (perm.size() != r) return false;
    std::vector<bool> used(r, false);
    for (size_t i = 0; i < r; ++i) {
      const int64_t p = NormalizeAxis(perm[i], r);
      if (p < 0 || used[static_cast<size_t>(p)] || x[static_cast<size_t>(p)] != y[i]) return false;
      used[static_cast<size_t>(p)] = true;
    }
    return true;
  };
  std::vector<int64_t> perm = GetIntsAttr(op.attrs, "perm");
  if (fits(perm)) {
    for (int64_t& p : perm) p = NormalizeAxis(p, r);
    return perm;
  }
  if (!HasAttr(op, "perm")) {
    std::vector<int64_t> reversed;
    for (size_t i = r; i-- > 0;) reversed.push_back(static_cast<int64_t>(i));
    if (fits(reversed)) return reversed;
  }
  perm.assign(r, -1);
  std::vector<bool> used(r, false);
  for (size_t i = 0; i < r; ++i) {
    // Prefer the same position, then the first unused dim of the same size.
    if (!used[i] && x[i] == y[i]) {
      perm[i] = static_cast<int64_t>(i);
      used[i] = true;
      continue;
    }
    for (size_t j = 0; j < r; ++j) {
      if (!used[j] && x[j] == y[i] && !(j > i && x[j] == y[j])) {
        perm[i] = static_cast<int64_t>(j);
        used[j] = true;
        break;
      }
    }
    if (perm[i] < 0) {
      for (size_t j = 0; j < r; ++j) {
        if (!used[j] && x[j] == y[i]) {
          perm[i] = static_cast<int64_t>(j);
          used[j] = true;
          break;
        }
      }
    }
    if (perm[i] < 0) return Fail("no permutation of the input's dims gives the output's");
  }
  return perm;
}

StatusOr<PadPlan> PlanPad(const Op& op, const Shape& x, const Shape& y) {
  if (x.size() != y.size()) return Fail("a pad keeps the rank");
  const size_t r = x.size();
  PadPlan p;
  p.begin.assign(r, 0);
  p.end.assign(r, 0);
  const std::string mode = GetStringAttr(op.attrs, "mode", "constant");
  p.mode = mode == "reflect" ? "reflect" : mode == "edge" ? "replicate" : mode == "wrap" ? "circular" : "constant";
  if (HasAttr(op, "before") && HasAttr(op, "axis")) {
    const int64_t a = NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), r);
    if (a >= 0) {
      p.begin[static_cast<size_t>(a)] = GetIntAttr(op.attrs, "before", 0);
      p.end[static_cast<size_t>(a)] = GetIntAttr(op.attrs, "after", 0);
    }
  } else {
    const std::vector<int64_t> pads = GetIntsAttr(op.attrs, "pads");
    if (pads.size() == 2 * r) {
      for (size_t d = 0; d < r; ++d) {
        p.begin[d] = pads[d];
        p.end[d] = pads[r + d];
      }
    }
  }
  for (size_t d = 0; d < r; ++d) {
    if (x[d] + p.begin[d] + p.end[d] == y[d]) continue;
    p.begin[d] = (y[d] - x[d]) / 2;  // the pads are not known (a tensor input)
    p.end[d] = y[d] - x[d] - p.begin[d];
  }
  return p;
}

StatusOr<GatherPlan> PlanGather(const Op& op, const Shape& data, const Shape& indices, const Shape& y) {
  GatherPlan p;
  const std::string type = OnnxType(op);
  const size_t r = data.size();
  if (type == "GatherElements") {
    p.mode = GatherPlan::kElements;
    p.axis = NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), r);
    if (p.axis < 0 || indices.size() != r || y != indices) return Fail("GatherElements needs indices of the output's shape");
    return p;
  }
  if (type == "GatherND") {
    p.mode = GatherPlan::kNd;
    if (GetIntAttr(op.attrs, "batch_dims", 0) != 0 || indices.empty()) return Fail("GatherND with batch_dims is not supported");
    const int64_t k = indices.back();
    if (k < 0 || k > static_cast<int64_t>(r)) return Fail("GatherND indexes more dims than the data has");
    Shape want(indices.begin(), indices.end() - 1);
    want.insert(want.end(), data.begin() + k, data.end());
    if (want != y) return Fail("GatherND's output shape does not follow from its inputs");
    return p;
  }
  if (type == "Compress") {
    p.mode = GatherPlan::kCompress;
    p.axis = HasAttr(op, "axis") ? NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), r) : -1;
    if (p.axis < 0 && y.size() != 1) return Fail("Compress without an axis flattens its input");
    return p;
  }
  auto fits = [&](int64_t a) {
    if (a < 0) return false;
    Shape want(data.begin(), data.begin() + a);
    want.insert(want.end(), indices.begin(), indices.end());
    want.insert(want.end(), data.begin() + a + 1, data.end());
    return want == y;
  };
  const int64_t attr = NormalizeAxis(GetIntAttr(op.attrs, "axis", 0), r);
  if (fits(attr)) {
    p.axis = attr;
    return p;
  }
  for (size_t a = 0; a < r; ++a) {
    if (fits(static_cast<int64_t>(a))) {
      p.axis = static_cast<int64_t>(a);
      return p;
    }
  }
  return Fail("no axis of the data gathered by the indices gives the output");
}

}  // namespace exec_kernels
}  // namespace graphopt
