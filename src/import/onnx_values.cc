#include "import/onnx_values.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <unordered_map>

namespace graphopt {
namespace onnx_import {
namespace {

// Row-major strides of a shape.
std::vector<int64_t> Strides(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
  return st;
}

// Flat index into `in` (broadcast to `out`) of output element `flat`.
size_t BroadcastIndex(const Shape& in, const Shape& out, size_t flat) {
  const std::vector<int64_t> out_st = Strides(out), in_st = Strides(in);
  size_t idx = 0;
  const size_t offset = out.size() - in.size();
  for (size_t d = 0; d < out.size(); ++d) {
    const int64_t coord = static_cast<int64_t>(flat) / out_st[d] % std::max<int64_t>(out[d], 1);
    if (d < offset) continue;
    const size_t k = d - offset;
    if (in[k] != 1) idx += static_cast<size_t>(coord * in_st[k]);
  }
  return idx;
}

KnownValue Empty(const TensorInfo& out) {
  KnownValue v;
  v.shape = out.shape;
  v.integral = IsIntegralOnnx(out.elem_type);
  return v;
}

void Push(KnownValue* v, double real, int64_t integer) {
  if (v->integral) {
    v->ints.push_back(integer);
  } else {
    v->reals.push_back(real);
  }
}

int64_t ToInt(double x) {
  if (!(x > -9.2e18 && x < 9.2e18)) return x > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(x);
}


std::optional<KnownValue> EvaluateElementwise(const ox::NodeProto& node, const NodeInputs& inputs, const TensorInfo& out);

}  // namespace

std::optional<KnownValue> EvaluateNodeValue(const ox::NodeProto& node, const NodeInputs& inputs, const TensorInfo& out) {
  const std::string& type = node.op_type();
  if (type == "Constant") {
    if (const auto* a = FindAttr(node, "value"); a != nullptr && a->has_t()) return ValueFromTensor(a->t());
    KnownValue v;
    if (const auto* a = FindAttr(node, "value_int")) {
      v.ints = {a->i()};
    } else if (const auto* a = FindAttr(node, "value_ints")) {
      v.ints.assign(a->ints().begin(), a->ints().end());
    } else if (const auto* a = FindAttr(node, "value_float")) {
      v.integral = false;
      v.reals = {a->f()};
    } else if (const auto* a = FindAttr(node, "value_floats")) {
      v.integral = false;
      v.reals.assign(a->floats().begin(), a->floats().end());
    } else {
      return std::nullopt;
    }
    return v;
  }
  if (type == "Shape" || type == "Size") {
    const TensorInfo* in = inputs.Info(0);
    if (in == nullptr) return std::nullopt;
    KnownValue v = Empty(out);
    if (type == "Size") {
      v.ints = {NumElements(in->shape)};
      return v;
    }
    const int64_t rank = static_cast<int64_t>(in->shape.size());
    int64_t start = IntAttr(node, "start", 0), end = IntAttr(node, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    v.ints.assign(in->shape.begin() + start, in->shape.begin() + end);
    return v;
  }
  if (type == "Range") {
    const KnownValue* s = inputs.Value(0);
    const KnownValue* l = inputs.Value(1);
    const KnownValue* d = inputs.Value(2);
    if (s == nullptr || l == nullptr || d == nullptr || s->size() != 1 || l->size() != 1 || d->size() != 1) {
      return std::nullopt;
    }
    KnownValue v = Empty(out);
    for (int64_t i = 0; i < NumElements(out.shape); ++i) {
      const double x = s->Real(0) + static_cast<double>(i) * d->Real(0);
      Push(&v, x, s->integral ? s->ints[0] + i * d->ints[0] : ToInt(x));
    }
    return v;
  }
  if (type == "ConstantOfShape") {
    KnownValue fill;
    fill.ints = {0};
    if (const auto* a = FindAttr(node, "value"); a != nullptr && a->has_t()) {
      auto value = ValueFromTensor(a->t());
      if (!value || value->size() != 1) return std::nullopt;
      fill = *value;
    }
    KnownValue v = Empty(out);
    for (int64_t i = 0; i < NumElements(out.shape); ++i) Push(&v, fill.Real(0), fill.integral ? fill.ints[0] : 0);
    return v;
  }
  const KnownValue* in = inputs.Value(0);
  if (in == nullptr) return std::nullopt;
  if (type == "Identity" || type == "Reshape" || type == "Squeeze" || type == "Unsqueeze" || type == "Flatten" ||
      type == "Cast" || type == "CastLike") {
    KnownValue v = Empty(out);
    for (size_t i = 0; i < in->size(); ++i) {
      const double x = in->Real(i);
      const bool to_bool = out.elem_type == ox::TensorProto::BOOL;
      Push(&v, x, to_bool ? (x != 0) : in->integral ? in->ints[i] : ToInt(x));
    }
    return v;
  }
  if (type == "Gather") {
    const KnownValue* idx = inputs.Value(1);
    if (idx == nullptr || !idx->integral || in->shape.empty()) return std::nullopt;
    int64_t axis = IntAttr(node, "axis", 0);
    const int64_t rank = static_cast<int64_t>(in->shape.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return std::nullopt;
    const int64_t n = in->shape[static_cast<size_t>(axis)];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= in->shape[static_cast<size_t>(d)];
    for (int64_t d = axis + 1; d < rank; ++d) inner *= in->shape[static_cast<size_t>(d)];
    KnownValue v = Empty(out);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i : idx->ints) {
        if (i < 0) i += n;
        if (i < 0 || i >= n) return std::nullopt;
        for (int64_t r = 0; r < inner; ++r) {
          const size_t at = static_cast<size_t>((o * n + i) * inner + r);
          Push(&v, in->Real(at), in->integral ? in->ints[at] : 0);
        }
      }
    }
    return v;
  }
  if (type == "Concat") {
    KnownValue v = Empty(out);
    if (out.shape.size() != 1) return std::nullopt;
    for (int i = 0; i < node.input_size(); ++i) {
      const KnownValue* part = inputs.Value(i);
      if (part == nullptr) return std::nullopt;
      for (size_t k = 0; k < part->size(); ++k) Push(&v, part->Real(k), part->integral ? part->ints[k] : 0);
    }
    return v;
  }
  if (type == "Slice") {
    // Per axis: the first index read and the step (the output shape is known).
    const int64_t rank = static_cast<int64_t>(in->shape.size());
    std::vector<int64_t> first(static_cast<size_t>(rank), 0), step(static_cast<size_t>(rank), 1);
    std::vector<int64_t> starts, axes, steps;
    if (auto s = IntsAttr(node, "starts")) {
      starts = *s;
      axes = IntsAttr(node, "axes").value_or(std::vector<int64_t>{});
    } else {
      const KnownValue* s_value = inputs.Value(1);
      if (s_value == nullptr || !s_value->integral) return std::nullopt;
      starts = s_value->ints;
      for (int i : {3, 4}) {
        if (i >= node.input_size() || node.input(i).empty()) continue;
        const KnownValue* v = inputs.Value(i);
        if (v == nullptr || !v->integral) return std::nullopt;
        (i == 3 ? axes : steps) = v->ints;
      }
    }
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size()) return std::nullopt;
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (axis < 0 || axis >= rank || steps[i] == 0) return std::nullopt;
      step[static_cast<size_t>(axis)] = steps[i];
      first[static_cast<size_t>(axis)] = SliceStart(in->shape[static_cast<size_t>(axis)], starts[i], steps[i]);
    }
    if (static_cast<int64_t>(out.shape.size()) != rank) return std::nullopt;
    KnownValue v = Empty(out);
    const std::vector<int64_t> out_st = Strides(out.shape), in_st = Strides(in->shape);
    for (int64_t f = 0; f < NumElements(out.shape); ++f) {
      int64_t at = 0;
      for (size_t d = 0; d < out.shape.size(); ++d) {
        const int64_t coord = first[d] + f / out_st[d] % out.shape[d] * step[d];
        if (coord < 0 || coord >= in->shape[d]) return std::nullopt;
        at += coord * in_st[d];
      }
      Push(&v, in->Real(static_cast<size_t>(at)), in->integral ? in->ints[static_cast<size_t>(at)] : 0);
    }
    return v;
  }
  if (type == "Transpose") {
    const size_t rank = in->shape.size();
    std::vector<int64_t> perm = IntsAttr(node, "perm").value_or(std::vector<int64_t>{});
    if (perm.empty()) {
      for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    }
    if (perm.size() != rank || out.shape.size() != rank) return std::nullopt;
    KnownValue v = Empty(out);
    const std::vector<int64_t> out_st = Strides(out.shape), in_st = Strides(in->shape);
    for (int64_t f = 0; f < NumElements(out.shape); ++f) {
      int64_t at = 0;
      for (size_t d = 0; d < rank; ++d) {
        const int64_t p = perm[d] < 0 ? perm[d] + static_cast<int64_t>(rank) : perm[d];
        if (p < 0 || p >= static_cast<int64_t>(rank)) return std::nullopt;
        at += f / out_st[d] % out.shape[d] * in_st[static_cast<size_t>(p)];
      }
      Push(&v, in->Real(static_cast<size_t>(at)), in->integral ? in->ints[static_cast<size_t>(at)] : 0);
    }
    return v;
  }
  if (type == "Expand" || type == "Tile") {
    if (type == "Tile" && in->shape.size() != out.shape.size()) return std::nullopt;
    KnownValue v = Empty(out);
    const std::vector<int64_t> out_st = Strides(out.shape), in_st = Strides(in->shape);
    for (int64_t f = 0; f < NumElements(out.shape); ++f) {
      size_t at = 0;
      if (type == "Expand") {
        at = BroadcastIndex(in->shape, out.shape, static_cast<size_t>(f));
      } else {
        for (size_t d = 0; d < out.shape.size(); ++d) {
          const int64_t coord = f / out_st[d] % out.shape[d];
          at += static_cast<size_t>(coord % in->shape[d] * in_st[d]);
        }
      }
      Push(&v, in->Real(at), in->integral ? in->ints[at] : 0);
    }
    return v;
  }
  if ((type == "ReduceProd" || type == "ReduceSum" || type == "ReduceMax" || type == "ReduceMin") &&
      NumElements(out.shape) == 1 && in->integral && out.elem_type == ox::TensorProto::INT64 && node.input_size() == 1) {
    int64_t r = type == "ReduceProd" ? 1 : type == "ReduceSum" ? 0 : in->ints.empty() ? 0 : in->ints[0];
    for (int64_t x : in->ints) {
      if (type == "ReduceProd" && __builtin_mul_overflow(r, x, &r)) return std::nullopt;
      if (type == "ReduceSum" && __builtin_add_overflow(r, x, &r)) return std::nullopt;
      if (type == "ReduceMax") r = std::max(r, x);
      if (type == "ReduceMin") r = std::min(r, x);
    }
    KnownValue v = Empty(out);
    v.ints = {r};
    return v;
  }
  return EvaluateElementwise(node, inputs, out);
}

