// The importer runs in stages: parse the ModelProto, check that every tensor is
// defined once and the nodes form a DAG (sorting them if the file does not), give
// the graph inputs concrete dimensions from the bound symbolic dimensions, compute
// every tensor's shape node by node (onnx_shapes.h), and build the Graph op by op
// with the kinds and costs of the operator table (onnx_op_table.h).
#include "import/onnx_import.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <climits>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/files.h"
#include "core/logging.h"
#include "graph/verifier.h"
#include "import/onnx_op_table.h"
#include "import/onnx_shapes.h"
#include "import/onnx_util.h"

namespace graphopt {
namespace {

using namespace onnx_import;  // NOLINT: the importer's own helpers

// Names read inside the subgraphs of g's nodes that g does not define itself.
void CollectOuterReads(const ox::GraphProto& g, std::unordered_set<std::string> local, std::vector<std::string>* reads,
                       std::unordered_set<std::string>* seen);

void CollectNodeOuterReads(const ox::NodeProto& node, const std::unordered_set<std::string>& local,
                           std::vector<std::string>* reads, std::unordered_set<std::string>* seen) {
  for (const auto& a : node.attribute()) {
    if (a.has_g()) CollectOuterReads(a.g(), local, reads, seen);
    for (const auto& sub : a.graphs()) CollectOuterReads(sub, local, reads, seen);
  }
}

void CollectOuterReads(const ox::GraphProto& g, std::unordered_set<std::string> local, std::vector<std::string>* reads,
                       std::unordered_set<std::string>* seen) {
  for (const auto& v : g.input()) local.insert(v.name());
  for (const auto& t : g.initializer()) local.insert(t.name());
  for (const auto& s : g.sparse_initializer()) local.insert(s.values().name());
  for (const auto& node : g.node()) {
    for (const auto& in : node.input()) {
      if (!in.empty() && local.count(in) == 0 && seen->insert(in).second) reads->push_back(in);
    }
    CollectNodeOuterReads(node, local, reads, seen);
    for (const auto& out : node.output()) local.insert(out);
  }
}

// Gives each op a unique name: the wanted one, else the first free "<name>_<k>".
class UniqueNamer {
 public:
  std::string Take(const std::string& wanted) {
    if (used_.insert(wanted).second) return wanted;
    int& k = next_suffix_[wanted];
    for (;;) {
      std::string name = wanted + "_" + std::to_string(++k);
      if (used_.insert(name).second) return name;
    }
  }

 private:
  std::unordered_set<std::string> used_;
  std::unordered_map<std::string, int> next_suffix_;
};

// Reads one ONNX model into a Graph. It owns the parsed ModelProto and the shape
// evaluator, which holds the shape, element type and known values of every tensor.
// One instance imports one file.
class OnnxImporter {
 public:
  OnnxImporter(std::string path, const OnnxImportOptions& options)
      : path_(std::move(path)), options_(options) {}

  StatusOr<Graph> Import(const std::string& bytes) {
    GO_RETURN_IF_ERROR(Parse(bytes));
    GO_RETURN_IF_ERROR(CheckAndSortNodes());
    evaluator_ = std::make_unique<ShapeEvaluator>(model_, path_);
    GO_RETURN_IF_ERROR(ResolveInputs());
    for (int i = 0; i < graph().node_size(); ++i) GO_RETURN_IF_ERROR(evaluator_->Evaluate(graph().node(i), NodeRef(i)));
    if (!evaluator_->assumptions().empty()) {
      std::string list;
      for (const auto& a : evaluator_->assumptions()) list += "\n  " + a;
      Warn(path_ + ": imported with stated assumptions:" + list);
    }
    return BuildGraph();
  }

 private:
  Status Error(const std::string& what) const { return InvalidArgument(path_ + ": " + what); }
  void Warn(const std::string& message) const {
    if (options_.warnings != nullptr) {
      options_.warnings->push_back(message);
    } else {
      LogWarning(message);
    }
  }
  const ox::GraphProto& graph() const { return model_.graph(); }

