#include "graph/graph.h"

#include <algorithm>

#include "graph/cost.h"

namespace graphopt {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool CheckedShapeBytes(const Shape& shape, int64_t element_bytes, int64_t* out) {
  int64_t n = element_bytes;
  if (n < 0) return false;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return false;
  }
  *out = n;
  return true;
}

int64_t OpResidentBytes(const Graph& graph, OpId id) {
  const Op& op = graph.op(id);
  int64_t resident = op.param_bytes;
  if (op.kind == OpKind::kVariable) {
    int64_t out = 0;
    for (TensorId t : op.outputs) out += graph.tensor(t).bytes();
    resident = std::max(resident, out);
  }
  return resident;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t GetIntAttr(const Attrs& attrs, const std::string& key, int64_t fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (auto* d = std::get_if<double>(&it->second)) return static_cast<int64_t>(*d);
  return fallback;
}

double GetFloatAttr(const Attrs& attrs, const std::string& key, double fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* d = std::get_if<double>(&it->second)) return *d;
  if (auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  return fallback;
}

std::string GetStringAttr(const Attrs& attrs, const std::string& key, const std::string& fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* s = std::get_if<std::string>(&it->second)) return *s;
  return fallback;
}

std::vector<int64_t> GetIntsAttr(const Attrs& attrs, const std::string& key, const std::vector<int64_t>& fallback) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return fallback;
  if (auto* v = std::get_if<std::vector<int64_t>>(&it->second)) return *v;
  if (auto* i = std::get_if<int64_t>(&it->second)) return {*i};
  return fallback;
}

int32_t Graph::AddLayer(std::string name) {
  layer_names_.push_back(std::move(name));
  return static_cast<int32_t>(layer_names_.size() - 1);
}

TensorId Graph::AddTensor(std::string name, Shape shape, DType dtype) {
  Tensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.dtype = dtype;
  tensors_.push_back(std::move(t));
  return static_cast<TensorId>(tensors_.size() - 1);
}

OpId Graph::AddOp(Op op, bool compute_cost) {
  const OpId id = static_cast<OpId>(ops_.size());
  for (TensorId t : op.inputs) {
    GO_CHECK_MSG(t >= 0 && t < num_tensors(), "op " + op.name + " reads an unknown tensor");
    tensors_[static_cast<size_t>(t)].consumers.push_back(id);
  }
  for (TensorId t : op.outputs) {
    GO_CHECK_MSG(t >= 0 && t < num_tensors(), "op " + op.name + " writes an unknown tensor");
    Tensor& tensor = tensors_[static_cast<size_t>(t)];
    GO_CHECK_MSG(tensor.producer == kNoId, "tensor " + tensor.name + " already has a producer");
    tensor.producer = id;
  }
  if (op.colocation_group >= next_group_) next_group_ = op.colocation_group + 1;
  ops_.push_back(std::move(op));
  if (compute_cost) ops_.back().cost = ComputeForwardCost(*this, ops_.back());
  return id;
}

Adjacency Graph::BuildAdjacency() const {
  const int n = num_ops();
  Adjacency adj;
  std::vector<std::vector<int32_t>> succ(static_cast<size_t>(n));
  std::vector<int32_t> pred_count(static_cast<size_t>(n) + 1, 0);
  for (OpId o = 0; o < n; ++o) {
    auto& s = succ[static_cast<size_t>(o)];
    for (TensorId t : ops_[static_cast<size_t>(o)].outputs) {
      for (OpId c : tensors_[static_cast<size_t>(t)].consumers) s.push_back(c);
    }
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  adj.succ_begin.assign(static_cast<size_t>(n) + 1, 0);
  for (int o = 0; o < n; ++o) {
    adj.succ_begin[static_cast<size_t>(o) + 1] = adj.succ_begin[static_cast<size_t>(o)] + static_cast<int32_t>(succ[static_cast<size_t>(o)].size());
    for (int32_t c : succ[static_cast<size_t>(o)]) ++pred_count[static_cast<size_t>(c) + 1];
  }
  adj.succs.reserve(static_cast<size_t>(adj.succ_begin.back()));
  for (auto& s : succ) adj.succs.insert(adj.succs.end(), s.begin(), s.end());
  adj.pred_begin.assign(static_cast<size_t>(n) + 1, 0);
  for (int o = 0; o < n; ++o) adj.pred_begin[static_cast<size_t>(o) + 1] = adj.pred_begin[static_cast<size_t>(o)] + pred_count[static_cast<size_t>(o) + 1];
  adj.preds.resize(adj.succs.size());
  std::vector<int32_t> fill(adj.pred_begin.begin(), adj.pred_begin.end() - 1);
  for (int o = 0; o < n; ++o) {
    for (int32_t c : succ[static_cast<size_t>(o)]) adj.preds[static_cast<size_t>(fill[static_cast<size_t>(c)]++)] = o;
  }
  return adj;
}

OpCost Graph::TotalCost() const {
  OpCost total;
  for (const Op& op : ops_) {
    total.flops += op.cost.flops;
    total.macs += op.cost.macs;
    total.bytes_read += op.cost.bytes_read;
    total.bytes_written += op.cost.bytes_written;
  }
  return total;
}

int64_t Graph::TotalParamBytes() const {
  int64_t total = 0;
  for (const Op& op : ops_) total += op.param_bytes;
  return total;
}

int64_t Graph::num_edges() const {
  int64_t n = 0;
  for (const Tensor& t : tensors_) n += static_cast<int64_t>(t.consumers.size());
  return n;
}

}  // namespace graphopt
