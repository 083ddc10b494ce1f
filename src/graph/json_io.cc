#include "graph/json_io.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "core/files.h"
#include "core/json_fields.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

Json AttrToJson(const AttrValue& v) {
  // Typed so that an integer list and a float never get confused on the way back.
  if (auto* i = std::get_if<int64_t>(&v)) return Json{{"i", *i}};
  if (auto* d = std::get_if<double>(&v)) return Json{{"f", *d}};
  if (auto* s = std::get_if<std::string>(&v)) return Json{{"s", *s}};
  return Json{{"ints", std::get<std::vector<int64_t>>(v)}};
}

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Status Error(const std::string& where, const std::string& what) const {
    return ParseError(source_ + ": " + where + ": " + what);
  }

  // Integers and integer arrays are range-checked for T before narrowing (a tensor id
  // of 2^32 + 1 is an error, not tensor 1; a dimension of 1.5 is an error, not 1);
  // doubles must be finite.
  template <typename T>
  Status Get(const Json& obj, const char* key, const std::string& where, T* out, bool required) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      return required ? Error(where, std::string("missing field '") + key + "'") : Status::Ok();
    }
    const std::string field = source_ + ": " + where + "." + key;
    if constexpr (std::is_integral_v<T>) {
      return JsonIntTo(*it, field, out);
    } else if constexpr (std::is_same_v<T, std::vector<int32_t>> || std::is_same_v<T, std::vector<int64_t>>) {
      return JsonIntArray(*it, field, out);
    } else if constexpr (std::is_same_v<T, double>) {
      GO_ASSIGN_OR_RETURN(*out, JsonNumber(*it, field));
      return Status::Ok();
    } else {
      try {
        *out = it->template get<T>();
      } catch (const std::exception&) {
        return Error(where + "." + key, std::string("has the wrong type (") + it->type_name() + ")");
      }
      return Status::Ok();
    }
  }

  StatusOr<AttrValue> Attr(const Json& j, const std::string& where) const {
    if (!j.is_object() || j.size() != 1) return Error(where, "an attribute must be an object with one of i, f, s, ints");
    const auto first = j.begin();
    const std::string key = first.key();
    const Json& value = first.value();
    const std::string field = source_ + ": " + where;
    if (key == "i") {
      GO_ASSIGN_OR_RETURN(const int64_t i, JsonInt(value, field));
      return AttrValue(i);
    }
    if (key == "f") {
      GO_ASSIGN_OR_RETURN(const double f, JsonNumber(value, field));
      return AttrValue(f);
    }
    if (key == "s") {
      GO_ASSIGN_OR_RETURN(std::string str, JsonString(value, field));
      return AttrValue(std::move(str));
    }
    if (key == "ints") {
      std::vector<int64_t> ints;
      GO_RETURN_IF_ERROR(JsonIntArray(value, field, &ints));
      return AttrValue(std::move(ints));
    }
    return Error(where, "unknown attribute type '" + key + "'");
  }

 private:
  std::string source_;
};

}  // namespace

std::string GraphToJson(const Graph& g) {
  Json root;
  root["format"] = "graphopt-graph";
  root["version"] = kGraphJsonVersion;
  root["name"] = g.name();
  root["family"] = g.family();
  root["metadata"] = g.metadata();
  root["layers"] = g.layer_names();
  root["colocation_groups"] = g.num_colocation_groups();
  Json tensors = Json::array();
  for (const Tensor& t : g.tensors()) {
    tensors.push_back(Json{{"name", t.name}, {"shape", t.shape}, {"dtype", DTypeName(t.dtype)}});
  }
  root["tensors"] = std::move(tensors);
  Json ops = Json::array();
  for (const Op& op : g.ops()) {
    Json j{{"name", op.name}, {"kind", OpKindName(op.kind)}, {"inputs", op.inputs}, {"outputs", op.outputs}};
    if (op.phase != Phase::kForward) j["phase"] = PhaseName(op.phase);
    if (!op.attrs.empty()) {
      Json attrs = Json::object();
      for (const auto& [k, v] : op.attrs) attrs[k] = AttrToJson(v);
      j["attrs"] = std::move(attrs);
    }
    if (op.cost.flops != 0) j["flops"] = op.cost.flops;
    if (op.cost.macs != 0) j["macs"] = op.cost.macs;
    if (op.cost.bytes_read != 0) j["bytes_read"] = op.cost.bytes_read;
    if (op.cost.bytes_written != 0) j["bytes_written"] = op.cost.bytes_written;
    if (op.param_bytes != 0) j["param_bytes"] = op.param_bytes;
    if (op.measured_time_us >= 0) j["time_us"] = op.measured_time_us;
    if (op.measured_backward_us >= 0) j["backward_us"] = op.measured_backward_us;
    if (op.colocation_group != kNoId) j["group"] = op.colocation_group;
    if (op.layer != kNoId) j["layer"] = op.layer;
    if (op.forward_op != kNoId) j["forward_op"] = op.forward_op;
    ops.push_back(std::move(j));
  }
  root["ops"] = std::move(ops);
  return root.dump();
}