  std::string NodeRef(int i) const {
    const ox::NodeProto& n = graph().node(i);
    return "node '" +
           (n.name().empty() ? n.op_type() + "_" + std::to_string(original_index_[static_cast<size_t>(i)]) : n.name()) +
           "' (" + n.op_type() + ")";
  }

  Status Parse(const std::string& bytes) {
    if (bytes.size() > static_cast<size_t>(INT_MAX))
      return ParseError(path_ + ": file larger than 2 GB is not an ONNX model");
    if (!model_.ParseFromString(bytes)) {
      return ParseError(path_ + ": not an ONNX model: the protobuf does not parse (truncated or not an .onnx file)");
    }
    if (!model_.has_graph()) return ParseError(path_ + ": not an ONNX model: it has no graph");
    if (model_.ir_version() <= 0) return ParseError(path_ + ": not an ONNX model: it has no IR version");
    if (model_.opset_import_size() == 0) {
      return ParseError(path_ + ": incomplete ONNX model: it declares no operator set (truncated file?)");
    }
    if (graph().node_size() == 0 && graph().input_size() == 0 && graph().initializer_size() == 0) {
      return ParseError(path_ + ": the ONNX graph is empty");
    }
    if (options_.default_dim < 0) return InvalidArgument(path_ + ": default_dim must be at least 1 (or 0: none)");
    for (const auto& [name, value] : options_.dim_values) {
      if (value < 1) return InvalidArgument(path_ + ": dimension '" + name + "' must be at least 1");
    }
    return Status::Ok();
  }

  // Checks that every tensor is defined once and every read tensor is defined, then
  // orders the nodes topologically (file order where free), failing on a cycle.
  Status CheckAndSortNodes() {
    ox::GraphProto* g = model_.mutable_graph();
    const int n = g->node_size();
    // Producer of each name: node index, or -1 for graph inputs and initializers.
    std::unordered_map<std::string, int> producer;
    auto define_source = [&](const std::string& name, const char* what) -> Status {
      if (name.empty()) return Error(std::string("an ") + what + " has no name");
      if (!producer.emplace(name, -1).second) return Error(std::string(what) + " '" + name + "' is defined twice");
      return Status::Ok();
    };
    for (const auto& t : g->initializer()) {
      GO_RETURN_IF_ERROR(define_source(t.name(), "initializer"));
      initializer_names_.insert(t.name());
    }
    for (const auto& s : g->sparse_initializer()) {
      GO_RETURN_IF_ERROR(define_source(s.values().name(), "initializer"));
      initializer_names_.insert(s.values().name());
    }
    for (const auto& v : g->input()) {
      if (initializer_names_.count(v.name()) != 0) continue;
      GO_RETURN_IF_ERROR(define_source(v.name(), "graph input"));
    }
    original_index_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) original_index_[static_cast<size_t>(i)] = i;
    for (int i = 0; i < n; ++i) {
      for (const auto& out : g->node(i).output()) {
        if (out.empty()) continue;
        auto [it, inserted] = producer.emplace(out, i);
        if (!inserted) {
          return Error("tensor '" + out + "' is written by " + NodeRef(i) + " but already defined by " +
                       (it->second < 0 ? std::string("a graph input or initializer") : NodeRef(it->second)));
        }
      }
    }
    // Every name a node reads, including names its subgraphs read from this scope.
    std::vector<std::vector<std::string>> reads(static_cast<size_t>(n));
    extra_inputs_.assign(static_cast<size_t>(n), {});
    for (int i = 0; i < n; ++i) {
      const ox::NodeProto& node = g->node(i);
      for (const auto& in : node.input()) {
        if (!in.empty()) reads[static_cast<size_t>(i)].push_back(in);
      }
      std::unordered_set<std::string> seen(node.input().begin(), node.input().end());
      CollectNodeOuterReads(node, {}, &extra_inputs_[static_cast<size_t>(i)], &seen);
      for (const auto& in : extra_inputs_[static_cast<size_t>(i)]) reads[static_cast<size_t>(i)].push_back(in);
      for (const auto& in : reads[static_cast<size_t>(i)]) {
        if (producer.count(in) == 0) {
          return Error(NodeRef(i) + " reads tensor '" + in + "', which no node, graph input or initializer defines");
        }
      }
    }
    for (const auto& v : g->output()) {
      if (producer.count(v.name()) == 0) return Error("graph output '" + v.name() + "' is not produced by any node");
    }
    // Kahn's algorithm, lowest file index first.
    std::vector<std::vector<int>> succs(static_cast<size_t>(n));
    std::vector<int> indegree(static_cast<size_t>(n), 0);
    for (int i = 0; i < n; ++i) {
      for (const auto& in : reads[static_cast<size_t>(i)]) {
        const int p = producer.at(in);
        if (p < 0) continue;
        succs[static_cast<size_t>(p)].push_back(i);
        ++indegree[static_cast<size_t>(i)];
      }
    }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int i = 0; i < n; ++i) {
      if (indegree[static_cast<size_t>(i)] == 0) ready.push(i);
    }
    std::vector<int> order;
    order.reserve(static_cast<size_t>(n));
    while (!ready.empty()) {
      const int i = ready.top();
      ready.pop();
      order.push_back(i);
      for (int s : succs[static_cast<size_t>(i)]) {
        if (--indegree[static_cast<size_t>(s)] == 0) ready.push(s);
      }
    }
    if (static_cast<int>(order.size()) != n) return CycleError(reads, producer, indegree);
    bool sorted = true;
    for (int i = 0; i < n; ++i) sorted &= order[static_cast<size_t>(i)] == i;
    if (!sorted) {
      google::protobuf::RepeatedPtrField<ox::NodeProto> nodes;
      std::vector<std::vector<std::string>> extra;
      for (int i : order) {
        nodes.Add()->Swap(g->mutable_node(i));
        extra.push_back(std::move(extra_inputs_[static_cast<size_t>(i)]));
      }
      g->mutable_node()->Swap(&nodes);
      extra_inputs_ = std::move(extra);
      original_index_ = order;
    }
    return Status::Ok();
  }

