#include "import/onnx_shapes.h"

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <optional>

#include "import/onnx_inference_guard.h"
#include "import/onnx_op_table.h"

namespace graphopt {
namespace onnx_import {
namespace {

std::string Domain(const std::string& d) { return IsDefaultDomain(d) ? "" : d; }

// Output shape of an Einsum equation over operands of the given shapes (explicit
// "->" output or the implicit one: the "..." dimensions, then the letters used once,
// in alphabetical order); nullopt if the equation does not fit the operands.
std::optional<Shape> EinsumShape(std::string eq, const std::vector<Shape>& operands) {
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t from = 0;;) {
    const size_t comma = lhs.find(',', from);
    terms.push_back(lhs.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (terms.size() != operands.size()) return std::nullopt;
  std::map<char, int64_t> sizes;
  std::map<char, int> uses;
  Shape ellipsis;  // broadcast of the "..." dimensions
  for (size_t k = 0; k < terms.size(); ++k) {
    const std::string& term = terms[k];
    const Shape& s = operands[k];
    const size_t dots = term.find("...");
    const size_t letters = term.size() - (dots == std::string::npos ? 0 : 3);
    if (letters > s.size() || (dots == std::string::npos && letters != s.size())) return std::nullopt;
    const size_t ell = s.size() - letters;
    size_t axis = 0;
    for (size_t i = 0; i < term.size(); ++i) {
      if (dots != std::string::npos && i == dots) {
        std::optional<Shape> b = Broadcast(ellipsis, Shape(s.begin() + static_cast<int64_t>(axis),
                                                           s.begin() + static_cast<int64_t>(axis + ell)));
        if (!b) return std::nullopt;
        ellipsis = *b;
        axis += ell;
        i += 2;
        continue;
      }
      const char c = term[i];
      const int64_t d = s[axis++];
      auto [it, inserted] = sizes.emplace(c, d);
      if (!inserted && it->second != d) {
        if (it->second != 1 && d != 1) return std::nullopt;
        it->second = std::max(it->second, d);
      }
      ++uses[c];
    }
  }
  Shape out;
  if (arrow == std::string::npos) {
    out = ellipsis;
    for (const auto& [c, n] : uses) {
      if (n == 1) out.push_back(sizes[c]);
    }
    return out;
  }
  const std::string rhs = eq.substr(arrow + 2);
  for (size_t i = 0; i < rhs.size(); ++i) {
    if (rhs.compare(i, 3, "...") == 0) {
      out.insert(out.end(), ellipsis.begin(), ellipsis.end());
      i += 2;
      continue;
    }
    auto it = sizes.find(rhs[i]);
    if (it == sizes.end()) return std::nullopt;
    out.push_back(it->second);
  }
  return out;
}

}  // namespace

ShapeEvaluator::ShapeEvaluator(const ox::ModelProto& model, std::string path) : path_(std::move(path)) {
  for (const auto& o : model.opset_import()) opsets_[Domain(o.domain())] = static_cast<int>(o.version());
}

void ShapeEvaluator::SetSource(const std::string& name, TensorInfo info) { info_[name] = std::move(info); }
void ShapeEvaluator::SetValue(const std::string& name, KnownValue value) { values_[name] = std::move(value); }
void ShapeEvaluator::SetDeclared(const std::string& name, TensorInfo info) { declared_[name] = std::move(info); }

const TensorInfo* ShapeEvaluator::Info(const std::string& name) const {
  auto it = info_.find(name);
  return it == info_.end() ? nullptr : &it->second;
}

const KnownValue* ShapeEvaluator::Value(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

NodeInputs ShapeEvaluator::Inputs(const ox::NodeProto& node) const {
  NodeInputs inputs;
  for (int i = 0; i < node.input_size(); ++i) {
    inputs.infos.push_back(InputInfo(node, i));
    inputs.values.push_back(InputValue(node, i));
  }
  return inputs;
}

const TensorInfo* ShapeEvaluator::InputInfo(const ox::NodeProto& node, int i) const {
  return i < node.input_size() && !node.input(i).empty() ? Info(node.input(i)) : nullptr;
}

const KnownValue* ShapeEvaluator::InputValue(const ox::NodeProto& node, int i) const {
  return i < node.input_size() && !node.input(i).empty() ? Value(node.input(i)) : nullptr;
}

const ox::TypeProto& ShapeEvaluator::TypeOf(const std::string& name) {
  auto it = types_.find(name);
  if (it != types_.end()) return it->second;
  ox::TypeProto& t = types_[name];
  const TensorInfo& info = info_.at(name);
  auto* tt = t.mutable_tensor_type();
  tt->set_elem_type(info.elem_type);
  auto* shape = tt->mutable_shape();
  for (int64_t d : info.shape) shape->add_dim()->set_dim_value(d);
  return t;
}

void ShapeEvaluator::RunOnnxInference(const ox::NodeProto& node, std::vector<std::optional<TensorInfo>>* outs,
                                      std::string* error) {
  auto opset = opsets_.find(Domain(node.domain()));
  if (opset == opsets_.end()) return;
  const ox::OpSchema* schema = ox::OpSchemaRegistry::Schema(node.op_type(), opset->second, Domain(node.domain()));
  if (schema == nullptr || !schema->has_type_and_shape_inference_function()) return;
  std::unordered_map<std::string, ox::TypeProto*> types;
  std::unordered_map<std::string, const ox::TensorProto*> data;
  for (const auto& in : node.input()) {
    if (in.empty() || info_.count(in) == 0) continue;
    types[in] = const_cast<ox::TypeProto*>(&TypeOf(in));
    if (const KnownValue* v = Value(in)) {
      auto it = data_.find(in);
      if (it == data_.end()) it = data_.emplace(in, TensorFromValue(*v, info_.at(in).elem_type)).first;
      data[in] = &it->second;
    }
  }
  try {
    ox::shape_inference::InferenceContextImpl ctx(const_cast<ox::NodeProto&>(node), types, data, {});
    schema->GetTypeAndShapeInferenceFunction()(ctx);
    for (int k = 0; k < node.output_size(); ++k) {
      const ox::TypeProto* t = ctx.getOutputType(static_cast<size_t>(k));
      if (t == nullptr || !t->has_tensor_type() || !t->tensor_type().has_shape()) continue;
      TensorInfo info;
      info.elem_type = t->tensor_type().elem_type();
      bool complete = true;
      for (const auto& d : t->tensor_type().shape().dim()) {
        complete &= d.has_dim_value() && d.dim_value() >= 0;
        info.shape.push_back(d.dim_value());
      }
      if (complete) (*outs)[static_cast<size_t>(k)] = std::move(info);
    }
  } catch (const std::exception& e) {
    *error = e.what();
  }
}

Status ShapeEvaluator::EvaluateControlFlow(const ox::NodeProto& node, const std::string& node_ref) {
  const std::string& type = node.op_type();
  if (type != "If") {
    return InvalidArgument(path_ + ": " + node_ref +
                           ": loops are not imported (their cost depends on the trip count); export the model "
                           "with the loop unrolled");
  }
  // If: the outputs take the then-branch's declared shapes, which the else branch must match.
  const ox::AttributeProto* then_branch = FindAttr(node, "then_branch");
  const ox::AttributeProto* else_branch = FindAttr(node, "else_branch");
  for (int k = 0; k < node.output_size(); ++k) {
    std::optional<TensorInfo> shapes[2];
    int b = 0;
    for (const ox::AttributeProto* branch : {then_branch, else_branch}) {
      if (branch != nullptr && branch->has_g() && k < branch->g().output_size()) {
        const auto& tt = branch->g().output(k).type().tensor_type();
        TensorInfo info;
        info.elem_type = tt.elem_type();
        bool complete = tt.has_shape();
        for (const auto& d : tt.shape().dim()) {
          complete &= d.has_dim_value();
          info.shape.push_back(d.dim_value());
        }
        if (complete) shapes[b] = info;
      }
      ++b;
    }
    if (!shapes[0] || (shapes[1] && shapes[1]->shape != shapes[0]->shape)) {
      return InvalidArgument(path_ + ": " + node_ref + ": the shape of output '" + node.output(k) +
                             "' depends on the branch taken (the branches do not declare one concrete shape)");
    }
    info_[node.output(k)] = *shapes[0];
  }
  assumptions_.push_back(node_ref + " is one op: its outputs take the branches' shapes and its cost is not counted");
  return Status::Ok();
}

Status ShapeEvaluator::Evaluate(const ox::NodeProto& node, const std::string& node_ref) {
  const std::string& type = node.op_type();
  const bool default_domain = IsDefaultDomain(node.domain());
  if (default_domain && (type == "If" || type == "Loop" || type == "Scan")) return EvaluateControlFlow(node, node_ref);
  if (default_domain && (type.rfind("Sequence", 0) == 0 || type == "SplitToSequence" || type == "ConcatFromSequence")) {
    return InvalidArgument(path_ + ": " + node_ref +
                           ": tensor sequences are not imported (exporters write them for loops over Python lists "
                           "of tensors, e.g. torch.tensor_split; their length is not known at import time)");
  }
  std::vector<std::optional<TensorInfo>> outs(static_cast<size_t>(node.output_size()));
  std::string onnx_error;
  if (default_domain && type == "Constant") {
    if (const auto* a = FindAttr(node, "value"); a != nullptr && a->has_t()) {
      outs[0] = TensorInfo{Shape(a->t().dims().begin(), a->t().dims().end()), a->t().data_type()};
    }
  }
  // From opset 18 the reductions take their axes as an input; the ONNX library's
  // schemas (up to opset 17) would read them as an attribute and reduce every axis.
  const bool axes_input_reduce = default_domain && type.rfind("Reduce", 0) == 0 && type != "ReduceSum" &&
                                 opsets_.count("") != 0 && opsets_.at("") >= 18;
  if (axes_input_reduce) {
    if (std::optional<Shape> s = ReduceShape(node)) {
      outs[0] = TensorInfo{*s, InputInfo(node, 0) != nullptr ? InputInfo(node, 0)->elem_type : ox::TensorProto::FLOAT};
    }
  }
  if (!outs.empty() && !outs[0] && !axes_input_reduce) {
    GO_RETURN_IF_ERROR(CheckOnnxInferenceAttributes(
        node, [&](int i) { return InputInfo(node, i); }, path_ + ": " + node_ref));
    RunOnnxInference(node, &outs, &onnx_error);
  }
  if (default_domain && type == "NonZero" && !outs[0]) {
    if (const TensorInfo* in = InputInfo(node, 0)) {
      // Data-dependent: the number of non-zero elements is bounded by the input's size.
      outs[0] = TensorInfo{{static_cast<int64_t>(in->shape.size()), NumElements(in->shape)}, ox::TensorProto::INT64};
      assumptions_.push_back(node_ref + ": output '" + node.output(0) +
                             "' has a data-dependent size; assumed every input element is non-zero (" +
                             ShapeToString(outs[0]->shape) + ", an upper bound)");
    }
  }
  for (int k = 0; k < node.output_size(); ++k) {
    const std::string& name = node.output(k);
    if (name.empty()) continue;
    std::optional<TensorInfo>& out = outs[static_cast<size_t>(k)];
    if (!out && k == 0) {
      if (std::optional<Shape> rule = RuleShape(node)) {
        int32_t elem = ox::TensorProto::FLOAT;
        if (const TensorInfo* first = InputInfo(node, 0)) elem = first->elem_type;
        if (type == "Shape" || type == "Size" || type == "NonZero") elem = ox::TensorProto::INT64;
        if (const OnnxOpEntry* e = FindOnnxOp(type); e != nullptr && (e->kind == OpKind::kCompare || e->kind == OpKind::kNot)) {
          elem = ox::TensorProto::BOOL;
        }
        if (type == "ConstantOfShape") {
          const auto* a = FindAttr(node, "value");
          elem = a != nullptr && a->has_t() ? a->t().data_type() : ox::TensorProto::FLOAT;
        }
        out = TensorInfo{*rule, elem};
      }
    }
    if (!out) {
      auto declared = declared_.find(name);
      if (declared != declared_.end()) out = declared->second;
    }
    if (!out) {
      return InvalidArgument(path_ + ": the shape of tensor '" + name + "', output " + std::to_string(k) + " of " +
                             node_ref + ", cannot be computed" +
                             (onnx_error.empty() ? std::string(" from its inputs' shapes and values")
                                                 : " (ONNX inference: " + onnx_error + ")"));
    }
    if (CheckedElements(out->shape) < 0) {
      return InvalidArgument(path_ + ": tensor '" + name + "' made by " + node_ref + " has an invalid shape " +
                             ShapeToString(out->shape));
    }
    info_[name] = *out;
  }
  if (!default_domain) return Status::Ok();
  // Values: output 0 of any node they follow for; every output of a Split.
  const int valued = type == "Split" ? node.output_size() : std::min(node.output_size(), 1);
  const NodeInputs inputs = Inputs(node);
  for (int k = 0; k < valued; ++k) {
    if (node.output(k).empty()) continue;
    const TensorInfo& out = info_.at(node.output(k));
    if (CheckedElements(out.shape) > kMaxTrackedValues) continue;
    std::optional<KnownValue> v =
        type == "Split" ? EvaluateSplitValue(node, inputs, k, out) : EvaluateNodeValue(node, inputs, out);
    if (v && static_cast<int64_t>(v->size()) == NumElements(out.shape)) {
      v->shape = out.shape;
      values_[node.output(k)] = std::move(*v);
    }
  }
  return Status::Ok();
}

std::optional<Shape> ShapeEvaluator::ReduceShape(const ox::NodeProto& node) const {
  const TensorInfo* data = InputInfo(node, 0);
  if (data == nullptr) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(data->shape.size());
  std::vector<int64_t> axes;
  if (node.input_size() > 1 && !node.input(1).empty()) {
    const KnownValue* v = InputValue(node, 1);
    if (v == nullptr || !v->integral) return std::nullopt;
    axes = v->ints;
  }
  if (axes.empty() && IntAttr(node, "noop_with_empty_axes", 0) != 0) return data->shape;
  std::vector<bool> reduced(static_cast<size_t>(rank), axes.empty());
  for (int64_t a : axes) {
    if (a < 0) a += rank;
    if (a < 0 || a >= rank) return std::nullopt;
    reduced[static_cast<size_t>(a)] = true;
  }
  const bool keep = IntAttr(node, "keepdims", 1) != 0;
  Shape out;
  for (size_t d = 0; d < data->shape.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(data->shape[d]);
    } else if (keep) {
      out.push_back(1);
    }
  }
  return out;
}

std::optional<Shape> ShapeEvaluator::RuleShape(const ox::NodeProto& node) const {
  const std::string& type = node.op_type();
  const TensorInfo* data = InputInfo(node, 0);
  // Operators newer than the ONNX library's schemas (Gelu, GroupNormalization, ...):
  // elementwise maps broadcast their inputs, normalizations keep their input's shape.
  const OnnxOpEntry* entry = IsDefaultDomain(node.domain()) ? FindOnnxOp(type) : nullptr;
  if (entry != nullptr && data != nullptr) {
    if (CategoryOf(entry->kind) == OpCategory::kElementwise && type != "Cast" && type != "Trilu") {
      Shape out = data->shape;
      for (int i = 1; i < node.input_size(); ++i) {
        const TensorInfo* in = InputInfo(node, i);
        if (in == nullptr) return std::nullopt;
        std::optional<Shape> b = Broadcast(out, in->shape);
        if (!b) return std::nullopt;
        out = *b;
      }
      return out;
    }
    if (entry->kind == OpKind::kLayerNorm || entry->kind == OpKind::kBatchNorm || type == "Trilu") return data->shape;
  }
  if (type == "Einsum" && IsDefaultDomain(node.domain())) {
    std::vector<Shape> operands;
    for (int i = 0; i < node.input_size(); ++i) {
      const TensorInfo* in = InputInfo(node, i);
      if (in == nullptr) return std::nullopt;
      operands.push_back(in->shape);
    }
    return EinsumShape(StringAttr(node, "equation", ""), operands);
  }
  if (type == "Slice" && data != nullptr) {
    std::vector<int64_t> starts, ends, axes, steps;
    if (auto s = IntsAttr(node, "starts")) {
      starts = *s;
      ends = IntsAttr(node, "ends").value_or(std::vector<int64_t>{});
      axes = IntsAttr(node, "axes").value_or(std::vector<int64_t>{});
    } else {
      const KnownValue* s_value = InputValue(node, 1);
      const KnownValue* e_value = InputValue(node, 2);
      if (s_value == nullptr || e_value == nullptr || !s_value->integral || !e_value->integral) return std::nullopt;
      starts = s_value->ints;
      ends = e_value->ints;
      for (int i : {3, 4}) {
        if (node.input_size() <= i || node.input(i).empty()) continue;
        const KnownValue* v = InputValue(node, i);
        if (v == nullptr || !v->integral) return std::nullopt;
        (i == 3 ? axes : steps) = v->ints;
      }
    }
    if (axes.empty()) {
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    }
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
      return std::nullopt;
    Shape out = data->shape;
    const int64_t rank = static_cast<int64_t>(out.size());
    for (size_t i = 0; i < starts.size(); ++i) {
      const int64_t axis = axes[i] < 0 ? axes[i] + rank : axes[i];
      if (axis < 0 || axis >= rank) return std::nullopt;
      const int64_t len = SliceLength(out[static_cast<size_t>(axis)], starts[i], ends[i], steps[i]);
      if (len < 0) return std::nullopt;
      out[static_cast<size_t>(axis)] = len;
    }
    return out;
  }
  const KnownValue* shape_value = InputValue(node, 1);
  if (shape_value != nullptr && !shape_value->integral) shape_value = nullptr;
  if (type == "Reshape" && data != nullptr && shape_value != nullptr) {
    const bool allow_zero = IntAttr(node, "allowzero", 0) != 0;
    Shape out;
    int64_t infer_at = -1, known = 1;
    for (size_t i = 0; i < shape_value->ints.size(); ++i) {
      int64_t d = shape_value->ints[i];
      if (d == 0 && !allow_zero) {
        if (i >= data->shape.size()) return std::nullopt;
        d = data->shape[i];
      }
      if (d == -1) {
        if (infer_at >= 0) return std::nullopt;
        infer_at = static_cast<int64_t>(i);
        d = 1;
      } else if (d < 0 || __builtin_mul_overflow(known, d, &known)) {
        return std::nullopt;
      }
      out.push_back(d);
    }
    if (infer_at >= 0) {
      if (known == 0 || NumElements(data->shape) % known != 0) return std::nullopt;
      out[static_cast<size_t>(infer_at)] = NumElements(data->shape) / known;
    }
    return out;
  }
  if (type == "Expand" && data != nullptr && shape_value != nullptr) return Broadcast(data->shape, shape_value->ints);
  if (type == "Tile" && data != nullptr && shape_value != nullptr && shape_value->ints.size() == data->shape.size()) {
    Shape out = data->shape;
    for (size_t i = 0; i < out.size(); ++i) {
      if (__builtin_mul_overflow(out[i], shape_value->ints[i], &out[i])) return std::nullopt;
    }
    return out;
  }
  if (type == "ConstantOfShape") {
    if (const KnownValue* shape = InputValue(node, 0); shape != nullptr && shape->integral) return shape->ints;
  }
  return std::nullopt;
}

}  // namespace onnx_import
}  // namespace graphopt
