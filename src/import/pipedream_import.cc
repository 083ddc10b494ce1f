#include "import/pipedream_import.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/strings.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

constexpr const char kSeparator[] = " -- ";
constexpr size_t kSeparatorSize = sizeof(kSeparator) - 1;
// Sizes above this (1 TB) are treated as corrupt rather than as a tensor.
constexpr double kMaxBytes = 1e12;
// A layer's measured time: at most 1e7 ms (2.8 hours), so that a 1e308 is an error, not "inf s".
constexpr double kMaxTimeMs = 1e7;
// Longest excerpt of an offending line quoted in an error message.
constexpr size_t kMaxExcerpt = 80;

// One layer line of a profile, as read: the measurements in the file's units.
struct LayerLine {
  std::string id;           // "node7"
  std::string description;  // "LSTM(2048, 1024)"
  int line = 0;
  double forward_ms = 0;
  double backward_ms = 0;
  std::vector<int64_t> activation_bytes;  // one entry per output
  int64_t parameter_bytes = 0;
};

// One edge line: the output of `from` is an input of `to`.
struct EdgeLine {
  int from = 0;  // index into the layer list
  int to = 0;
  int line = 0;
};

// The parsed content of a profile, before it becomes a Graph.
struct Profile {
  std::vector<LayerLine> layers;
  std::vector<EdgeLine> edges;
};

Status LineError(const std::string& source, int line, const std::string& what) {
  return ParseError(source + ":" + std::to_string(line) + ": " + what);
}

// The line quoted for an error message: non-printable bytes escaped, long lines cut.
std::string Excerpt(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size() && out.size() < kMaxExcerpt; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += StrFormat("\\x%02x", c);
    }
  }
  if (out.size() >= kMaxExcerpt) out += "...";
  return "'" + out + "'";
}

bool IsLayerId(const std::string& s) {
  if (s.size() <= 4 || s.compare(0, 4, "node") != 0) return false;
  return std::all_of(s.begin() + 4, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// Parses a non-negative finite number; `what` names the field in errors.
Status ParseNonNegative(const std::string& text, const std::string& what, double* value) {
  const std::string t = Trim(text);
  if (t.empty()) return InvalidArgument(what + " has no value");
  // Decimal only: strtod would also read "0x10" as 16 and "inf"/"nan".
  if (!std::all_of(t.begin(), t.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
      })) {
    return InvalidArgument(what + " " + Excerpt(t) + " is not a number (decimal digits only)");
  }
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE || !std::isfinite(v)) {
    return InvalidArgument(what + " " + Excerpt(t) + " is not a number");
  }
  if (v < 0) return InvalidArgument(what + " is negative (" + t + ")");
  *value = v;
  return Status::Ok();
}

Status ParseBytes(const std::string& text, const std::string& what, int64_t* bytes) {
  double v = 0;
  GO_RETURN_IF_ERROR(ParseNonNegative(text, what, &v));
  if (v > kMaxBytes) return InvalidArgument(what + " " + Trim(text) + " is implausibly large (over 1 TB)");
  *bytes = std::llround(v);
  return Status::Ok();
}