StatusOr<Graph> GraphFromJson(const std::string& text, const std::string& source) {
  GO_ASSIGN_OR_RETURN(const Json root, ParseJsonText(text, source));
  Reader r(source);
  if (!root.is_object()) return r.Error("top level", "expected an object");
  std::string format;
  GO_RETURN_IF_ERROR(r.Get(root, "format", "top level", &format, true));
  if (format != "graphopt-graph") return r.Error("format", "expected 'graphopt-graph', got '" + format + "'");
  int version = 0;
  GO_RETURN_IF_ERROR(r.Get(root, "version", "top level", &version, true));
  if (version != kGraphJsonVersion) {
    return r.Error("version", "version " + std::to_string(version) + " is not supported (this build reads " +
                                  std::to_string(kGraphJsonVersion) + ")");
  }
  Graph g;
  std::string s;
  GO_RETURN_IF_ERROR(r.Get(root, "name", "top level", &s, true));
  g.set_name(s);
  s.clear();
  GO_RETURN_IF_ERROR(r.Get(root, "family", "top level", &s, false));
  g.set_family(s);
  std::map<std::string, std::string> metadata;
  GO_RETURN_IF_ERROR(r.Get(root, "metadata", "top level", &metadata, false));
  for (auto& [k, v] : metadata) g.set_metadata(k, v);
  GO_RETURN_IF_ERROR(r.Get(root, "layers", "top level", &g.mutable_layer_names(), false));
  int32_t groups = 0;
  GO_RETURN_IF_ERROR(r.Get(root, "colocation_groups", "top level", &groups, false));
  if (groups < 0) return r.Error("colocation_groups", "must not be negative");

  auto tensors_it = root.find("tensors");
  auto ops_it = root.find("ops");
  if (tensors_it == root.end() || !tensors_it->is_array()) return r.Error("top level", "missing array 'tensors'");
  if (ops_it == root.end() || !ops_it->is_array()) return r.Error("top level", "missing array 'ops'");
  for (size_t i = 0; i < tensors_it->size(); ++i) {
    const Json& jt = (*tensors_it)[i];
    const std::string where = "tensors[" + std::to_string(i) + "]";
    if (!jt.is_object()) return r.Error(where, "expected an object");
    std::string name, dtype_name;
    Shape shape;
    GO_RETURN_IF_ERROR(r.Get(jt, "name", where, &name, true));
    GO_RETURN_IF_ERROR(r.Get(jt, "shape", where, &shape, true));
    GO_RETURN_IF_ERROR(r.Get(jt, "dtype", where, &dtype_name, true));
    auto dtype = DTypeFromName(dtype_name);
    if (!dtype) return r.Error(where, "unknown dtype '" + dtype_name + "'");
    for (int64_t d : shape) {
      if (d < 0) return r.Error(where, "tensor '" + name + "' has a negative dimension");
    }
    g.AddTensor(std::move(name), std::move(shape), *dtype);
  }
  const int n_tensors = g.num_tensors();
  if (ops_it->size() > static_cast<size_t>(std::numeric_limits<int32_t>::max())) return r.Error("ops", "too many ops");
  const int n_ops = static_cast<int>(ops_it->size());
  // Every colocation group holds at least one op: more groups than ops is an error
  // (the partitioners allocate per group, so a count such as 2147483647 must fail here).
  if (groups > n_ops) {
    return r.Error("colocation_groups", std::to_string(groups) + " is more than the number of ops (" +
                                            std::to_string(n_ops) + ")");
  }
  for (int i = 0; i < n_ops; ++i) {
    const Json& jo = (*ops_it)[static_cast<size_t>(i)];
    const std::string where = "ops[" + std::to_string(i) + "]";
    if (!jo.is_object()) return r.Error(where, "expected an object");
    Op op;
    std::string kind_name, phase_name = "forward";
    GO_RETURN_IF_ERROR(r.Get(jo, "name", where, &op.name, true));
    const std::string at = where + " ('" + op.name + "')";
    GO_RETURN_IF_ERROR(r.Get(jo, "kind", at, &kind_name, true));
    auto kind = OpKindFromName(kind_name);
    if (!kind) return r.Error(at, "unknown op kind '" + kind_name + "'");
    op.kind = *kind;
    GO_RETURN_IF_ERROR(r.Get(jo, "phase", at, &phase_name, false));
    auto phase = PhaseFromName(phase_name);
    if (!phase) return r.Error(at, "unknown phase '" + phase_name + "'");
    op.phase = *phase;
    GO_RETURN_IF_ERROR(r.Get(jo, "inputs", at, &op.inputs, true));
    GO_RETURN_IF_ERROR(r.Get(jo, "outputs", at, &op.outputs, true));
    for (TensorId t : op.inputs) {
      if (t < 0 || t >= n_tensors) return r.Error(at, "input tensor " + std::to_string(t) + " does not exist");
    }
    for (size_t k = 0; k < op.outputs.size(); ++k) {
      const TensorId t = op.outputs[k];
      if (t < 0 || t >= n_tensors) return r.Error(at, "output tensor " + std::to_string(t) + " does not exist");
      if (g.tensor(t).producer != kNoId) {
        return r.Error(at, "tensor '" + g.tensor(t).name + "' is already produced by op '" + g.op(g.tensor(t).producer).name + "'");
      }
      const auto earlier = op.outputs.begin() + static_cast<std::ptrdiff_t>(k);
      if (std::find(op.outputs.begin(), earlier, t) != earlier) {
        return r.Error(at, "tensor '" + g.tensor(t).name + "' is listed twice in its outputs");
      }
    }
    auto attrs_it = jo.find("attrs");
    if (attrs_it != jo.end()) {
      if (!attrs_it->is_object()) return r.Error(at + ".attrs", "expected an object");
      for (const auto& [k, v] : attrs_it->items()) {
        GO_ASSIGN_OR_RETURN(op.attrs[k], r.Attr(v, at + ".attrs." + k));
      }
    }
    GO_RETURN_IF_ERROR(r.Get(jo, "flops", at, &op.cost.flops, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "macs", at, &op.cost.macs, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "bytes_read", at, &op.cost.bytes_read, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "bytes_written", at, &op.cost.bytes_written, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "param_bytes", at, &op.param_bytes, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "time_us", at, &op.measured_time_us, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "backward_us", at, &op.measured_backward_us, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "group", at, &op.colocation_group, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "layer", at, &op.layer, false));
    GO_RETURN_IF_ERROR(r.Get(jo, "forward_op", at, &op.forward_op, false));
    if (op.colocation_group < kNoId || op.colocation_group >= groups) {
      return r.Error(at, "group " + std::to_string(op.colocation_group) + " is out of range (colocation_groups = " +
                             std::to_string(groups) + ")");
    }
    g.AddOp(std::move(op), /*compute_cost=*/false);
  }
  g.set_num_colocation_groups(groups);
  Status verified = VerifyGraph(g);
  if (!verified.ok()) return verified.WithContext(source);
  return g;
}

Status WriteGraphJson(const Graph& graph, const std::string& path) { return WriteFileAtomic(path, GraphToJson(graph)); }

StatusOr<Graph> ReadGraphJson(const std::string& path) {
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return GraphFromJson(text, path);
}

}  // namespace graphopt
