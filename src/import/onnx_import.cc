// The importer runs in stages: parse the ModelProto, check that every tensor is
// defined once and the nodes form a DAG (sorting them if the file does not), give
// the graph inputs concrete dimensions, then alternate ONNX shape inference with
// the importer's own rules for what it leaves open (Slice, Reshape or Expand whose
// bounds are computed from shapes at run time, operators it has no schema for),
// and finally build the Graph op by op in topological order.
#include "import/onnx_import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/files.h"
#include "core/logging.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

namespace ox = ::ONNX_NAMESPACE;

// Largest element count of a tensor, far above any real model; sums of tensor bytes
// stay well inside an int64.
constexpr int64_t kMaxElements = int64_t{1} << 48;
// Largest integer tensor whose values are tracked for shape computations.
constexpr int64_t kMaxTrackedValues = 4096;
// Rounds of ONNX shape inference interleaved with the importer's own rules before the
// remaining unknown shapes are settled in one pass.
constexpr int kMaxInferenceRounds = 32;

struct TensorInfo {
  Shape shape;
  DType dtype = DType::kF32;
};

// An integer tensor whose values are known at import time (shapes and indices).
struct IntValue {
  Shape shape;
  std::vector<int64_t> values;
};

DType DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case ox::TensorProto::UINT8:
    case ox::TensorProto::STRING:
      return DType::kU8;
    case ox::TensorProto::INT8:
      return DType::kI8;
    case ox::TensorProto::UINT16:
    case ox::TensorProto::INT16:
      return DType::kI16;
    case ox::TensorProto::INT32:
    case ox::TensorProto::UINT32:
      return DType::kI32;
    case ox::TensorProto::INT64:
    case ox::TensorProto::UINT64:
      return DType::kI64;
    case ox::TensorProto::BOOL:
      return DType::kBool;
    case ox::TensorProto::FLOAT16:
      return DType::kF16;
    case ox::TensorProto::BFLOAT16:
      return DType::kBF16;
    case ox::TensorProto::DOUBLE:
    case ox::TensorProto::COMPLEX64:
      return DType::kF64;
    default:
      return DType::kF32;
  }
}

int32_t OnnxFromDType(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return ox::TensorProto::FLOAT;
    case DType::kF16:
      return ox::TensorProto::FLOAT16;
    case DType::kBF16:
      return ox::TensorProto::BFLOAT16;
    case DType::kF64:
      return ox::TensorProto::DOUBLE;
    case DType::kI64:
      return ox::TensorProto::INT64;
    case DType::kI32:
      return ox::TensorProto::INT32;
    case DType::kI16:
      return ox::TensorProto::INT16;
    case DType::kI8:
      return ox::TensorProto::INT8;
    case DType::kU8:
      return ox::TensorProto::UINT8;
    case DType::kBool:
      return ox::TensorProto::BOOL;
  }
  return ox::TensorProto::FLOAT;
}

bool IsIntegral(DType dtype) {
  return dtype == DType::kI64 || dtype == DType::kI32 || dtype == DType::kI16 || dtype == DType::kI8 ||
         dtype == DType::kU8 || dtype == DType::kBool;
}

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string FileStem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base = base.substr(0, dot);
  return base;
}

