#include "import/onnx_util.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace graphopt {
namespace onnx_import {

DType DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case ox::TensorProto::UINT8:
    case ox::TensorProto::STRING:
      return DType::kU8;
    case ox::TensorProto::INT8:
      return DType::kI8;
    case ox::TensorProto::UINT16:
    case ox::TensorProto::INT16:
      return DType::kI16;
    case ox::TensorProto::INT32:
    case ox::TensorProto::UINT32:
      return DType::kI32;
    case ox::TensorProto::INT64:
    case ox::TensorProto::UINT64:
      return DType::kI64;
    case ox::TensorProto::BOOL:
      return DType::kBool;
    case ox::TensorProto::FLOAT16:
      return DType::kF16;
    case ox::TensorProto::BFLOAT16:
      return DType::kBF16;
    case ox::TensorProto::DOUBLE:
    case ox::TensorProto::COMPLEX64:
      return DType::kF64;
    default:
      return DType::kF32;
  }
}

bool IsIntegralOnnx(int32_t t) {
  return t == ox::TensorProto::INT64 || t == ox::TensorProto::INT32 || t == ox::TensorProto::INT16 ||
         t == ox::TensorProto::INT8 || t == ox::TensorProto::UINT64 || t == ox::TensorProto::UINT32 ||
         t == ox::TensorProto::UINT16 || t == ox::TensorProto::UINT8 || t == ox::TensorProto::BOOL;
}

bool IsFloatOnnx(int32_t t) {
  return t == ox::TensorProto::FLOAT || t == ox::TensorProto::DOUBLE || t == ox::TensorProto::FLOAT16 ||
         t == ox::TensorProto::BFLOAT16;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

int64_t CheckedElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (int64_t d : shape) {
    if (n > kMaxElements / d) return -1;
    n *= d;
  }
  return n;
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t SliceLength(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step == 0) return -1;
  if (dim == 0) return 0;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (start <= end) return 0;
  return step == std::numeric_limits<int64_t>::min() ? 1 : (start - end - 1) / -step + 1;
}

int64_t SliceStart(int64_t dim, int64_t start, int64_t step) {
  if (start < 0) start += dim;
  return step > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, dim - 1);
}

std::optional<KnownValue> ValueFromTensor(const ox::TensorProto& t) {
  if (t.data_location() == ox::TensorProto::EXTERNAL) return std::nullopt;
  KnownValue v;
  v.shape.assign(t.dims().begin(), t.dims().end());
  const int64_t n = CheckedElements(v.shape);
  if (n < 0 || n > kMaxTrackedValues) return std::nullopt;
  const int32_t type = t.data_type();
  if (type == ox::TensorProto::FLOAT || type == ox::TensorProto::DOUBLE) {
    v.integral = false;
    if (t.has_raw_data()) {
      const size_t width = type == ox::TensorProto::FLOAT ? 4 : 8;
      if (t.raw_data().size() != static_cast<size_t>(n) * width) return std::nullopt;
      for (int64_t i = 0; i < n; ++i) {
        const char* p = t.raw_data().data() + static_cast<size_t>(i) * width;
        if (width == 4) {
          float f;
          std::memcpy(&f, p, 4);
          v.reals.push_back(f);
        } else {
          double d;
          std::memcpy(&d, p, 8);
          v.reals.push_back(d);
        }
      }
    } else if (type == ox::TensorProto::FLOAT) {
      v.reals.assign(t.float_data().begin(), t.float_data().end());
    } else {
      v.reals.assign(t.double_data().begin(), t.double_data().end());
    }
    if (static_cast<int64_t>(v.reals.size()) != n) return std::nullopt;
    return v;
  }
  size_t width = 0;
  bool is_signed = true;
  switch (type) {
    case ox::TensorProto::INT64:
      width = 8;
      break;
    case ox::TensorProto::UINT64:
      width = 8;
      is_signed = false;
      break;
    case ox::TensorProto::INT32:
      width = 4;
      break;
    case ox::TensorProto::UINT32:
      width = 4;
      is_signed = false;
      break;
    case ox::TensorProto::INT16:
      width = 2;
      break;
    case ox::TensorProto::UINT16:
      width = 2;
      is_signed = false;
      break;
    case ox::TensorProto::INT8:
      width = 1;
      break;
    case ox::TensorProto::UINT8:
    case ox::TensorProto::BOOL:
      width = 1;
      is_signed = false;
      break;
    default:
      return std::nullopt;
  }
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != static_cast<size_t>(n) * width) return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t u = 0;
      std::memcpy(&u, raw.data() + static_cast<size_t>(i) * width, width);  // little-endian host
      int64_t value = static_cast<int64_t>(u);
      if (is_signed && width < 8 && (u >> (8 * width - 1)) != 0) value -= int64_t{1} << (8 * width);
      v.ints.push_back(value);
    }
  } else if (type == ox::TensorProto::INT64) {
    v.ints.assign(t.int64_data().begin(), t.int64_data().end());
  } else if (type == ox::TensorProto::UINT64 || type == ox::TensorProto::UINT32) {
    for (uint64_t u : t.uint64_data()) v.ints.push_back(static_cast<int64_t>(u));
  } else {
    v.ints.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (static_cast<int64_t>(v.ints.size()) != n) return std::nullopt;
  return v;
}