// Splits "a=1, b=[2; 3], c=4" at the commas outside brackets.
Status SplitFields(const std::string& text, std::vector<std::string>* fields) {
  int depth = 0;
  std::string current;
  for (char c : text) {
    if (c == '[') ++depth;
    if (c == ']' && --depth < 0) return InvalidArgument("unbalanced ']' in the measurements");
    if (c == ',' && depth == 0) {
      fields->push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (depth != 0) return InvalidArgument("unclosed '[' in the measurements");
  fields->push_back(current);
  return Status::Ok();
}

// Parses "forward_compute_time=.., backward_compute_time=.., activation_size=.., parameter_size=..".
// The four keys are required; other keys are ignored, so that added measurements do not break imports.
Status ParseMeasurements(const std::string& text, LayerLine* layer) {
  std::vector<std::string> fields;
  GO_RETURN_IF_ERROR(SplitFields(text, &fields));
  std::map<std::string, std::string> values;
  for (const std::string& field : fields) {
    const size_t eq = field.find('=');
    if (eq == std::string::npos) return InvalidArgument("expected key=value, got " + Excerpt(Trim(field)));
    const std::string key = Trim(field.substr(0, eq));
    if (key.empty()) return InvalidArgument("a measurement has no name: " + Excerpt(Trim(field)));
    if (!values.emplace(key, field.substr(eq + 1)).second) return InvalidArgument(key + " is given twice");
  }
  for (const char* key : {"forward_compute_time", "backward_compute_time", "activation_size", "parameter_size"}) {
    if (!values.count(key)) return InvalidArgument("missing " + std::string(key));
  }
  GO_RETURN_IF_ERROR(ParseNonNegative(values["forward_compute_time"], "forward_compute_time", &layer->forward_ms));
  GO_RETURN_IF_ERROR(ParseNonNegative(values["backward_compute_time"], "backward_compute_time", &layer->backward_ms));
  for (const char* key : {"forward_compute_time", "backward_compute_time"}) {
    const double ms = std::string(key) == "forward_compute_time" ? layer->forward_ms : layer->backward_ms;
    if (ms > kMaxTimeMs) return InvalidArgument(std::string(key) + " " + Trim(values[key]) + " is implausibly long (over 1e7 ms)");
  }
  GO_RETURN_IF_ERROR(ParseBytes(values["parameter_size"], "parameter_size", &layer->parameter_bytes));
  const std::string activation = Trim(values["activation_size"]);
  if (!activation.empty() && activation.front() == '[') {
    if (activation.back() != ']') return InvalidArgument("activation_size list does not end with ']'");
    std::string inner = activation.substr(1, activation.size() - 2);
    std::replace(inner.begin(), inner.end(), ',', ';');
    if (Trim(inner).empty()) return InvalidArgument("activation_size list is empty");
    for (const std::string& item : Split(inner, ';')) {
      int64_t bytes = 0;
      GO_RETURN_IF_ERROR(ParseBytes(item, "activation_size entry", &bytes));
      layer->activation_bytes.push_back(bytes);
    }
  } else {
    int64_t bytes = 0;
    GO_RETURN_IF_ERROR(ParseBytes(activation, "activation_size", &bytes));
    layer->activation_bytes.push_back(bytes);
  }
  return Status::Ok();
}

// Reads the lines of a profile. Layer lines may come in any order and edges may
// name layers declared further down; every line is checked on its own here, the
// graph as a whole in BuildGraph.
StatusOr<Profile> ParseLines(const std::string& text, const std::string& source) {
  Profile profile;
  struct PendingEdge {
    std::string from, to;
    int line;
  };
  std::vector<PendingEdge> pending;
  std::unordered_map<std::string, int> index;
  const char* kForms =
      "expected a layer 'nodeK -- <layer> -- forward_compute_time=<ms>, ...' or an edge 'nodeA -- nodeB'";
  int line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = Trim(text.substr(start, end - start));
    start = end + 1;
    ++line_number;
    if (line.empty()) continue;
    const size_t first = line.find(kSeparator);
    if (first == std::string::npos)
      return LineError(source, line_number, std::string(kForms) + ", got " + Excerpt(line));
    const std::string id = Trim(line.substr(0, first));
    const std::string rest = line.substr(first + kSeparatorSize);
    const size_t last = rest.rfind(kSeparator);
    if (last == std::string::npos) {
      const std::string to = Trim(rest);
      if (!IsLayerId(id) || !IsLayerId(to)) {
        return LineError(source, line_number, std::string(kForms) + ", got " + Excerpt(line));
      }
      pending.push_back({id, to, line_number});
      continue;
    }
    if (!IsLayerId(id)) return LineError(source, line_number, "layer id " + Excerpt(id) + " is not of the form nodeK");
    LayerLine layer;
    layer.id = id;
    layer.line = line_number;
    layer.description = Trim(rest.substr(0, last));
    if (layer.description.empty()) return LineError(source, line_number, "layer " + id + " has no description");
    Status status = ParseMeasurements(rest.substr(last + kSeparatorSize), &layer);
    if (!status.ok()) return LineError(source, line_number, "layer " + id + ": " + status.message());
    const auto [it, inserted] = index.emplace(id, static_cast<int>(profile.layers.size()));
    if (!inserted) {
      return LineError(source, line_number,
                       "layer " + id + " is declared twice (first on line " +
                           std::to_string(profile.layers[static_cast<size_t>(it->second)].line) + ")");
    }
    profile.layers.push_back(std::move(layer));
  }
  if (profile.layers.empty()) {
    return LineError(source, std::max(line_number, 1),
                     line_number == 0 ? "the file is empty" : "the file has no layer lines");
  }
  std::map<std::pair<int, int>, int> seen;
  for (const PendingEdge& e : pending) {
    for (const std::string* id : {&e.from, &e.to}) {
      if (!index.count(*id)) return LineError(source, e.line, "edge names layer " + *id + ", which is not declared");
    }
    EdgeLine edge{index[e.from], index[e.to], e.line};
    if (edge.from == edge.to) return LineError(source, e.line, "edge from layer " + e.from + " to itself");
    const auto [it, inserted] = seen.emplace(std::make_pair(edge.from, edge.to), e.line);
    if (!inserted) {
      return LineError(
          source, e.line,
          "edge " + e.from + " -- " + e.to + " is given twice (first on line " + std::to_string(it->second) + ")");
    }
    profile.edges.push_back(edge);
  }
  return profile;
}

// The leading identifier of a description: "Conv2d(3, 64, ...)" -> "Conv2d".
std::string ShortName(const std::string& description) {
  std::string name;
  for (char c : description) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') break;
    if (name.size() == 40) break;
    name += c;
  }
  return name.empty() ? "layer" : name;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The op kind of a layer from its short name; kGeneric for layers without a match.
OpKind KindOfLayer(const std::string& short_name) {
  static const std::map<std::string, OpKind> kKinds = {
      {"conv1d", OpKind::kConv},
      {"conv2d", OpKind::kConv},
      {"conv3d", OpKind::kConv},
      {"convtranspose2d", OpKind::kConvTranspose},
      {"linear", OpKind::kMatMul},
      {"lstm", OpKind::kLSTM},
      {"emubidirlstm", OpKind::kLSTM},
      {"gru", OpKind::kGRU},
      {"rnn", OpKind::kRNN},
      {"lstmcell", OpKind::kLSTMCell},
      {"grucell", OpKind::kGRUCell},
      {"relu", OpKind::kRelu},
      {"sigmoid", OpKind::kSigmoid},
      {"tanh", OpKind::kTanh},
      {"gelu", OpKind::kGelu},
      {"maxpool2d", OpKind::kMaxPool},
      {"avgpool2d", OpKind::kAvgPool},
      {"adaptiveavgpool2d", OpKind::kAvgPool},
      {"batchnorm1d", OpKind::kBatchNorm},
      {"batchnorm2d", OpKind::kBatchNorm},
      {"layernorm", OpKind::kLayerNorm},
      {"softmax", OpKind::kSoftmax},
      {"logsoftmax", OpKind::kLogSoftmax},
      {"dropout", OpKind::kDropout},
      {"add", OpKind::kAdd},
      {"mul", OpKind::kMul},
      {"concat", OpKind::kConcat},
      {"cat", OpKind::kConcat},
      {"embedding", OpKind::kGather},
      {"view", OpKind::kReshape},
      {"reshape", OpKind::kReshape},
      {"flatten", OpKind::kReshape},
      {"__getitem__", OpKind::kIdentity},
      {"size", OpKind::kShape},
  };
  const std::string lower = Lower(short_name);
  if (lower.compare(0, 5, "input") == 0 && std::all_of(lower.begin() + 5, lower.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    return OpKind::kInput;
  }
  const auto it = kKinds.find(lower);
  return it == kKinds.end() ? OpKind::kGeneric : it->second;
}

// The index k of "__getitem__(k)", or -1.
int GetItemIndex(const std::string& description) {
  const std::string prefix = "__getitem__(";
  if (description.compare(0, prefix.size(), prefix) != 0) return -1;
  const size_t close = description.find(')', prefix.size());
  if (close == std::string::npos) return -1;
  const std::string digits = Trim(description.substr(prefix.size(), close - prefix.size()));
  if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      })) {
    return -1;
  }
  return std::stoi(digits);
}