  // Walks back from an unsorted node along unsorted producers until a node repeats.
  Status CycleError(const std::vector<std::vector<std::string>>& reads,
                    const std::unordered_map<std::string, int>& producer, const std::vector<int>& indegree) const {
    int cur = 0;
    while (indegree[static_cast<size_t>(cur)] == 0) ++cur;
    std::vector<int> position(indegree.size(), -1);
    std::vector<int> path;
    while (position[static_cast<size_t>(cur)] < 0) {
      position[static_cast<size_t>(cur)] = static_cast<int>(path.size());
      path.push_back(cur);
      for (const auto& in : reads[static_cast<size_t>(cur)]) {
        const int p = producer.at(in);
        if (p >= 0 && indegree[static_cast<size_t>(p)] > 0) {
          cur = p;
          break;
        }
      }
    }
    std::string cycle;
    for (size_t i = static_cast<size_t>(position[static_cast<size_t>(cur)]); i < path.size(); ++i) {
      cycle = NodeRef(path[i]) + (cycle.empty() ? "" : " -> ") + cycle;
    }
    return Error("the graph has a cycle: " + cycle + " -> " + NodeRef(cur));
  }

  // Dimension of a declared shape: its value, or the bound size of its symbolic
  // name; nullopt if it has neither.
  std::optional<int64_t> DeclaredDim(const ox::TensorShapeProto::Dimension& d) const {
    if (d.has_dim_value()) return d.dim_value();
    if (d.has_dim_param()) {
      auto it = options_.dim_values.find(d.dim_param());
      if (it != options_.dim_values.end()) return it->second;
    }
    return std::nullopt;
  }

