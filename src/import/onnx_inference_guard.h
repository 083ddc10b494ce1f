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
//     repeated subtraction: 2^47 steps for a dimension of 2^48);
//   - a convolution without "kernel_shape" takes its kernel from the weights' shape,
//     so the weights must have the input's rank (the inference indexes the
//     dilations, sized by the input, with the weights' spatial dimensions: a read
//     out of bounds for 4-D weights on a 2-D input).
// The checks apply to every attribute of the name, wherever it appears: ONNX reads
// the last attribute of a repeated name, so each one is checked.
#pragma once

#include <functional>
#include <string>

#include "core/status.h"
#include "import/onnx_util.h"

namespace graphopt {
namespace onnx_import {

// `input(i)` is the shape of the node's input i if known (nullptr otherwise);
// `where` starts every error message ("model.onnx: node 'c' (Conv)").
Status CheckOnnxInferenceAttributes(const ox::NodeProto& node, const std::function<const TensorInfo*(int)>& input,
                                    const std::string& where);

}  // namespace onnx_import
}  // namespace graphopt