// An activation of `bytes` bytes as a 1-D tensor: f32 where the size allows, so that
// the training expansion differentiates it, else f16, else bytes. Shape helpers
// (Size) produce integers.
std::pair<Shape, DType> ActivationTensor(int64_t bytes, OpKind kind) {
  if (CategoryOf(kind) == OpCategory::kMetadata) {
    if (bytes % 8 == 0) return {{bytes / 8}, DType::kI64};
    if (bytes % 4 == 0) return {{bytes / 4}, DType::kI32};
    return {{bytes}, DType::kU8};
  }
  if (bytes % 4 == 0) return {{bytes / 4}, DType::kF32};
  if (bytes % 2 == 0) return {{bytes / 2}, DType::kF16};
  return {{bytes}, DType::kU8};
}

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

// True if the verifier's shape rules hold for `kind` on these 1-D tensors: an
// elementwise op's inputs broadcast to its output, a concat's inputs add up to it.
bool ShapesFitKind(const Graph& graph, OpKind kind, const std::vector<TensorId>& inputs, TensorId output) {
  const int64_t out = graph.tensor(output).num_elements();
  if (kind == OpKind::kConcat) {
    int64_t sum = 0;
    for (TensorId t : inputs) sum = SaturatingAdd(sum, graph.tensor(t).num_elements());
    return inputs.empty() || sum == out;
  }
  if (CategoryOf(kind) == OpCategory::kElementwise && inputs.size() >= 2) {
    int64_t acc = 1;
    for (TensorId t : inputs) {
      const int64_t n = graph.tensor(t).num_elements();
      if (n != acc && n != 1 && acc != 1) return false;
      if (n != 1) acc = n;
    }
    return acc == out;
  }
  return true;
}