  // Gives the graph inputs concrete shapes from the bound symbolic dimensions (an
  // unbound one is an error naming it, unless a default size is given), hands the
  // inputs, initializers and declared shapes to the evaluator.
  Status ResolveInputs() {
    std::set<std::string> symbolic, unbound;
    std::set<std::string> defaulted;
    for (const auto& v : graph().input()) {
      if (initializer_names_.count(v.name()) != 0) continue;
      if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) {
        return Error("graph input '" + v.name() + "' declares no tensor shape");
      }
      const auto& tt = v.type().tensor_type();
      TensorInfo info;
      info.elem_type = tt.elem_type();
      for (int axis = 0; axis < tt.shape().dim_size(); ++axis) {
        const auto& d = tt.shape().dim(axis);
        if (d.has_dim_param()) symbolic.insert(d.dim_param());
        std::optional<int64_t> size = DeclaredDim(d);
        if (!size && options_.default_dim > 0) {
          size = options_.default_dim;
          defaulted.insert(d.has_dim_param() ? d.dim_param() : v.name() + "[" + std::to_string(axis) + "]");
        }
        if (!size) {
          unbound.insert(d.has_dim_param() ? "'" + d.dim_param() + "'"
                                           : "axis " + std::to_string(axis) + " of '" + v.name() + "' (unnamed)");
          size = 1;
        }
        if (*size < 0) return Error("graph input '" + v.name() + "' has a negative dimension " + std::to_string(*size));
        info.shape.push_back(*size);
      }
      if (CheckedElements(info.shape) < 0) return Error("graph input '" + v.name() + "' is too large");
      evaluator_->SetSource(v.name(), std::move(info));
    }
    for (const auto& [name, value] : options_.dim_values) {
      if (symbolic.count(name) == 0) {
        std::string known;
        for (const auto& n : symbolic) known += (known.empty() ? "" : ", ") + n;
        return Error("dimension '" + name + "' is not a symbolic dimension of the model's inputs (" +
                     (known.empty() ? std::string("it has none") : "it has " + known) + ")");
      }
    }
    if (!unbound.empty()) {
      std::string names, example;
      for (const auto& n : unbound) names += (names.empty() ? "" : ", ") + n;
      for (const auto& n : symbolic) {
        if (options_.dim_values.count(n) == 0) example += (example.empty() ? "" : ",") + n + "=N";
      }
      return Error("the model's inputs have symbolic dimensions that no size is given for: " + names +
                   (example.empty() ? std::string() : " (bind them with --dim " + example + ")"));
    }
    if (!defaulted.empty()) {
      std::string list;
      for (const auto& n : defaulted) list += (list.empty() ? "" : ", ") + n;
      Warn(path_ + ": unbound dimension(s) " + list + " take the default size " +
                 std::to_string(options_.default_dim));
    }
    for (const auto& [name, value] : options_.dim_values) {
      bound_dims_ += (bound_dims_.empty() ? "" : ",") + name + "=" + std::to_string(value);
    }
    for (const auto& name : defaulted) {
      bound_dims_ += (bound_dims_.empty() ? "" : ",") + name + "=" + std::to_string(options_.default_dim) + " (default)";
    }
    auto add_source = [&](const ox::TensorProto& t) {
      evaluator_->SetSource(t.name(), TensorInfo{Shape(t.dims().begin(), t.dims().end()), t.data_type()});
      if (auto v = ValueFromTensor(t)) evaluator_->SetValue(t.name(), std::move(*v));
    };
    for (const auto& t : graph().initializer()) {
      if (CheckedElements(Shape(t.dims().begin(), t.dims().end())) < 0) {
        return Error("initializer '" + t.name() + "' has an invalid shape");
      }
      add_source(t);
    }
    for (const auto& s : graph().sparse_initializer()) {
      evaluator_->SetSource(s.values().name(),
                            TensorInfo{Shape(s.dims().begin(), s.dims().end()), s.values().data_type()});
    }
    auto declare = [&](const google::protobuf::RepeatedPtrField<ox::ValueInfoProto>& infos) {
      for (const auto& v : infos) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
        TensorInfo info;
        info.elem_type = v.type().tensor_type().elem_type();
        bool complete = true;
        for (const auto& d : v.type().tensor_type().shape().dim()) {
          std::optional<int64_t> size = DeclaredDim(d);
          complete &= size.has_value();
          info.shape.push_back(size.value_or(0));
        }
        if (complete) evaluator_->SetDeclared(v.name(), std::move(info));
      }
    };
    declare(graph().value_info());
    declare(graph().output());
    return Status::Ok();
  }

  // The kind of a node: the table's, refined by operand ranks and by whether the
  // node only computes shapes.
  OpKind Classify(const ox::NodeProto& node, const OnnxOpEntry* entry, const std::vector<TensorId>& inputs,
                  const std::vector<TensorId>& outputs, const Graph& g) const {
    if (entry == nullptr) return OpKind::kGeneric;
    const OpKind kind = entry->kind;
    if (kind == OpKind::kConstant || kind == OpKind::kShape) return kind;
    bool integral_outputs = !outputs.empty(), known_outputs = !outputs.empty();
    for (TensorId t : outputs) {
      integral_outputs &= IsIntegralOnnx(evaluator_->Info(g.tensor(t).name)->elem_type);
      known_outputs &= evaluator_->Value(g.tensor(t).name) != nullptr;
    }
    bool shape_inputs = !inputs.empty();
    for (TensorId t : inputs) shape_inputs &= shape_tensors_.count(t) != 0 || constant_tensors_.count(t) != 0;
    const bool gathers_shape = node.op_type() == "Gather" && !inputs.empty() && shape_tensors_.count(inputs[0]) != 0;
    if (integral_outputs && (known_outputs || shape_inputs || gathers_shape)) return OpKind::kShapeCompute;
    if (node.op_type() == "Einsum") {
      if (inputs.size() < 2) {
        return g.tensor(outputs[0]).num_elements() == g.tensor(inputs[0]).num_elements() ? OpKind::kTranspose
                                                                                         : OpKind::kReduceSum;
      }
      if (inputs.size() > 2 || !EinsumAsMatMul(StringAttr(node, "equation", ""))) return OpKind::kGeneric;
      return g.tensor(outputs[0]).shape.size() > 2 ? OpKind::kBatchMatMul : OpKind::kMatMul;
    }
    if (kind == OpKind::kMatMul && inputs.size() == 2 && g.tensor(inputs[0]).shape.size() > 2 &&
        g.tensor(inputs[1]).shape.size() > 2) {
      return OpKind::kBatchMatMul;
    }
    return kind;
  }

  StatusOr<Graph> BuildGraph() {
    Graph g(FileStem(path_));
    g.set_metadata("source", path_);
    if (!model_.producer_name().empty()) {
      g.set_metadata("producer", model_.producer_name() + " " + model_.producer_version());
    }
    for (const auto& opset : model_.opset_import()) {
      if (IsDefaultDomain(opset.domain())) g.set_metadata("opset", std::to_string(opset.version()));
    }
    if (!bound_dims_.empty()) g.set_metadata("dims", bound_dims_);
    UniqueNamer namer;
    std::unordered_map<std::string, TensorId> ids;
    auto add_tensor = [&](const std::string& name) {
      const TensorInfo* t = evaluator_->Info(name);
      GO_CHECK(t != nullptr);
      const TensorId id = g.AddTensor(name, t->shape, DTypeFromOnnx(t->elem_type));
      ids.emplace(name, id);
      return id;
    };
    for (const auto& v : graph().input()) {
      if (initializer_names_.count(v.name()) != 0) continue;
      Op op;
      op.name = namer.Take(v.name());
      op.kind = OpKind::kInput;
      op.outputs = {add_tensor(v.name())};
      g.AddOp(std::move(op));
    }
    auto add_variable = [&](const std::string& name) {
      Op op;
      op.name = namer.Take(name);
      op.kind = OpKind::kVariable;
      const TensorId t = add_tensor(name);
      op.outputs = {t};
      op.param_bytes = g.tensor(t).bytes();
      op.colocation_group = g.NewColocationGroup();
      constant_tensors_.insert(t);
      g.AddOp(std::move(op));
    };
    for (const auto& t : graph().initializer()) add_variable(t.name());
    for (const auto& s : graph().sparse_initializer()) add_variable(s.values().name());

    std::map<std::string, int> unknown;
    for (int i = 0; i < graph().node_size(); ++i) {
      const ox::NodeProto& node = graph().node(i);
      const OnnxOpEntry* entry = IsDefaultDomain(node.domain()) ? FindOnnxOp(node.op_type()) : nullptr;
      Op op;
      for (const auto& in : node.input()) {
        if (!in.empty()) op.inputs.push_back(ids.at(in));
      }
      for (const auto& in : extra_inputs_[static_cast<size_t>(i)]) op.inputs.push_back(ids.at(in));
      for (const auto& out : node.output()) {
        if (!out.empty()) op.outputs.push_back(add_tensor(out));
      }
      op.kind = Classify(node, entry, op.inputs, op.outputs, g);
      if (entry == nullptr)
        ++unknown[IsDefaultDomain(node.domain()) ? node.op_type() : node.domain() + ":" + node.op_type()];
      op.attrs = ConvertAttrs(node);
      NormalizeAttrs(node, op.kind, op.inputs, op.outputs, g, &op.attrs);
      op.name = namer.Take(node.name().empty()
                               ? node.op_type() + "_" + std::to_string(original_index_[static_cast<size_t>(i)])
                               : node.name());
      if (op.kind == OpKind::kShape || op.kind == OpKind::kShapeCompute) {
        shape_tensors_.insert(op.outputs.begin(), op.outputs.end());
      } else if (op.kind == OpKind::kConstant) {
        constant_tensors_.insert(op.outputs.begin(), op.outputs.end());
      }
      op.cost = OnnxOpCost(g, op, entry);
      g.AddOp(std::move(op), /*compute_cost=*/false);
    }
    if (!unknown.empty()) {
      std::string list;
      int total = 0;
      for (const auto& [type, count] : unknown) {
        list += (list.empty() ? "" : ", ") + type + " x" + std::to_string(count);
        total += count;
      }
      Warn(path_ + ": " + std::to_string(total) +
                 " node(s) of op types the importer does not know, imported as Generic ops costed by their bytes: " +
                 list);
    }
    const Status verified = VerifyGraph(g);
    if (!verified.ok()) return verified.WithContext(path_ + ": the imported graph is malformed");
    return g;
  }

  std::string path_;
  OnnxImportOptions options_;
  ox::ModelProto model_;
  std::unique_ptr<ShapeEvaluator> evaluator_;
  std::string bound_dims_;                              // "name=value,..." of the bound dimensions
  std::vector<int> original_index_;                     // file position of each (sorted) node
  std::vector<std::vector<std::string>> extra_inputs_;  // names each node's subgraphs read from the graph
  std::unordered_set<std::string> initializer_names_;
  std::unordered_set<TensorId> shape_tensors_;     // outputs of Shape and ShapeCompute ops
  std::unordered_set<TensorId> constant_tensors_;  // outputs of Constant and Variable ops
};

}  // namespace

Status ParseDimBindings(const std::string& text, OnnxImportOptions* options) {
  size_t from = 0;
  while (from <= text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    const std::string item = text.substr(from, comma - from);
    from = comma + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--dim: expected name=value, got '" + item + "'");
    }
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    int64_t size = 0;
    size_t used = 0;
    try {
      size = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size() || size < 1) {
      return InvalidArgument("--dim: the size of '" + name + "' must be an integer >= 1, got '" + value + "'");
    }
    if (name == "*") {
      options->default_dim = size;
    } else {
      options->dim_values[name] = size;
    }
  }
  return Status::Ok();
}

StatusOr<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& source,
                                const OnnxImportOptions& options) {
  try {
    OnnxImporter importer(source, options);
    return importer.Import(bytes);
  } catch (const std::exception& e) {
    return InternalError(source + ": ONNX import failed: " + e.what());
  } catch (...) {
    return InternalError(source + ": ONNX import failed with an unknown error");
  }
}

StatusOr<Graph> ImportOnnx(const std::string& path, const OnnxImportOptions& options) {
  GO_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  return ImportOnnxBytes(bytes, path, options);
}

}  // namespace graphopt