ox::TensorProto TensorFromValue(const KnownValue& v, int32_t elem_type) {
  ox::TensorProto t;
  t.set_data_type(elem_type);
  for (int64_t d : v.shape) t.add_dims(d);
  for (size_t i = 0; i < v.size(); ++i) {
    switch (elem_type) {
      case ox::TensorProto::INT64:
        t.add_int64_data(v.integral ? v.ints[i] : static_cast<int64_t>(v.reals[i]));
        break;
      case ox::TensorProto::FLOAT:
        t.add_float_data(static_cast<float>(v.Real(i)));
        break;
      case ox::TensorProto::DOUBLE:
        t.add_double_data(v.Real(i));
        break;
      case ox::TensorProto::UINT64:
      case ox::TensorProto::UINT32:
        t.add_uint64_data(static_cast<uint64_t>(v.integral ? v.ints[i] : static_cast<int64_t>(v.reals[i])));
        break;
      default:
        t.add_int32_data(static_cast<int32_t>(v.integral ? v.ints[i] : static_cast<int64_t>(v.reals[i])));
        break;
    }
  }
  return t;
}

const ox::AttributeProto* FindAttr(const ox::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t IntAttr(const ox::NodeProto& node, const std::string& name, int64_t fallback) {
  const ox::AttributeProto* a = FindAttr(node, name);
  return a != nullptr && a->has_i() ? a->i() : fallback;
}

float FloatAttr(const ox::NodeProto& node, const std::string& name, float fallback) {
  const ox::AttributeProto* a = FindAttr(node, name);
  return a != nullptr && a->has_f() ? a->f() : fallback;
}

std::string StringAttr(const ox::NodeProto& node, const std::string& name, const std::string& fallback) {
  const ox::AttributeProto* a = FindAttr(node, name);
  return a != nullptr && a->has_s() ? a->s() : fallback;
}

std::optional<std::vector<int64_t>> IntsAttr(const ox::NodeProto& node, const std::string& name) {
  const ox::AttributeProto* a = FindAttr(node, name);
  if (a == nullptr) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

Attrs ConvertAttrs(const ox::NodeProto& node) {
  Attrs attrs;
  for (const auto& a : node.attribute()) {
    switch (a.type()) {
      case ox::AttributeProto::INT:
        attrs[a.name()] = static_cast<int64_t>(a.i());
        break;
      case ox::AttributeProto::FLOAT:
        attrs[a.name()] = static_cast<double>(a.f());
        break;
      case ox::AttributeProto::STRING:
        attrs[a.name()] = a.s();
        break;
      case ox::AttributeProto::INTS:
        attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
        break;
      default:
        break;
    }
  }
  return attrs;
}

}  // namespace onnx_import
}  // namespace graphopt