std::optional<KnownValue> EvaluateSplitValue(const ox::NodeProto& node, const NodeInputs& inputs, int k,
                                             const TensorInfo& out) {
  const KnownValue* in = inputs.Value(0);
  if (in == nullptr || in->shape.size() != out.shape.size() || in->shape.empty()) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(in->shape.size());
  int64_t axis = IntAttr(node, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  // Sizes along the axis: the "split" attribute (opsets < 13), the second input, or
  // equal parts.
  std::vector<int64_t> sizes = IntsAttr(node, "split").value_or(std::vector<int64_t>{});
  if (sizes.empty() && node.input_size() > 1 && !node.input(1).empty()) {
    const KnownValue* s = inputs.Value(1);
    if (s == nullptr || !s->integral) return std::nullopt;
    sizes = s->ints;
  }
  const size_t a = static_cast<size_t>(axis);
  int64_t offset = 0;
  if (sizes.empty()) {
    const int64_t parts = node.output_size();
    offset = k * ((in->shape[a] + parts - 1) / parts);  // equal parts, the last one smaller
  } else {
    if (static_cast<size_t>(k) >= sizes.size() || sizes[static_cast<size_t>(k)] != out.shape[a]) return std::nullopt;
    for (int i = 0; i < k; ++i) offset += sizes[static_cast<size_t>(i)];
  }
  KnownValue v = Empty(out);
  const std::vector<int64_t> out_st = Strides(out.shape), in_st = Strides(in->shape);
  for (int64_t f = 0; f < NumElements(out.shape); ++f) {
    int64_t at = 0;
    for (size_t d = 0; d < out.shape.size(); ++d) {
      int64_t coord = f / out_st[d] % out.shape[d];
      if (static_cast<int64_t>(d) == axis) coord += offset;
      if (coord >= in->shape[d]) return std::nullopt;
      at += coord * in_st[d];
    }
    Push(&v, in->Real(static_cast<size_t>(at)), in->integral ? in->ints[static_cast<size_t>(at)] : 0);
  }
  return v;
}

namespace {

std::optional<KnownValue> EvaluateElementwise(const ox::NodeProto& node, const NodeInputs& inputs, const TensorInfo& out) {
  static const std::unordered_map<std::string, int> kArity = {
      {"Neg", 1},  {"Abs", 1},   {"Floor", 1},   {"Ceil", 1},           {"Sqrt", 1},    {"Reciprocal", 1},
      {"Not", 1},  {"Round", 1}, {"Sign", 1},    {"Add", 2},            {"Sub", 2},     {"Mul", 2},
      {"Div", 2},  {"Mod", 2},   {"Pow", 2},     {"Max", 2},            {"Min", 2},     {"Equal", 2},
      {"Less", 2}, {"Greater", 2}, {"LessOrEqual", 2}, {"GreaterOrEqual", 2}, {"And", 2}, {"Or", 2},
      {"Where", 3},
  };
  const std::string& type = node.op_type();
  auto arity = kArity.find(type);
  if (arity == kArity.end() || node.input_size() != arity->second) return std::nullopt;
  std::vector<const KnownValue*> ins;
  for (int i = 0; i < node.input_size(); ++i) {
    const KnownValue* v = inputs.Value(i);
    if (v == nullptr || !Broadcast(v->shape, out.shape) || Broadcast(v->shape, out.shape) != out.shape) {
      return std::nullopt;
    }
    ins.push_back(v);
  }
  // Integer arithmetic when the operands are integers (Where: its two branches).
  const bool int_math = type == "Where" ? ins[1]->integral && ins[2]->integral : ins[0]->integral &&
                                                                                     (ins.size() < 2 || ins[1]->integral);
  const bool fmod = IntAttr(node, "fmod", 0) != 0;
  KnownValue v = Empty(out);
  const int64_t n = NumElements(out.shape);
  for (int64_t f = 0; f < n; ++f) {
    std::vector<size_t> at;
    for (const KnownValue* in : ins) at.push_back(BroadcastIndex(in->shape, out.shape, static_cast<size_t>(f)));
    const double a = ins[0]->Real(at[0]);
    const double b = ins.size() > 1 ? ins[1]->Real(at[1]) : 0.0;
    double r = 0;
    int64_t ri = 0;
    if (int_math) {
      const int64_t x = ins[type == "Where" ? 1 : 0]->ints[at[type == "Where" ? 1 : 0]];
      const int64_t y = ins.size() > 1 ? ins[type == "Where" ? 2 : 1]->ints[at[type == "Where" ? 2 : 1]] : 0;
      bool overflow = false;
      if (type == "Add") overflow = __builtin_add_overflow(x, y, &ri);
      else if (type == "Sub") overflow = __builtin_sub_overflow(x, y, &ri);
      else if (type == "Mul") overflow = __builtin_mul_overflow(x, y, &ri);
      else if (type == "Div" || type == "Mod") {
        if (y == 0 || (y == -1 && x == std::numeric_limits<int64_t>::min())) return std::nullopt;
        if (type == "Div") {
          ri = x / y;
        } else {
          ri = x % y;
          if (!fmod && ri != 0 && ((ri < 0) != (y < 0))) ri += y;
        }
      } else if (type == "Neg") ri = -x;
      else if (type == "Abs") ri = std::abs(x);
      else if (type == "Sign") ri = (x > 0) - (x < 0);
      else if (type == "Not") ri = x == 0;
      else if (type == "Max") ri = std::max(x, y);
      else if (type == "Min") ri = std::min(x, y);
      else if (type == "Where") ri = ins[0]->Real(at[0]) != 0 ? x : y;
      else if (type == "Floor" || type == "Ceil" || type == "Round") ri = x;
      else ri = 0, overflow = true;  // comparisons and powers fall through to real math below
      if (overflow && type != "Equal" && type != "Less" && type != "Greater" && type != "LessOrEqual" &&
          type != "GreaterOrEqual" && type != "And" && type != "Or" && type != "Pow") {
        return std::nullopt;
      }
      if (!overflow) {
        Push(&v, static_cast<double>(ri), ri);
        continue;
      }
    }
    if (type == "Add") r = a + b;
    else if (type == "Sub") r = a - b;
    else if (type == "Mul") r = a * b;
    else if (type == "Div") r = a / b;
    else if (type == "Mod") r = fmod ? std::fmod(a, b) : a - std::floor(a / b) * b;
    else if (type == "Pow") r = std::pow(a, b);
    else if (type == "Max") r = std::max(a, b);
    else if (type == "Min") r = std::min(a, b);
    else if (type == "Neg") r = -a;
    else if (type == "Abs") r = std::fabs(a);
    else if (type == "Floor") r = std::floor(a);
    else if (type == "Ceil") r = std::ceil(a);
    else if (type == "Round") r = std::nearbyint(a);
    else if (type == "Sqrt") r = std::sqrt(a);
    else if (type == "Reciprocal") r = 1.0 / a;
    else if (type == "Sign") r = (a > 0) - (a < 0);
    else if (type == "Not") r = a == 0;
    else if (type == "Equal") r = a == b;
    else if (type == "Less") r = a < b;
    else if (type == "Greater") r = a > b;
    else if (type == "LessOrEqual") r = a <= b;
    else if (type == "GreaterOrEqual") r = a >= b;
    else if (type == "And") r = a != 0 && b != 0;
    else if (type == "Or") r = a != 0 || b != 0;
    else if (type == "Where") r = a != 0 ? b : ins[2]->Real(at[2]);
    if (!std::isfinite(r) && v.integral) return std::nullopt;
    Push(&v, r, ToInt(r));
  }
  return v;
}

}  // namespace
}  // namespace onnx_import
}  // namespace graphopt