// Finds a cycle among the layers Kahn's algorithm could not order and names it with
// the line of its last edge in the file.
Status CycleError(const Profile& profile, const std::vector<std::vector<int>>& in_edges,
                  const std::vector<int>& indegree, const std::string& source) {
  const int n = static_cast<int>(profile.layers.size());
  int cur = 0;
  while (cur < n && indegree[static_cast<size_t>(cur)] == 0) ++cur;
  std::vector<int> position(static_cast<size_t>(n), -1);
  std::vector<int> path_edges;  // path_edges[k] is the edge from path[k + 1] into path[k]
  std::vector<int> path;
  while (position[static_cast<size_t>(cur)] < 0) {
    position[static_cast<size_t>(cur)] = static_cast<int>(path.size());
    path.push_back(cur);
    for (int e : in_edges[static_cast<size_t>(cur)]) {
      const int from = profile.edges[static_cast<size_t>(e)].from;
      if (indegree[static_cast<size_t>(from)] > 0) {
        path_edges.push_back(e);
        cur = from;
        break;
      }
    }
  }
  // path[k] <- path[k+1] via path_edges[k]; the cycle runs from position(cur) to the end.
  const size_t begin = static_cast<size_t>(position[static_cast<size_t>(cur)]);
  int last_line = 0;
  std::string names = profile.layers[static_cast<size_t>(cur)].id;
  for (size_t k = path.size(); k-- > begin;) {
    last_line = std::max(last_line, profile.edges[static_cast<size_t>(path_edges[k])].line);
    names += " -> " + profile.layers[static_cast<size_t>(path[k])].id;
  }
  return LineError(source, last_line, "this edge closes a cycle: " + names);
}

