// The ONNX importer's shape evaluator: computes the shape and element type of every
// tensor, node by node in topological order, and the values of the small tensors
// that shapes are computed from (Shape, Size, Gather, Slice, Concat, Unsqueeze,
// Squeeze, Cast, arithmetic and comparisons, Range, ConstantOfShape, Expand,
// Reshape, Tile, Where, ...), so that every shape is computed, never guessed.
//
// For each node it runs ONNX's own inference function for the operator, giving it
// the known values of its inputs (so Reshape, Expand, Slice, Resize, Tile, TopK and
// the like see their computed shape arguments), then the evaluator's own rules for
// what ONNX leaves open, then the shape the file declares for the tensor (value_info)
// if it is concrete. A tensor whose shape still is not known is an error naming it
// and the node that makes it.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "import/onnx_util.h"
#include "import/onnx_values.h"

namespace graphopt {
namespace onnx_import {

class ShapeEvaluator {
 public:
  // model: the parsed model (its opset versions are read); path: for messages.
  ShapeEvaluator(const ox::ModelProto& model, std::string path);

  // A tensor known before any node runs: a graph input or an initializer.
  void SetSource(const std::string& name, TensorInfo info);
  void SetValue(const std::string& name, KnownValue value);
  // A shape the file declares for a tensor (value_info, graph outputs), used only
  // when the shape cannot be computed.
  void SetDeclared(const std::string& name, TensorInfo info);

  // Computes the outputs of one node whose inputs are all known. node_ref names the
  // node in messages ("node 'x' (Reshape)").
  Status Evaluate(const ox::NodeProto& node, const std::string& node_ref);

  const TensorInfo* Info(const std::string& name) const;
  const KnownValue* Value(const std::string& name) const;
  // Stated assumptions made on the way (data-dependent shapes, control flow), one
  // line each, for a warning.
  const std::vector<std::string>& assumptions() const { return assumptions_; }

 private:
  const TensorInfo* InputInfo(const ox::NodeProto& node, int i) const;
  const KnownValue* InputValue(const ox::NodeProto& node, int i) const;
  // Output types from ONNX's inference function; outputs it leaves open are absent.
  void RunOnnxInference(const ox::NodeProto& node, std::vector<std::optional<TensorInfo>>* outs,
                        std::string* error);
  // The importer's own output-0 shape for what ONNX leaves open.
  std::optional<Shape> RuleShape(const ox::NodeProto& node) const;
  // Output shape of a reduction whose axes are its second input (opset 18).
  std::optional<Shape> ReduceShape(const ox::NodeProto& node) const;
  // The shapes and known values of a node's inputs.
  NodeInputs Inputs(const ox::NodeProto& node) const;
  Status EvaluateControlFlow(const ox::NodeProto& node, const std::string& node_ref);
  const ox::TypeProto& TypeOf(const std::string& name);

  std::string path_;
  std::unordered_map<std::string, int> opsets_;  // domain ("" for the default) -> version
  std::unordered_map<std::string, TensorInfo> info_;
  std::unordered_map<std::string, TensorInfo> declared_;
  std::unordered_map<std::string, KnownValue> values_;
  std::unordered_map<std::string, ox::TypeProto> types_;      // ONNX types of known tensors
  std::unordered_map<std::string, ox::TensorProto> data_;     // known values as TensorProtos
  std::vector<std::string> assumptions_;
};

}  // namespace onnx_import
}  // namespace graphopt