// Kinds of the ONNX operators this importer knows (default domain). Nodes whose
// outputs are shape computations become ShapeCompute regardless of this table.
const std::unordered_map<std::string, OpKind>& KindTable() {
  static const auto* table = new std::unordered_map<std::string, OpKind>{
      {"Conv", OpKind::kConv},
      {"ConvTranspose", OpKind::kConvTranspose},
      {"MatMul", OpKind::kMatMul},
      {"Gemm", OpKind::kGemm},
      {"LSTM", OpKind::kLSTM},
      {"GRU", OpKind::kGRU},
      {"RNN", OpKind::kRNN},
      {"Add", OpKind::kAdd},
      {"Sub", OpKind::kSub},
      {"Mul", OpKind::kMul},
      {"Div", OpKind::kDiv},
      {"Pow", OpKind::kPow},
      {"Max", OpKind::kMax},
      {"Min", OpKind::kMin},
      {"Sum", OpKind::kAddN},
      {"Neg", OpKind::kNeg},
      {"Abs", OpKind::kAbs},
      {"Relu", OpKind::kRelu},
      {"LeakyRelu", OpKind::kLeakyRelu},
      {"PRelu", OpKind::kLeakyRelu},
      {"Sigmoid", OpKind::kSigmoid},
      {"Tanh", OpKind::kTanh},
      {"Gelu", OpKind::kGelu},
      {"Erf", OpKind::kErf},
      {"Exp", OpKind::kExp},
      {"Log", OpKind::kLog},
      {"Sqrt", OpKind::kSqrt},
      {"Reciprocal", OpKind::kReciprocal},
      {"Clip", OpKind::kClip},
      {"Where", OpKind::kWhere},
      {"Equal", OpKind::kCompare},
      {"Less", OpKind::kCompare},
      {"LessOrEqual", OpKind::kCompare},
      {"Greater", OpKind::kCompare},
      {"GreaterOrEqual", OpKind::kCompare},
      {"And", OpKind::kCompare},
      {"Or", OpKind::kCompare},
      {"Xor", OpKind::kCompare},
      {"Not", OpKind::kNot},
      {"Cast", OpKind::kCast},
      {"CastLike", OpKind::kCast},
      {"Dropout", OpKind::kDropout},
      {"ReduceSum", OpKind::kReduceSum},
      {"ReduceSumSquare", OpKind::kReduceSum},
      {"ReduceProd", OpKind::kReduceSum},
      {"ReduceL1", OpKind::kReduceSum},
      {"ReduceL2", OpKind::kReduceSum},
      {"ReduceLogSum", OpKind::kReduceSum},
      {"ReduceLogSumExp", OpKind::kReduceSum},
      {"ReduceMean", OpKind::kReduceMean},
      {"ReduceMax", OpKind::kReduceMax},
      {"ReduceMin", OpKind::kReduceMax},
      {"ArgMax", OpKind::kReduceMax},
      {"ArgMin", OpKind::kReduceMax},
      {"Softmax", OpKind::kSoftmax},
      {"LogSoftmax", OpKind::kLogSoftmax},
      {"LayerNormalization", OpKind::kLayerNorm},
      {"InstanceNormalization", OpKind::kLayerNorm},
      {"GroupNormalization", OpKind::kLayerNorm},
      {"BatchNormalization", OpKind::kBatchNorm},
      {"MaxPool", OpKind::kMaxPool},
      {"AveragePool", OpKind::kAvgPool},
      {"LpPool", OpKind::kAvgPool},
      {"GlobalAveragePool", OpKind::kGlobalAvgPool},
      {"GlobalMaxPool", OpKind::kGlobalAvgPool},
      {"GlobalLpPool", OpKind::kGlobalAvgPool},
      {"Concat", OpKind::kConcat},
      {"Split", OpKind::kSplit},
      {"Slice", OpKind::kSlice},
      {"Gather", OpKind::kGather},
      {"GatherElements", OpKind::kGather},
      {"GatherND", OpKind::kGather},
      {"Transpose", OpKind::kTranspose},
      {"DepthToSpace", OpKind::kTranspose},
      {"SpaceToDepth", OpKind::kTranspose},
      {"Pad", OpKind::kPad},
      {"Expand", OpKind::kExpand},
      {"Tile", OpKind::kExpand},
      {"ScatterND", OpKind::kScatterAdd},
      {"ScatterElements", OpKind::kScatterAdd},
      {"Reshape", OpKind::kReshape},
      {"Flatten", OpKind::kReshape},
      {"Squeeze", OpKind::kReshape},
      {"Unsqueeze", OpKind::kReshape},
      {"Identity", OpKind::kIdentity},
      {"Shape", OpKind::kShape},
      {"Size", OpKind::kShape},
      {"ConstantOfShape", OpKind::kShapeCompute},
      {"Range", OpKind::kShapeCompute},
      {"Constant", OpKind::kConstant},
  };
  return *table;
}

// Shape of one sliced axis under the ONNX Slice rules; -1 if the step is 0.
int64_t SliceLength(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step == 0) return -1;
  if (dim == 0) return 0;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  if (start <= end) return 0;
  return step == std::numeric_limits<int64_t>::min() ? 1 : (start - end - 1) / -step + 1;
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element count of a shape, or -1 if a dimension is negative or the count is too large.
int64_t CheckedElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    if (d == 0) return 0;
  }
  for (int64_t d : shape) {
    if (n > kMaxElements / d) return -1;
    n *= d;
  }
  return n;
}

// Values of an integer TensorProto stored in the file; nullopt for other types,
// external data, or more than kMaxTrackedValues elements.
std::optional<IntValue> IntValueFromTensor(const ox::TensorProto& t) {
  if (t.data_location() == ox::TensorProto::EXTERNAL) return std::nullopt;
  IntValue v;
  v.shape.assign(t.dims().begin(), t.dims().end());
  const int64_t n = CheckedElements(v.shape);
  if (n < 0 || n > kMaxTrackedValues) return std::nullopt;
  size_t width = 0;
  bool is_signed = true;
  switch (t.data_type()) {
    case ox::TensorProto::INT64:
      width = 8;
      break;
    case ox::TensorProto::UINT64:
      width = 8;
      is_signed = false;
      break;
    case ox::TensorProto::INT32:
      width = 4;
      break;
    case ox::TensorProto::UINT32:
      width = 4;
      is_signed = false;
      break;
    case ox::TensorProto::INT16:
      width = 2;
      break;
    case ox::TensorProto::UINT16:
      width = 2;
      is_signed = false;
      break;
    case ox::TensorProto::INT8:
      width = 1;
      break;
    case ox::TensorProto::UINT8:
    case ox::TensorProto::BOOL:
      width = 1;
      is_signed = false;
      break;
    default:
      return std::nullopt;
  }
  if (t.has_raw_data()) {
    const std::string& raw = t.raw_data();
    if (raw.size() != static_cast<size_t>(n) * width) return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      uint64_t u = 0;
      std::memcpy(&u, raw.data() + static_cast<size_t>(i) * width, width);  // little-endian host
      int64_t value = static_cast<int64_t>(u);
      if (is_signed && width < 8 && (u >> (8 * width - 1)) != 0) value -= int64_t{1} << (8 * width);
      v.values.push_back(value);
    }
  } else if (t.data_type() == ox::TensorProto::INT64) {
    v.values.assign(t.int64_data().begin(), t.int64_data().end());
  } else if (t.data_type() == ox::TensorProto::UINT64 || t.data_type() == ox::TensorProto::UINT32) {
    for (uint64_t u : t.uint64_data()) v.values.push_back(static_cast<int64_t>(u));
  } else {
    v.values.assign(t.int32_data().begin(), t.int32_data().end());
  }
  if (static_cast<int64_t>(v.values.size()) != n) return std::nullopt;
  return v;
}

