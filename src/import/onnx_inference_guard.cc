#include "import/onnx_inference_guard.h"

#include <cstdint>
#include <vector>

namespace graphopt {
namespace onnx_import {
namespace {

constexpr int64_t kMaxBlocksize = int64_t{1} << 31;
constexpr int64_t kMaxStridesPerDimension = int64_t{1} << 28;

// Every attribute of `node` called `name`.
std::vector<const ox::AttributeProto*> AttrsNamed(const ox::NodeProto& node, const std::string& name) {
  std::vector<const ox::AttributeProto*> found;
  for (const auto& a : node.attribute()) {
    if (a.name() == name) found.push_back(&a);
  }
  return found;
}

// The int list of the last attribute called `name` (the one ONNX reads), or empty.
std::vector<int64_t> LastInts(const ox::NodeProto& node, const std::string& name) {
  const std::vector<const ox::AttributeProto*> attrs = AttrsNamed(node, name);
  if (attrs.empty()) return {};
  return std::vector<int64_t>(attrs.back()->ints().begin(), attrs.back()->ints().end());
}

}  // namespace

Status CheckOnnxInferenceAttributes(const ox::NodeProto& node, const std::function<const TensorInfo*(int)>& input_info,
                                    const std::string& where) {
  const TensorInfo* input = input_info(0);
  for (const char* name : {"strides", "dilations", "kernel_shape"}) {
    for (const ox::AttributeProto* a : AttrsNamed(node, name)) {
      for (int i = 0; i < a->ints_size(); ++i) {
        if (a->ints(i) < 1) {
          return InvalidArgument(where + ": attribute " + name + "[" + std::to_string(i) + "] is " +
                                 std::to_string(a->ints(i)) + ", must be at least 1");
        }
      }
    }
  }
  for (const ox::AttributeProto* a : AttrsNamed(node, "blocksize")) {
    if (a->has_i() && (a->i() < 1 || a->i() > kMaxBlocksize)) {
      return InvalidArgument(where + ": attribute blocksize is " + std::to_string(a->i()) + ", must lie in [1, 2^31]");
    }
  }
  const std::vector<const ox::AttributeProto*> auto_pad = AttrsNamed(node, "auto_pad");
  const bool same = !auto_pad.empty() && (auto_pad.back()->s() == "SAME_UPPER" || auto_pad.back()->s() == "SAME_LOWER");
  if (same && AttrsNamed(node, "pads").empty() && input != nullptr) {
    const std::vector<int64_t> strides = LastInts(node, "strides");
    for (size_t i = 0; i < strides.size() && i + 2 < input->shape.size(); ++i) {
      const int64_t dim = input->shape[i + 2];
      if (dim / strides[i] > kMaxStridesPerDimension) {
        return InvalidArgument(where + ": spatial dimension " + std::to_string(i) + " of the input (" +
                               std::to_string(dim) + ") holds more than 2^28 strides of " + std::to_string(strides[i]) +
                               ": too large for SAME padding");
      }
    }
  }
  // The convolutions whose inference reads the kernel from the weights (input 1;
  // input 3 for QLinearConv) when "kernel_shape" is absent.
  const std::string& type = node.op_type();
  const int weights = type == "Conv" || type == "ConvInteger" ? 1 : type == "QLinearConv" ? 3 : -1;
  if (weights >= 0 && AttrsNamed(node, "kernel_shape").empty() && input != nullptr) {
    const TensorInfo* w = input_info(weights);
    if (w != nullptr && w->shape.size() != input->shape.size()) {
      return InvalidArgument(where + ": the weights (input " + std::to_string(weights) + ") have rank " +
                             std::to_string(w->shape.size()) + " but the input has rank " +
                             std::to_string(input->shape.size()) + ": they must be equal");
    }
  }
  return Status::Ok();
}

}  // namespace onnx_import
}  // namespace graphopt
