// What ONNX's own shape inference functions (libonnx 1.12, Debian 12) take on
// trust: attribute values they divide by or loop over without checking them. A
// malformed file must be an error naming the node, not a crash of the importer, so
// these are checked before the library's inference function runs:
//   - "strides", "dilations" and "kernel_shape" entries must be >= 1 (a stride of 0
//     is an integer division by zero in the convolution and pooling inference);
//   - "blocksize" must lie in [1, 2^31] (DepthToSpace divides by its square, which
//     a blocksize of 2^32 wraps to 0);
//   - with auto_pad SAME_UPPER or SAME_LOWER and no "pads", a spatial dimension may
//     hold at most 2^28 strides (the inference computes dimension mod stride by
//     repeated subtraction: 2^47 steps for a dimension of 2^48).
// The checks apply to every attribute of the name, wherever it appears: ONNX reads
// the last attribute of a repeated name, so each one is checked.
#pragma once

#include <string>

#include "core/status.h"
#include "import/onnx_util.h"

namespace graphopt {
namespace onnx_import {

// `input` is the shape of the node's first input if known (nullptr otherwise);
// `where` starts every error message ("model.onnx: node 'c' (Conv)").
Status CheckOnnxInferenceAttributes(const ox::NodeProto& node, const TensorInfo* input, const std::string& where);

}  // namespace onnx_import
}  // namespace graphopt