bool IsKnownOpType(const ox::NodeProto& node) {
  return IsDefaultDomain(node.domain()) && KindTable().count(node.op_type()) != 0;
}

const ox::AttributeProto* FindAttr(const ox::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t IntAttr(const ox::NodeProto& node, const std::string& name, int64_t fallback) {
  const ox::AttributeProto* a = FindAttr(node, name);
  return a != nullptr && a->has_i() ? a->i() : fallback;
}

std::optional<std::vector<int64_t>> IntsAttr(const ox::NodeProto& node, const std::string& name) {
  const ox::AttributeProto* a = FindAttr(node, name);
  if (a == nullptr) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

// The int, float, string and int-list attributes of a node (tensors, graphs and
// float lists are left out: costs never need them).
Attrs ConvertAttrs(const ox::NodeProto& node) {
  Attrs attrs;
  for (const auto& a : node.attribute()) {
    switch (a.type()) {
      case ox::AttributeProto::INT:
        attrs[a.name()] = static_cast<int64_t>(a.i());
        break;
      case ox::AttributeProto::FLOAT:
        attrs[a.name()] = static_cast<double>(a.f());
        break;
      case ox::AttributeProto::STRING:
        attrs[a.name()] = a.s();
        break;
      case ox::AttributeProto::INTS:
        attrs[a.name()] = std::vector<int64_t>(a.ints().begin(), a.ints().end());
        break;
      default:
        break;
    }
  }
  return attrs;
}

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

// Reads one ONNX model into a Graph. It owns the parsed ModelProto, which shape
// inference annotates in place (and into which the importer writes the shapes it
// settles itself), and the facts gathered per tensor name on the way: shape and
// dtype, known integer values, and which tensors are shape computations. One
// instance imports one file.
class OnnxImporter {
 public:
  OnnxImporter(std::string path, const OnnxImportOptions& options) : path_(std::move(path)), options_(options) {}

  StatusOr<Graph> Import(const std::string& bytes) {
    GO_RETURN_IF_ERROR(Parse(bytes));
    GO_RETURN_IF_ERROR(CheckAndSortNodes());
    GO_RETURN_IF_ERROR(ResolveInputDims());
    GO_RETURN_IF_ERROR(InferAllShapes());
    return BuildGraph();
  }

 private:
  Status Error(const std::string& what) const { return InvalidArgument(path_ + ": " + what); }
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
    if (options_.default_dim < 1) return InvalidArgument(path_ + ": default_dim must be at least 1");
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

  int64_t ResolveDim(const ox::TensorShapeProto::Dimension& d) const {
    if (d.has_dim_value()) return d.dim_value();
    if (d.has_dim_param()) {
      auto it = options_.dim_values.find(d.dim_param());
      if (it != options_.dim_values.end()) return it->second;
    }
    return options_.default_dim;
  }

  // Gives the graph inputs concrete dimensions before inference, so every inferred
  // shape downstream is concrete too. Inputs without a shape are taken as scalars.
  Status ResolveInputDims() {
    for (auto& v : *model_.mutable_graph()->mutable_input()) {
      if (initializer_names_.count(v.name()) != 0) continue;
      auto* tt = v.mutable_type()->mutable_tensor_type();
      if (!tt->has_shape()) {
        guessed_.push_back(v.name());
        tt->mutable_shape();
      }
      for (auto& d : *tt->mutable_shape()->mutable_dim()) {
        const int64_t value = ResolveDim(d);
        if (value < 0) return Error("graph input '" + v.name() + "' has a negative dimension " + std::to_string(value));
        d.set_dim_value(value);
      }
    }
    return Status::Ok();
  }

  Status RunOnnxShapeInference() {
    const ox::ShapeInferenceOptions inference_options(/*check_type_val=*/false, /*strict_mode_val=*/0,
                                                      /*data_prop_val=*/true);
    try {
      ox::shape_inference::InferShapes(model_, ox::OpSchemaRegistry::Instance(), inference_options);
    } catch (const std::exception& e) {
      return Error(std::string("ONNX shape inference failed: ") + e.what());
    }
    return Status::Ok();
  }

  Status AddInfo(const std::string& name, Shape shape, DType dtype) {
    if (CheckedElements(shape) < 0) {
      return Error("tensor '" + name + "' has an invalid shape " + ShapeToString(shape) +
                   " (negative dimension or too many elements)");
    }
    info_.emplace(name, TensorInfo{std::move(shape), dtype});
    return Status::Ok();
  }

  // Rebuilds info_ from initializers, value infos (as annotated by shape inference)
  // and the shapes settled by the importer.
  Status CollectShapes() {
    info_.clear();
    elem_types_.clear();
    for (const auto& t : graph().initializer()) {
      GO_RETURN_IF_ERROR(AddInfo(t.name(), Shape(t.dims().begin(), t.dims().end()), DTypeFromOnnx(t.data_type())));
    }
    for (const auto& s : graph().sparse_initializer()) {
      GO_RETURN_IF_ERROR(
          AddInfo(s.values().name(), Shape(s.dims().begin(), s.dims().end()), DTypeFromOnnx(s.values().data_type())));
    }
    auto add_value_infos = [&](const google::protobuf::RepeatedPtrField<ox::ValueInfoProto>& infos) -> Status {
      for (const auto& v : infos) {
        if (!v.type().has_tensor_type()) continue;
        const auto& tt = v.type().tensor_type();
        if (tt.elem_type() != 0) elem_types_.emplace(v.name(), tt.elem_type());
        if (!tt.has_shape() || info_.count(v.name()) != 0) continue;
        Shape shape;
        for (const auto& d : tt.shape().dim()) shape.push_back(ResolveDim(d));
        GO_RETURN_IF_ERROR(AddInfo(v.name(), std::move(shape), DTypeFromOnnx(tt.elem_type())));
      }
      return Status::Ok();
    };
    GO_RETURN_IF_ERROR(add_value_infos(graph().input()));
    GO_RETURN_IF_ERROR(add_value_infos(graph().value_info()));
    GO_RETURN_IF_ERROR(add_value_infos(graph().output()));
    for (const auto& [name, t] : settled_) info_.emplace(name, t);
    return Status::Ok();
  }

  std::optional<DType> ElemType(const std::string& name) const {
    auto it = elem_types_.find(name);
    if (it != elem_types_.end()) return DTypeFromOnnx(it->second);
    auto info = info_.find(name);
    if (info != info_.end()) return info->second.dtype;
    return std::nullopt;
  }

  const IntValue* Value(const ox::NodeProto& node, int i) const {
    if (i >= node.input_size() || node.input(i).empty()) return nullptr;
    auto it = values_.find(node.input(i));
    return it == values_.end() ? nullptr : &it->second;
  }

  const TensorInfo* Info(const ox::NodeProto& node, int i) const {
    if (i >= node.input_size() || node.input(i).empty()) return nullptr;
    auto it = info_.find(node.input(i));
    return it == info_.end() ? nullptr : &it->second;
  }

  // The integer values of a node's first output, if they follow from known values.
  std::optional<IntValue> EvaluateNode(const ox::NodeProto& node) const {
    const std::string& type = node.op_type();
    if (type == "Constant") {
      if (const auto* a = FindAttr(node, "value"); a != nullptr && a->has_t()) return IntValueFromTensor(a->t());
      if (const auto* a = FindAttr(node, "value_int")) return IntValue{{}, {a->i()}};
      if (const auto* a = FindAttr(node, "value_ints")) {
        return IntValue{{a->ints_size()}, std::vector<int64_t>(a->ints().begin(), a->ints().end())};
      }
      return std::nullopt;
    }
    if (type == "Shape") {
      const TensorInfo* in = Info(node, 0);
      if (in == nullptr) return std::nullopt;
      const int64_t rank = static_cast<int64_t>(in->shape.size());
      int64_t start = IntAttr(node, "start", 0), end = IntAttr(node, "end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      IntValue v{{end - start}, {}};
      v.values.assign(in->shape.begin() + start, in->shape.begin() + end);
      return v;
    }
    if (type == "Size") {
      const TensorInfo* in = Info(node, 0);
      if (in == nullptr) return std::nullopt;
      return IntValue{{}, {NumElements(in->shape)}};
    }
    auto out_dtype = node.output_size() > 0 ? ElemType(node.output(0)) : std::nullopt;
    if (!out_dtype || !IsIntegral(*out_dtype)) return std::nullopt;
    auto out_shape_or = [&](Shape fallback) {
      auto it = node.output_size() > 0 ? info_.find(node.output(0)) : info_.end();
      if (it != info_.end() && NumElements(it->second.shape) == NumElements(fallback)) return it->second.shape;
      return fallback;
    };
    if (type == "Identity" || type == "Cast" || type == "Reshape" || type == "Squeeze" || type == "Unsqueeze" ||
        type == "Flatten") {
      const IntValue* in = Value(node, 0);
      if (in == nullptr) return std::nullopt;
      return IntValue{out_shape_or(in->shape), in->values};
    }
    if (type == "Gather") {
      const IntValue* data = Value(node, 0);
      const IntValue* idx = Value(node, 1);
      if (data == nullptr || idx == nullptr || data->shape.size() != 1 || IntAttr(node, "axis", 0) != 0)
        return std::nullopt;
      const int64_t n = static_cast<int64_t>(data->values.size());
      IntValue v{idx->shape, {}};
      for (int64_t i : idx->values) {
        if (i < 0) i += n;
        if (i < 0 || i >= n) return std::nullopt;
        v.values.push_back(data->values[static_cast<size_t>(i)]);
      }
      return v;
    }
    if (type == "Concat") {
      IntValue v;
      for (int i = 0; i < node.input_size(); ++i) {
        const IntValue* in = Value(node, i);
        if (in == nullptr || in->shape.size() > 1) return std::nullopt;
        v.values.insert(v.values.end(), in->values.begin(), in->values.end());
        if (static_cast<int64_t>(v.values.size()) > kMaxTrackedValues) return std::nullopt;
      }
      v.shape = {static_cast<int64_t>(v.values.size())};
      return v;
    }
    if (type == "Slice") {
      const IntValue* data = Value(node, 0);
      const IntValue* starts = Value(node, 1);
      const IntValue* ends = Value(node, 2);
      const IntValue* axes = Value(node, 3);
      const IntValue* steps = Value(node, 4);
      if (data == nullptr || starts == nullptr || ends == nullptr || data->shape.size() != 1) return std::nullopt;
      if (starts->values.size() != 1 || ends->values.size() != 1) return std::nullopt;
      if (axes != nullptr && (axes->values.size() != 1 || (axes->values[0] != 0 && axes->values[0] != -1))) {
        return std::nullopt;
      }
      const int64_t step = steps == nullptr ? 1 : steps->values.empty() ? 0 : steps->values[0];
      const int64_t dim = static_cast<int64_t>(data->values.size());
      const int64_t len = SliceLength(dim, starts->values[0], ends->values[0], step);
      if (len < 0) return std::nullopt;
      IntValue v{{len}, {}};
      if (len == 0) return v;
      int64_t start = starts->values[0] < 0 ? starts->values[0] + dim : starts->values[0];
      start = step > 0 ? std::clamp<int64_t>(start, 0, dim) : std::clamp<int64_t>(start, 0, dim - 1);
      for (int64_t i = 0; i < len; ++i) v.values.push_back(data->values[static_cast<size_t>(start + i * step)]);
      return v;
    }
    if (type == "Neg" || type == "Abs") {
      const IntValue* in = Value(node, 0);
      if (in == nullptr) return std::nullopt;
      IntValue v = *in;
      for (int64_t& x : v.values) x = type == "Neg" ? -x : std::abs(x);
      return v;
    }
    static const std::unordered_set<std::string> kBinary = {"Add", "Sub",   "Mul",  "Div",     "Mod",  "Max",
                                                            "Min", "Equal", "Less", "Greater", "Where"};
    if (kBinary.count(type) != 0) return EvaluateElementwise(node, out_shape_or);
    if (type == "Range") {
      const IntValue* start = Value(node, 0);
      const IntValue* limit = Value(node, 1);
      const IntValue* delta = Value(node, 2);
      if (start == nullptr || limit == nullptr || delta == nullptr || start->values.size() != 1 ||
          limit->values.size() != 1 || delta->values.size() != 1 || delta->values[0] == 0) {
        return std::nullopt;
      }
      const int64_t s = start->values[0], l = limit->values[0], d = delta->values[0];
      const double span = std::ceil((static_cast<double>(l) - static_cast<double>(s)) / static_cast<double>(d));
      if (!(span <= static_cast<double>(kMaxTrackedValues))) return std::nullopt;
      const int64_t n = std::max<int64_t>(0, static_cast<int64_t>(span));
      IntValue v{{n}, {}};
      for (int64_t i = 0; i < n; ++i) v.values.push_back(s + i * d);
      return v;
    }
    if (type == "ConstantOfShape") {
      const IntValue* shape = Value(node, 0);
      if (shape == nullptr) return std::nullopt;
      const int64_t n = CheckedElements(shape->values);
      if (n < 0 || n > kMaxTrackedValues) return std::nullopt;
      int64_t fill = 0;
      if (const auto* a = FindAttr(node, "value"); a != nullptr && a->has_t()) {
        auto value = IntValueFromTensor(a->t());
        if (!value || value->values.size() != 1) return std::nullopt;
        fill = value->values[0];
      }
      return IntValue{shape->values, std::vector<int64_t>(static_cast<size_t>(n), fill)};
    }
    return std::nullopt;
  }

  template <typename ShapeFn>
  std::optional<IntValue> EvaluateElementwise(const ox::NodeProto& node, const ShapeFn& out_shape_or) const {
    std::vector<const IntValue*> ins;
    size_t n = 1;
    Shape shape;
    for (int i = 0; i < node.input_size(); ++i) {
      const IntValue* in = Value(node, i);
      if (in == nullptr) return std::nullopt;
      ins.push_back(in);
      if (in->values.size() > n) {
        n = in->values.size();
        shape = in->shape;
      }
    }
    for (const IntValue* in : ins) {
      if (in->values.size() != 1 && in->values.size() != n) return std::nullopt;
    }
    const std::string& type = node.op_type();
    if ((type == "Where" && ins.size() != 3) || (type != "Where" && ins.size() != 2)) return std::nullopt;
    IntValue v{out_shape_or(shape), {}};
    for (size_t i = 0; i < n; ++i) {
      auto at = [&](size_t k) { return ins[k]->values.size() == 1 ? ins[k]->values[0] : ins[k]->values[i]; };
      const int64_t a = at(0), b = at(1);
      int64_t r = 0;
      bool overflow = false;
      if (type == "Add")
        overflow = __builtin_add_overflow(a, b, &r);
      else if (type == "Sub")
        overflow = __builtin_sub_overflow(a, b, &r);
      else if (type == "Mul")
        overflow = __builtin_mul_overflow(a, b, &r);
      else if (type == "Div" || type == "Mod") {
        if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min())) return std::nullopt;
        r = type == "Div" ? a / b : a % b;
      } else if (type == "Max")
        r = std::max(a, b);
      else if (type == "Min")
        r = std::min(a, b);
      else if (type == "Equal")
        r = a == b;
      else if (type == "Less")
        r = a < b;
      else if (type == "Greater")
        r = a > b;
      else
        r = a != 0 ? b : at(2);
      if (overflow) return std::nullopt;
      v.values.push_back(r);
    }
    return v;
  }

  void EvaluateIntValues() {
    values_.clear();
    for (const auto& t : graph().initializer()) {
      if (auto v = IntValueFromTensor(t)) values_.emplace(t.name(), std::move(*v));
    }
    for (const auto& node : graph().node()) {
      if (node.output_size() == 0 || node.output(0).empty()) continue;
      if (auto v = EvaluateNode(node)) values_.emplace(node.output(0), std::move(*v));
    }
  }

  // Output shapes of a node that ONNX shape inference left open, from the importer's
  // own rules; nullopt if no rule applies.
  std::optional<Shape> RuleShape(const ox::NodeProto& node) const {
    const std::string& type = node.op_type();
    if (auto it = values_.find(node.output(0)); it != values_.end()) return it->second.shape;
    const TensorInfo* data = Info(node, 0);
    if (data != nullptr && node.input_size() == 1 && IsKnownOpType(node) &&
        CategoryOf(KindTable().at(type)) == OpCategory::kElementwise) {
      return data->shape;
    }
    if (type == "Slice" && data != nullptr) {
      std::vector<int64_t> starts, ends, axes, steps;
      if (auto s = IntsAttr(node, "starts")) {
        starts = *s;
        ends = IntsAttr(node, "ends").value_or(std::vector<int64_t>{});
        axes = IntsAttr(node, "axes").value_or(std::vector<int64_t>{});
      } else {
        const IntValue* s_value = Value(node, 1);
        const IntValue* e_value = Value(node, 2);
        if (s_value == nullptr || e_value == nullptr) return std::nullopt;
        starts = s_value->values;
        ends = e_value->values;
        if (const IntValue* a = Value(node, 3)) axes = a->values;
        if (const IntValue* st = Value(node, 4)) steps = st->values;
        if (node.input_size() > 3 && !node.input(3).empty() && Value(node, 3) == nullptr) return std::nullopt;
        if (node.input_size() > 4 && !node.input(4).empty() && Value(node, 4) == nullptr) return std::nullopt;
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
    const IntValue* shape_value = Value(node, 1);
    if (type == "Reshape" && data != nullptr && shape_value != nullptr) {
      const bool allow_zero = IntAttr(node, "allowzero", 0) != 0;
      Shape out;
      int64_t infer_at = -1, known = 1;
      for (size_t i = 0; i < shape_value->values.size(); ++i) {
        int64_t d = shape_value->values[i];
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
        if (known == 0) return std::nullopt;
        out[static_cast<size_t>(infer_at)] = NumElements(data->shape) / known;
      }
      return out;
    }
    if (type == "Expand" && data != nullptr && shape_value != nullptr)
      return Broadcast(data->shape, shape_value->values);
    if (type == "Tile" && data != nullptr && shape_value != nullptr &&
        shape_value->values.size() == data->shape.size()) {
      Shape out = data->shape;
      for (size_t i = 0; i < out.size(); ++i) {
        if (__builtin_mul_overflow(out[i], shape_value->values[i], &out[i])) return std::nullopt;
      }
      return out;
    }
    if (type == "ConstantOfShape") {
      if (const IntValue* shape = Value(node, 0)) return shape->values;
    }
    return std::nullopt;
  }

  DType RuleDType(const ox::NodeProto& node, const std::string& output) const {
    if (auto d = ElemType(output)) return *d;
    const std::string& type = node.op_type();
    if (type == "Shape" || type == "Size") return DType::kI64;
    if (type == "Cast") return DTypeFromOnnx(static_cast<int32_t>(IntAttr(node, "to", ox::TensorProto::FLOAT)));
    if (type == "Equal" || type == "Less" || type == "Greater" || type == "LessOrEqual" || type == "GreaterOrEqual" ||
        type == "Not" || type == "And" || type == "Or" || type == "Xor") {
      return DType::kBool;
    }
    if (type == "ConstantOfShape") {
      const auto* a = FindAttr(node, "value");
      return a != nullptr && a->has_t() ? DTypeFromOnnx(a->t().data_type()) : DType::kF32;
    }
    const TensorInfo* in = Info(node, 0);
    return in != nullptr ? in->dtype : DType::kF32;
  }

  // Records a shape the importer settled and writes it into the model, so the next
  // round of ONNX shape inference can propagate it.
  void Settle(const std::string& name, const TensorInfo& t) {
    settled_[name] = t;
    ox::GraphProto* g = model_.mutable_graph();
    ox::ValueInfoProto* vi = nullptr;
    for (auto& v : *g->mutable_output()) {
      if (v.name() == name) vi = &v;
    }
    if (vi == nullptr) {
      auto it = value_info_index_.find(name);
      if (it != value_info_index_.end() && it->second < g->value_info_size() &&
          g->value_info(it->second).name() == name) {
        vi = g->mutable_value_info(it->second);
      }
    }
    if (vi == nullptr) {
      vi = g->add_value_info();
      vi->set_name(name);
    }
    auto* tt = vi->mutable_type()->mutable_tensor_type();
    if (tt->elem_type() == 0) tt->set_elem_type(OnnxFromDType(t.dtype));
    auto* shape = tt->mutable_shape();
    shape->clear_dim();
    for (int64_t d : t.shape) shape->add_dim()->set_dim_value(d);
  }

  // Settles the outputs of nodes whose inputs all have shapes but whose outputs do
  // not, by the importer's rules or, failing those, as the shape of the first input.
  // In progressive mode settled outputs count as known at once (one pass settles
  // everything); otherwise only shapes known before the pass are used, leaving the
  // rest to the next round of ONNX inference. Returns the number of settled tensors.
  int SettleMissingShapes(bool progressive) {
    value_info_index_.clear();
    for (int i = 0; i < graph().value_info_size(); ++i) value_info_index_.emplace(graph().value_info(i).name(), i);
    std::unordered_set<std::string> fresh;
    int settled = 0;
    for (const auto& node : graph().node()) {
      bool missing = false;
      for (const auto& out : node.output()) missing |= !out.empty() && info_.count(out) == 0;
      if (!missing) continue;
      bool inputs_known = true;
      for (const auto& in : node.input()) inputs_known &= in.empty() || (info_.count(in) != 0 && fresh.count(in) == 0);
      if (!inputs_known) continue;
      const std::optional<Shape> rule = node.output(0).empty() ? std::nullopt : RuleShape(node);
      const TensorInfo* first = Info(node, 0);
      for (int k = 0; k < node.output_size(); ++k) {
        const std::string& out = node.output(k);
        if (out.empty() || info_.count(out) != 0) continue;
        TensorInfo t;
        t.dtype = RuleDType(node, out);
        if (k == 0 && rule && CheckedElements(*rule) >= 0) {
          t.shape = *rule;
        } else {
          t.shape = first != nullptr ? first->shape : Shape{};
          if (IsKnownOpType(node)) guessed_.push_back(out);
        }
        Settle(out, t);
        info_.emplace(out, t);
        if (!progressive) fresh.insert(out);
        ++settled;
      }
    }
    return settled;
  }

  bool AllShapesKnown() const {
    for (const auto& node : graph().node()) {
      for (const auto& out : node.output()) {
        if (!out.empty() && info_.count(out) == 0) return false;
      }
    }
    return true;
  }

  Status InferAllShapes() {
    for (int round = 0;; ++round) {
      GO_RETURN_IF_ERROR(RunOnnxShapeInference());
      GO_RETURN_IF_ERROR(CollectShapes());
      EvaluateIntValues();
      if (AllShapesKnown()) break;
      const bool progressive = round + 1 >= kMaxInferenceRounds;
      const int settled = SettleMissingShapes(progressive);
      if (progressive || settled == 0) {
        if (!AllShapesKnown()) return InternalError(path_ + ": some tensor shapes could not be determined");
        break;
      }
    }
    if (!guessed_.empty()) {
      std::string names;
      for (size_t i = 0; i < guessed_.size() && i < 10; ++i) names += (i ? ", '" : "'") + guessed_[i] + "'";
      if (guessed_.size() > 10) names += " and " + std::to_string(guessed_.size() - 10) + " more";
      LogWarning(path_ + ": shape inference could not determine " + std::to_string(guessed_.size()) +
                 " tensor shape(s); assumed the shape of the op's first input (scalar for graph inputs): " + names);
    }
    return Status::Ok();
  }

  // The kind of a node: the table's, refined by operand ranks and by whether the
  // node only computes shapes.
  OpKind Classify(const ox::NodeProto& node, const std::vector<TensorId>& inputs, const std::vector<TensorId>& outputs,
                  const Graph& g) const {
    if (!IsDefaultDomain(node.domain())) return OpKind::kGeneric;
    auto it = KindTable().find(node.op_type());
    const OpKind kind = it == KindTable().end() ? OpKind::kGeneric : it->second;
    if (kind == OpKind::kConstant || kind == OpKind::kShape) return kind;
    bool integral_outputs = !outputs.empty();
    for (TensorId t : outputs) integral_outputs &= IsIntegral(g.tensor(t).dtype);
    bool shape_inputs = !inputs.empty();
    for (TensorId t : inputs) shape_inputs &= shape_tensors_.count(t) != 0 || constant_tensors_.count(t) != 0;
    const bool gathers_shape = node.op_type() == "Gather" && !inputs.empty() && shape_tensors_.count(inputs[0]) != 0;
    if (integral_outputs && (shape_inputs || gathers_shape)) {
      return OpKind::kShapeCompute;
    }
    if (kind == OpKind::kMatMul && inputs.size() == 2 && g.tensor(inputs[0]).shape.size() > 2 &&
        g.tensor(inputs[1]).shape.size() > 2) {
      return OpKind::kBatchMatMul;
    }
    return kind;
  }

  // Attributes in the names the cost formulas and the rest of graphopt use.
  static void NormalizeAttrs(const ox::NodeProto& node, OpKind kind, const std::vector<TensorId>& inputs,
                             const std::vector<TensorId>& outputs, const Graph& g, Attrs* attrs) {
    auto rank_of = [&](TensorId t) { return static_cast<int64_t>(g.tensor(t).shape.size()); };
    auto fill_default = [&](const char* key, size_t n, int64_t value) {
      if (attrs->count(key) == 0) (*attrs)[key] = std::vector<int64_t>(n, value);
    };
    switch (kind) {
      case OpKind::kConv:
      case OpKind::kConvTranspose:
      case OpKind::kMaxPool:
      case OpKind::kAvgPool: {
        std::vector<int64_t> kernel = GetIntsAttr(*attrs, "kernel_shape");
        const bool conv = kind == OpKind::kConv || kind == OpKind::kConvTranspose;
        if (kernel.empty() && conv && inputs.size() >= 2) {
          const Shape& w = g.tensor(inputs[1]).shape;
          if (w.size() > 2) kernel.assign(w.begin() + 2, w.end());
        }
        attrs->erase("kernel_shape");
        (*attrs)["kernel"] = kernel;
        fill_default("strides", kernel.size(), 1);
        fill_default("pads", 2 * kernel.size(), 0);
        if (conv) {
          fill_default("dilations", kernel.size(), 1);
          if (attrs->count("group") == 0) (*attrs)["group"] = int64_t{1};
        }
        break;
      }
      case OpKind::kGemm:
        if (attrs->count("transA") == 0) (*attrs)["transA"] = int64_t{0};
        if (attrs->count("transB") == 0) (*attrs)["transB"] = int64_t{0};
        break;
      case OpKind::kLSTM:
      case OpKind::kGRU:
      case OpKind::kRNN:
        if (attrs->count("hidden_size") == 0 && inputs.size() >= 3) {
          const Shape& r = g.tensor(inputs[2]).shape;
          if (!r.empty()) (*attrs)["hidden_size"] = r.back();
        }
        break;
      case OpKind::kConcat:
      case OpKind::kSplit:
      case OpKind::kGather:
      case OpKind::kSoftmax:
      case OpKind::kLogSoftmax:
      case OpKind::kLayerNorm:
        if (!inputs.empty() && attrs->count("axis") != 0) {
          int64_t axis = GetIntAttr(*attrs, "axis", 0);
          if (axis < 0) axis += rank_of(inputs[0]);
          (*attrs)["axis"] = axis;
        }
        if (kind == OpKind::kSplit && attrs->count("split") == 0) {
          const int64_t axis = GetIntAttr(*attrs, "axis", 0);
          std::vector<int64_t> sizes;
          for (TensorId t : outputs) {
            const Shape& s = g.tensor(t).shape;
            if (axis >= 0 && axis < static_cast<int64_t>(s.size())) sizes.push_back(s[static_cast<size_t>(axis)]);
          }
          (*attrs)["split"] = sizes;
        }
        break;
      default:
        break;
    }
    if (!IsDefaultDomain(node.domain())) {
      (*attrs)["op_type"] = node.domain() + ":" + node.op_type();
    } else if (node.op_type() != OpKindName(kind)) {
      (*attrs)["op_type"] = node.op_type();
    }
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
    UniqueNamer namer;
    std::unordered_map<std::string, TensorId> ids;
    auto add_tensor = [&](const std::string& name) {
      const TensorInfo& t = info_.at(name);
      const TensorId id = g.AddTensor(name, t.shape, t.dtype);
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
      Op op;
      for (const auto& in : node.input()) {
        if (!in.empty()) op.inputs.push_back(ids.at(in));
      }
      for (const auto& in : extra_inputs_[static_cast<size_t>(i)]) op.inputs.push_back(ids.at(in));
      for (const auto& out : node.output()) {
        if (!out.empty()) op.outputs.push_back(add_tensor(out));
      }
      op.kind = Classify(node, op.inputs, op.outputs, g);
      if (!IsKnownOpType(node))
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
      g.AddOp(std::move(op));
    }
    if (!unknown.empty()) {
      std::string list;
      int total = 0;
      for (const auto& [type, count] : unknown) {
        list += (list.empty() ? "" : ", ") + type + " x" + std::to_string(count);
        total += count;
      }
      LogWarning(path_ + ": " + std::to_string(total) +
                 " node(s) of op types the importer does not know, imported as Generic ops costed by their bytes "
                 "(outputs that shape inference cannot tell take the shape of the first input): " +
                 list);
    }
    const Status verified = VerifyGraph(g);
    if (!verified.ok()) return verified.WithContext(path_ + ": the imported graph is malformed");
    return g;
  }

  std::string path_;
  OnnxImportOptions options_;
  ox::ModelProto model_;
  std::vector<int> original_index_;                     // file position of each (sorted) node
  std::vector<std::vector<std::string>> extra_inputs_;  // names each node's subgraphs read from the graph
  std::unordered_set<std::string> initializer_names_;
  std::unordered_map<std::string, TensorInfo> info_;       // shape and dtype of every known tensor
  std::unordered_map<std::string, int32_t> elem_types_;    // ONNX element types, also of tensors without shape
  std::unordered_map<std::string, TensorInfo> settled_;    // shapes the importer determined itself
  std::unordered_map<std::string, int> value_info_index_;  // position of each name in graph.value_info
  std::unordered_map<std::string, IntValue> values_;       // integer tensors with known values
  std::vector<std::string> guessed_;                       // tensors whose shapes were assumed
  std::unordered_set<TensorId> shape_tensors_;             // outputs of Shape and ShapeCompute ops
  std::unordered_set<TensorId> constant_tensors_;          // outputs of Constant and Variable ops
};

}  // namespace

StatusOr<Graph> ImportOnnx(const std::string& path, const OnnxImportOptions& options) {
  GO_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  try {
    OnnxImporter importer(path, options);
    return importer.Import(bytes);
  } catch (const std::exception& e) {
    return InternalError(path + ": ONNX import failed: " + e.what());
  } catch (...) {
    return InternalError(path + ": ONNX import failed with an unknown error");
  }
}

}  // namespace graphopt