// Layers in dependency order (ties in file order), or the cycle that prevents one.
StatusOr<std::vector<int>> OrderLayers(const Profile& profile, const std::vector<std::vector<int>>& in_edges,
                                       const std::vector<std::vector<int>>& out_edges, const std::string& source) {
  const size_t n = profile.layers.size();
  std::vector<int> indegree(n, 0);
  for (size_t i = 0; i < n; ++i) indegree[i] = static_cast<int>(in_edges[i].size());
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (indegree[i] == 0) ready.push(static_cast<int>(i));
  }
  std::vector<int> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int l = ready.top();
    ready.pop();
    order.push_back(l);
    for (int e : out_edges[static_cast<size_t>(l)]) {
      const int to = profile.edges[static_cast<size_t>(e)].to;
      if (--indegree[static_cast<size_t>(to)] == 0) ready.push(to);
    }
  }
  if (order.size() != n) return CycleError(profile, in_edges, indegree, source);
  return order;
}

// Fails naming the first layer outside the largest connected piece of the graph: a
// profile describes one model, so a cut-off piece means a damaged or truncated file.
Status CheckConnected(const Profile& profile, const std::string& source) {
  const size_t n = profile.layers.size();
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&parent](int x) {
    while (parent[static_cast<size_t>(x)] != x) {
      parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
      x = parent[static_cast<size_t>(x)];
    }
    return x;
  };
  for (const EdgeLine& e : profile.edges) parent[static_cast<size_t>(find(e.from))] = find(e.to);
  std::vector<int> size(n, 0);
  for (size_t i = 0; i < n; ++i) ++size[static_cast<size_t>(find(static_cast<int>(i)))];
  const int main_root = static_cast<int>(std::max_element(size.begin(), size.end()) - size.begin());
  if (size[static_cast<size_t>(main_root)] == static_cast<int>(n)) return Status::Ok();
  for (size_t i = 0; i < n; ++i) {
    if (find(static_cast<int>(i)) == main_root) continue;
    const LayerLine& layer = profile.layers[i];
    return LineError(source, layer.line,
                     "layer " + layer.id + " is not connected to the rest of the graph (" +
                         std::to_string(n - static_cast<size_t>(size[static_cast<size_t>(main_root)])) + " of " +
                         std::to_string(n) + " layers are cut off; is the file truncated?)");
  }
  return Status::Ok();
}

