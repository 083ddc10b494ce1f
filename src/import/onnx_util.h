// Helpers shared by the ONNX importer's parts (onnx_import.cc, onnx_shapes.cc,
// onnx_op_table.cc): element types, node attributes, and the tensor values the
// importer knows at import time (shapes, indices and small constants).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace graphopt {
namespace onnx_import {

namespace ox = ::ONNX_NAMESPACE;

// Largest element count of a tensor, far above any real model; sums of tensor bytes
// stay well inside an int64.
inline constexpr int64_t kMaxElements = int64_t{1} << 48;
// Largest tensor whose values are tracked at import time.
inline constexpr int64_t kMaxTrackedValues = 4096;

// Shape and element type of a tensor whose shape is known.
struct TensorInfo {
  Shape shape;
  int32_t elem_type = ox::TensorProto::FLOAT;  // ONNX element type
};

// The values of a small tensor known at import time. Integer and boolean tensors
// hold `ints`, floating-point tensors `reals`; one of the two has the tensor's
// element count.
struct KnownValue {
  Shape shape;
  bool integral = true;
  std::vector<int64_t> ints;
  std::vector<double> reals;

  size_t size() const { return integral ? ints.size() : reals.size(); }
  double Real(size_t i) const { return integral ? static_cast<double>(ints[i]) : reals[i]; }
};

DType DTypeFromOnnx(int32_t elem_type);
bool IsIntegralOnnx(int32_t elem_type);
bool IsFloatOnnx(int32_t elem_type);
bool IsDefaultDomain(const std::string& domain);

// Element count of a shape, or -1 if a dimension is negative or the count exceeds
// kMaxElements.
int64_t CheckedElements(const Shape& shape);
// Numpy broadcast of two shapes; nullopt if they do not broadcast.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b);
// Length of one sliced axis under the ONNX Slice rules; -1 if the step is 0.
int64_t SliceLength(int64_t dim, int64_t start, int64_t end, int64_t step);
// First index a Slice reads on an axis of size dim (after clamping).
int64_t SliceStart(int64_t dim, int64_t start, int64_t step);

// Values of a TensorProto stored in the file (integer, boolean or floating point);
// nullopt for external data, other types or more than kMaxTrackedValues elements.
std::optional<KnownValue> ValueFromTensor(const ox::TensorProto& t);
// A TensorProto holding v as elem_type (for ONNX's shape inference).
ox::TensorProto TensorFromValue(const KnownValue& v, int32_t elem_type);

const ox::AttributeProto* FindAttr(const ox::NodeProto& node, const std::string& name);
int64_t IntAttr(const ox::NodeProto& node, const std::string& name, int64_t fallback);
float FloatAttr(const ox::NodeProto& node, const std::string& name, float fallback);
std::string StringAttr(const ox::NodeProto& node, const std::string& name, const std::string& fallback);
std::optional<std::vector<int64_t>> IntsAttr(const ox::NodeProto& node, const std::string& name);
// The int, float, string and int-list attributes of a node (tensors, graphs and
// float lists are left out: costs never need them).
Attrs ConvertAttrs(const ox::NodeProto& node);

}  // namespace onnx_import
}  // namespace graphopt
