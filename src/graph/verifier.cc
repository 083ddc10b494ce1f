#include "graph/verifier.h"

#include <cmath>
#include <queue>
#include <unordered_set>

#include "graph/builder.h"

namespace graphopt {
namespace {

std::string OpRef(const Graph& g, OpId o) { return "op '" + g.op(o).name + "' (#" + std::to_string(o) + ")"; }

bool Broadcastable(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) return false;
  }
  return true;
}

Status CheckShapes(const Graph& g, OpId o) {
  const Op& op = g.op(o);
  auto in = [&](size_t i) -> const Shape& { return g.tensor(op.inputs[i]).shape; };
  const OpCategory cat = CategoryOf(op.kind);
  if (op.phase != Phase::kForward) return Status::Ok();  // gradient ops carry explicit shapes
  if (cat == OpCategory::kElementwise && op.kind != OpKind::kWhere && op.kind != OpKind::kClip && op.inputs.size() >= 2 &&
      !op.outputs.empty()) {
    Shape acc = in(0);
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      if (!Broadcastable(acc, in(i))) {
        return InvalidArgument(OpRef(g, o) + ": input shapes " + ShapeToString(acc) + " and " + ShapeToString(in(i)) +
                               " do not broadcast");
      }
      acc = BroadcastShapes(acc, in(i));
    }
    if (NumElements(acc) != g.tensor(op.outputs[0]).num_elements()) {
      return InvalidArgument(OpRef(g, o) + ": output shape " + ShapeToString(g.tensor(op.outputs[0]).shape) +
                             " is not the broadcast of its inputs " + ShapeToString(acc));
    }
  }
  if ((op.kind == OpKind::kMatMul || op.kind == OpKind::kBatchMatMul) && op.inputs.size() == 2) {
    Shape a = in(0), b = in(1);
    if (a.size() >= 2 && b.size() >= 2) {
      if (GetIntAttr(op.attrs, "transpose_a", 0)) std::swap(a[a.size() - 1], a[a.size() - 2]);
      if (GetIntAttr(op.attrs, "transpose_b", 0)) std::swap(b[b.size() - 1], b[b.size() - 2]);
      if (a.back() != b[b.size() - 2]) {
        return InvalidArgument(OpRef(g, o) + ": inner dimensions differ: " + ShapeToString(a) + " x " + ShapeToString(b));
      }
    }
  }
  if (op.kind == OpKind::kConcat && !op.outputs.empty() && !op.inputs.empty()) {
    const Shape& out = g.tensor(op.outputs[0]).shape;
    const int64_t axis = GetIntAttr(op.attrs, "axis", 0);
    int64_t sum = 0;
    for (size_t i = 0; i < op.inputs.size(); ++i) {
      if (in(i).size() != out.size() || axis < 0 || axis >= static_cast<int64_t>(out.size())) {
        return InvalidArgument(OpRef(g, o) + ": input " + ShapeToString(in(i)) + " does not fit output " + ShapeToString(out));
      }
      sum += in(i)[static_cast<size_t>(axis)];
    }
    if (sum != out[static_cast<size_t>(axis)]) {
      return InvalidArgument(OpRef(g, o) + ": concatenated sizes " + std::to_string(sum) + " differ from output " +
                             ShapeToString(out));
    }
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::vector<OpId>> TopologicalOrder(const Graph& g) {
  const int n = g.num_ops();
  std::vector<int32_t> indegree(static_cast<size_t>(n), 0);
  const Adjacency adj = g.BuildAdjacency();
  for (int o = 0; o < n; ++o) indegree[static_cast<size_t>(o)] = adj.pred_begin[static_cast<size_t>(o) + 1] - adj.pred_begin[static_cast<size_t>(o)];
  // Min-heap on op id: deterministic and keeps the builder's order where it can.
  std::priority_queue<OpId, std::vector<OpId>, std::greater<OpId>> ready;
  for (int o = 0; o < n; ++o) {
    if (indegree[static_cast<size_t>(o)] == 0) ready.push(o);
  }
  std::vector<OpId> order;
  order.reserve(static_cast<size_t>(n));
  while (!ready.empty()) {
    const OpId o = ready.top();
    ready.pop();
    order.push_back(o);
    for (int32_t i = adj.succ_begin[static_cast<size_t>(o)]; i < adj.succ_begin[static_cast<size_t>(o) + 1]; ++i) {
      const int32_t s = adj.succs[static_cast<size_t>(i)];
      if (--indegree[static_cast<size_t>(s)] == 0) ready.push(s);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    // Walk back along unfinished predecessors until an op repeats: that op is on a cycle.
    OpId start = 0;
    while (indegree[static_cast<size_t>(start)] == 0) ++start;
    std::vector<int> seen(static_cast<size_t>(n), -1);
    OpId cur = start;
    std::vector<OpId> path;
    while (seen[static_cast<size_t>(cur)] < 0) {
      seen[static_cast<size_t>(cur)] = static_cast<int>(path.size());
      path.push_back(cur);
      for (int32_t i = adj.pred_begin[static_cast<size_t>(cur)]; i < adj.pred_begin[static_cast<size_t>(cur) + 1]; ++i) {
        const int32_t p = adj.preds[static_cast<size_t>(i)];
        if (indegree[static_cast<size_t>(p)] > 0) {
          cur = p;
          break;
        }
      }
    }
    std::string cycle;
    for (size_t i = static_cast<size_t>(seen[static_cast<size_t>(cur)]); i < path.size(); ++i) {
      cycle = "'" + g.op(path[i]).name + "'" + (cycle.empty() ? "" : " -> ") + cycle;
    }
    return InvalidArgument("graph '" + g.name() + "' has a cycle: " + cycle + " -> '" + g.op(cur).name + "'");
  }
  return order;
}

Status VerifyGraph(const Graph& g) {
  const int n_ops = g.num_ops();
  const int n_tensors = g.num_tensors();
  std::unordered_set<std::string> names;
  names.reserve(static_cast<size_t>(n_ops));
  std::vector<int> produced(static_cast<size_t>(n_tensors), 0);
  int64_t total_bytes = 0;  // parameters and tensors, checked against kMaxGraphBytes
  for (OpId o = 0; o < n_ops; ++o) {
    const Op& op = g.op(o);
    if (op.name.empty()) return InvalidArgument("op #" + std::to_string(o) + " has no name");
    if (!names.insert(op.name).second) return InvalidArgument("op name '" + op.name + "' is used twice");
    for (TensorId t : op.inputs) {
      if (t < 0 || t >= n_tensors) return InvalidArgument(OpRef(g, o) + ": reads tensor #" + std::to_string(t) + ", which does not exist");
    }
    for (TensorId t : op.outputs) {
      if (t < 0 || t >= n_tensors) return InvalidArgument(OpRef(g, o) + ": writes tensor #" + std::to_string(t) + ", which does not exist");
      if (++produced[static_cast<size_t>(t)] > 1) {
        return InvalidArgument("tensor '" + g.tensor(t).name + "' is produced twice (again by " + OpRef(g, o) + ")");
      }
      if (g.tensor(t).producer != o) return InvalidArgument("tensor '" + g.tensor(t).name + "' does not name " + OpRef(g, o) + " as its producer");
    }
    if (op.colocation_group < kNoId || op.colocation_group >= g.num_colocation_groups()) {
      return InvalidArgument(OpRef(g, o) + ": colocation group " + std::to_string(op.colocation_group) + " out of range");
    }
    if (op.layer < kNoId || op.layer >= static_cast<int32_t>(g.layer_names().size())) {
      return InvalidArgument(OpRef(g, o) + ": layer tag " + std::to_string(op.layer) + " out of range");
    }
    if (op.forward_op < kNoId || op.forward_op >= n_ops) {
      return InvalidArgument(OpRef(g, o) + ": forward op #" + std::to_string(op.forward_op) + " out of range");
    }
    if (op.param_bytes < 0) return InvalidArgument(OpRef(g, o) + ": negative parameter bytes");
    if (op.cost.flops < 0 || op.cost.bytes_read < 0 || op.cost.bytes_written < 0) return InvalidArgument(OpRef(g, o) + ": negative cost");
    if (op.param_bytes > kMaxTensorBytes || op.cost.bytes_read > kMaxTensorBytes || op.cost.bytes_written > kMaxTensorBytes) {
      return InvalidArgument(OpRef(g, o) + ": parameter or traffic bytes over 2^50 (1 PiB)");
    }
    if (!std::isfinite(op.cost.flops) || !std::isfinite(op.cost.macs) || !std::isfinite(op.measured_time_us) ||
        !std::isfinite(op.measured_backward_us)) {
      return InvalidArgument(OpRef(g, o) + ": FLOPs, MACs and measured times must be finite");
    }
    if (__builtin_add_overflow(total_bytes, op.param_bytes, &total_bytes) || total_bytes > kMaxGraphBytes) {
      return InvalidArgument("graph '" + g.name() + "': parameters and tensors together exceed 2^60 bytes (at " + OpRef(g, o) + ")");
    }
  }
  std::unordered_set<std::string> tensor_names;
  tensor_names.reserve(static_cast<size_t>(n_tensors));
  for (TensorId t = 0; t < n_tensors; ++t) {
    const Tensor& tensor = g.tensor(t);
    if (tensor.name.empty()) return InvalidArgument("tensor #" + std::to_string(t) + " has no name");
    if (!tensor_names.insert(tensor.name).second) return InvalidArgument("tensor name '" + tensor.name + "' is used twice");
    if (produced[static_cast<size_t>(t)] == 0) {
      std::string user = tensor.consumers.empty() ? "" : " (read by " + OpRef(g, tensor.consumers[0]) + ")";
      return InvalidArgument("tensor '" + tensor.name + "' is dangling: no op produces it" + user);
    }
    for (int64_t d : tensor.shape) {
      if (d < 0) return InvalidArgument("tensor '" + tensor.name + "' has a negative dimension: " + ShapeToString(tensor.shape));
    }
    int64_t bytes = 0;
    if (!CheckedShapeBytes(tensor.shape, DTypeBytes(tensor.dtype), &bytes) || bytes > kMaxTensorBytes) {
      return InvalidArgument("tensor '" + tensor.name + "' of shape " + ShapeToString(tensor.shape) + " is over 2^50 bytes (1 PiB)");
    }
    if (__builtin_add_overflow(total_bytes, bytes, &total_bytes) || total_bytes > kMaxGraphBytes) {
      return InvalidArgument("graph '" + g.name() + "': parameters and tensors together exceed 2^60 bytes (at tensor '" + tensor.name + "')");
    }
    for (OpId c : tensor.consumers) {
      if (c < 0 || c >= n_ops) return InvalidArgument("tensor '" + tensor.name + "' lists consumer #" + std::to_string(c) + ", which does not exist");
      bool found = false;
      for (TensorId in : g.op(c).inputs) found |= in == t;
      if (!found) return InvalidArgument("tensor '" + tensor.name + "' lists " + OpRef(g, c) + " as a consumer, but it does not read it");
    }
  }
  for (OpId o = 0; o < n_ops; ++o) GO_RETURN_IF_ERROR(CheckShapes(g, o));
  auto order = TopologicalOrder(g);
  if (!order.ok()) return order.status();
  return Status::Ok();
}

}  // namespace graphopt