// Turns a checked profile into the forward graph (see the header and the notes on
// tensors, parameters and costs in ParsePipeDream).
StatusOr<Graph> BuildGraph(const Profile& profile, const std::string& source) {
  const size_t n = profile.layers.size();
  std::vector<std::vector<int>> in_edges(n), out_edges(n);
  for (size_t e = 0; e < profile.edges.size(); ++e) {
    in_edges[static_cast<size_t>(profile.edges[e].to)].push_back(static_cast<int>(e));
    out_edges[static_cast<size_t>(profile.edges[e].from)].push_back(static_cast<int>(e));
  }
  GO_ASSIGN_OR_RETURN(std::vector<int> order, OrderLayers(profile, in_edges, out_edges, source));
  GO_RETURN_IF_ERROR(CheckConnected(profile, source));

  std::string stem = std::filesystem::path(source).stem().string();
  Graph graph(stem.empty() ? "pipedream" : stem);
  graph.set_metadata("source", source);
  graph.set_metadata("profile", "pipedream");
  std::vector<std::vector<TensorId>> outputs(n);
  for (int l : order) {
    const LayerLine& layer = profile.layers[static_cast<size_t>(l)];
    const std::string short_name = ShortName(layer.description);
    OpKind kind = KindOfLayer(short_name);
    const std::string name = layer.id + "/" + short_name;
    if (kind == OpKind::kInput) {
      if (!in_edges[static_cast<size_t>(l)].empty()) {
        const EdgeLine& e = profile.edges[static_cast<size_t>(in_edges[static_cast<size_t>(l)][0])];
        return LineError(source, e.line, "edge into input layer " + layer.id + " (inputs have no producers)");
      }
      if (layer.parameter_bytes > 0)
        return LineError(source, layer.line, "input layer " + layer.id + " has parameters");
    }
    Op op;
    op.name = name;
    op.attrs["description"] = layer.description;
    op.attrs["layer"] = short_name;
    op.attrs["node"] = layer.id;
    const std::vector<int64_t>& activations = layer.activation_bytes;
    for (size_t i = 0; i < activations.size(); ++i) {
      auto [shape, dtype] = ActivationTensor(activations[i], kind);
      const std::string tensor_name = activations.size() == 1 ? name : name + ":" + std::to_string(i);
      op.outputs.push_back(graph.AddTensor(tensor_name, std::move(shape), dtype));
    }
    outputs[static_cast<size_t>(l)] = op.outputs;
    const int item = GetItemIndex(layer.description);
    for (int e : in_edges[static_cast<size_t>(l)]) {
      const std::vector<TensorId>& produced = outputs[static_cast<size_t>(profile.edges[static_cast<size_t>(e)].from)];
      const bool pick = item >= 0 && produced.size() > 1 && static_cast<size_t>(item) < produced.size();
      op.inputs.push_back(produced[pick ? static_cast<size_t>(item) : 0]);
    }
    if (layer.parameter_bytes > 0) {
      Op variable;
      variable.name = name + "/params";
      variable.kind = OpKind::kVariable;
      variable.param_bytes = layer.parameter_bytes;
      variable.colocation_group = graph.NewColocationGroup();
      variable.attrs["node"] = layer.id;
      variable.outputs = {graph.AddTensor(variable.name, {(layer.parameter_bytes + 3) / 4}, DType::kF32)};
      const TensorId params = variable.outputs[0];
      graph.AddOp(std::move(variable), /*compute_cost=*/false);
      // A lookup table is the first operand of a gather, the indices the second.
      if (kind == OpKind::kGather) {
        op.inputs.insert(op.inputs.begin(), params);
      } else {
        op.inputs.push_back(params);
      }
    }
    if (!op.outputs.empty() && !ShapesFitKind(graph, kind, op.inputs, op.outputs[0])) {
      op.attrs["kind_note"] = std::string(OpKindName(kind)) + " does not fit the profiled sizes";
      kind = OpKind::kGeneric;
    }
    op.kind = kind;
    if (kind == OpKind::kInput) {
      // The profiled forward time of an input is data loading, not compute.
      op.attrs["data_loading_us"] = layer.forward_ms * 1000.0;
    } else {
      op.measured_time_us = layer.forward_ms * 1000.0;
      op.measured_backward_us = layer.backward_ms * 1000.0;
    }
    const OpCategory category = CategoryOf(kind);
    if (category != OpCategory::kSource && category != OpCategory::kMetadata && category != OpCategory::kView) {
      for (TensorId t : op.inputs) op.cost.bytes_read = SaturatingAdd(op.cost.bytes_read, graph.tensor(t).bytes());
      for (TensorId t : op.outputs)
        op.cost.bytes_written = SaturatingAdd(op.cost.bytes_written, graph.tensor(t).bytes());
    }
    graph.AddOp(std::move(op), /*compute_cost=*/false);
  }
  Status verified = VerifyGraph(graph);
  if (!verified.ok()) return InternalError(source + ": imported graph does not verify: " + verified.message());
  return graph;
}

}  // namespace

// Tensors: shapes are not in the profile, so each output is a 1-D tensor whose bytes
// are the profiled activation size (one tensor per entry of a list). An edge carries
// the producer's first output, except into "__getitem__(k)", which takes output k.
// Parameters: a layer with parameter_size > 0 reads a Variable "<op>/params" of that
// many bytes, in a colocation group of its own. Costs: the measured forward and
// backward times in microseconds, no FLOPs, bytes from the tensors (none for inputs,
// views and shape helpers). A layer whose kind's shape rules do not fit the profiled
// sizes (say an Add of two different sizes) is imported as Generic.
StatusOr<Graph> ParsePipeDream(const std::string& text, const std::string& source) {
  GO_ASSIGN_OR_RETURN(Profile profile, ParseLines(text, source));
  return BuildGraph(profile, source);
}

StatusOr<Graph> ImportPipeDream(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) return IoError(path + ": is a directory, not a profile");
  std::ifstream in(path, std::ios::binary);
  if (!in) return IoError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return IoError(path + ": read error");
  return ParsePipeDream(text.str(), path);
}

}  // namespace graphopt
