// The values of the small tensors shapes are computed from, evaluated at import
// time by the shape evaluator (onnx_shapes.h): constants, Shape and Size, the data
// movement of shape vectors (Gather, Slice, Concat, Transpose, Expand, Tile, Reshape,
// Squeeze, Unsqueeze, Cast), Range, ConstantOfShape, integer reductions, and the
// elementwise arithmetic, comparisons and Where.
#pragma once

#include <optional>
#include <vector>

#include "import/onnx_util.h"

namespace graphopt {
namespace onnx_import {

// The shapes and known values of a node's inputs (nullptr: absent or not known).
struct NodeInputs {
  std::vector<const TensorInfo*> infos;
  std::vector<const KnownValue*> values;

  const TensorInfo* Info(int i) const { return i < static_cast<int>(infos.size()) ? infos[static_cast<size_t>(i)] : nullptr; }
  const KnownValue* Value(int i) const {
    return i < static_cast<int>(values.size()) ? values[static_cast<size_t>(i)] : nullptr;
  }
};

// The values of output 0 of node (whose shape and type are out) when they follow
// from the known values of its inputs; nullopt otherwise.
std::optional<KnownValue> EvaluateNodeValue(const ox::NodeProto& node, const NodeInputs& inputs, const TensorInfo& out);

// The values of output k (of shape and type out) of a Split node: the slice of its
// input along the axis that starts after the outputs before k; nullopt if the input
// or the earlier outputs' sizes are not known.
std::optional<KnownValue> EvaluateSplitValue(const ox::NodeProto& node, const NodeInputs& inputs, int k,
                                             const TensorInfo& out);

}  // namespace onnx_import
}  // namespace graphopt
