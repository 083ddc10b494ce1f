#include "graph/training.h"

#include <algorithm>
#include <unordered_set>

#include "graph/verifier.h"

namespace graphopt {
namespace {

bool Differentiable(OpKind kind) {
  const OpCategory c = CategoryOf(kind);
  return c != OpCategory::kSource && c != OpCategory::kMetadata && c != OpCategory::kUpdate &&
         kind != OpKind::kCompare && kind != OpKind::kNot && kind != OpKind::kShape && kind != OpKind::kStopGradient;
}

// Which forward tensors the gradient of op's input `i` reads, besides the output gradients.
std::vector<TensorId> SavedTensors(const Op& op, size_t i) {
  const auto& in = op.inputs;
  const auto& out = op.outputs;
  auto other = [&]() -> std::vector<TensorId> {
    if (in.size() < 2) return {};
    return {in[i == 0 ? 1 : 0]};
  };
  switch (CategoryOf(op.kind)) {
    case OpCategory::kContraction:
      if (i >= 2) return {};  // bias
      return other();
    case OpCategory::kRecurrent: {
      std::vector<TensorId> all = in;
      all.insert(all.end(), out.begin(), out.end());
      return all;
    }
    case OpCategory::kElementwise:
      switch (op.kind) {
        case OpKind::kAdd:
        case OpKind::kSub:
        case OpKind::kAddN:
        case OpKind::kNeg:
        case OpKind::kCast:
        case OpKind::kIdentity:
          return {};
        case OpKind::kMul:
          return other();
        case OpKind::kDiv:
        case OpKind::kPow:
        case OpKind::kMax:
        case OpKind::kMin:
        case OpKind::kWhere:
          return in;
        case OpKind::kRelu:
        case OpKind::kSigmoid:
        case OpKind::kTanh:
        case OpKind::kExp:
        case OpKind::kSqrt:
        case OpKind::kDropout:
          return out.empty() ? std::vector<TensorId>{} : std::vector<TensorId>{out[0]};
        default:
          return {in[i]};
      }
    case OpCategory::kReduction:
      switch (op.kind) {
        case OpKind::kReduceSum:
        case OpKind::kReduceMean:
          return {};
        case OpKind::kSoftmax:
        case OpKind::kLogSoftmax:
          return {out[0]};
        case OpKind::kReduceMax:
          return {in[0], out[0]};
        default:  // norms: the input and the scale
          return in.size() >= 2 ? std::vector<TensorId>{in[0], in[1]} : std::vector<TensorId>{in[0]};
      }
    case OpCategory::kPool:
      if (op.kind == OpKind::kMaxPool) return {in[0], out[0]};
      return {};
    case OpCategory::kDataMovement:
      if (op.kind == OpKind::kGather && in.size() >= 2) return {in[1]};
      return {};
    case OpCategory::kLoss:
      return in;
    case OpCategory::kGeneric:
      return in;
    default:
      return {};
  }
}

// FLOPs of the gradient of op's input i (see training.h).
double GradFlops(const Graph& g, const Op& op, size_t i) {
  const double n_out = op.outputs.empty() ? 0.0 : static_cast<double>(g.tensor(op.outputs[0]).num_elements());
  const double n_in = static_cast<double>(g.tensor(op.inputs[i]).num_elements());
  switch (CategoryOf(op.kind)) {
    case OpCategory::kContraction:
      return i >= 2 ? n_out : 2.0 * op.cost.macs;
    case OpCategory::kRecurrent: {
      if (op.inputs.size() < 3) return op.cost.flops;
      const Shape& w = g.tensor(op.inputs[1]).shape;
      const Shape& r = g.tensor(op.inputs[2]).shape;
      const double in_dim = w.empty() ? 1.0 : static_cast<double>(w.back());
      const double hid = r.empty() ? 1.0 : static_cast<double>(r.back());
      const double elementwise = op.cost.flops - 2.0 * op.cost.macs;
      if (i == 0) return op.cost.flops;
      if (i == 1) return 2.0 * op.cost.macs * in_dim / (in_dim + hid);
      if (i == 2) return 2.0 * op.cost.macs * hid / (in_dim + hid);
      return std::max(elementwise / 8.0, n_in);  // biases and initial states
    }
    case OpCategory::kElementwise:
    case OpCategory::kReduction:
    case OpCategory::kPool:
      return i == 0 ? std::max(op.cost.flops, n_in) : n_in;
    case OpCategory::kLoss:
      return i == 0 ? 2.0 * n_in : 0.0;
    case OpCategory::kDataMovement:
      return op.kind == OpKind::kGather ? n_out : 0.0;
    default:
      return 0.0;
  }
}

class Expander {
 public:
  Expander(const Graph& fwd, const TrainingOptions& opt) : fwd_(fwd), g_(fwd), opt_(opt) {
    for (const Op& op : fwd.ops()) names_.insert(op.name);
    for (const Tensor& t : fwd.tensors()) tensor_names_.insert(t.name);
  }

  Status Run() {
    double flops_per_param = 0;
    int states = 0;
    if (opt_.optimizer == "sgd") {
      flops_per_param = 2;
    } else if (opt_.optimizer == "momentum") {
      flops_per_param = 4;
      states = 1;
    } else if (opt_.optimizer == "adam") {
      flops_per_param = 12;
      states = 2;
    } else {
      return InvalidArgument("unknown optimizer '" + opt_.optimizer + "' (expected sgd, momentum or adam)");
    }
    for (const Op& op : fwd_.ops()) {
      if (op.phase != Phase::kForward) {
        return FailedPrecondition("graph '" + fwd_.name() + "' is already a training graph (op '" + op.name + "' is " +
                                  PhaseName(op.phase) + ")");
      }
    }
    GO_ASSIGN_OR_RETURN(std::vector<OpId> order, TopologicalOrder(fwd_));
    const int n_t = fwd_.num_tensors();
    needs_grad_.assign(static_cast<size_t>(n_t), false);
    for (OpId o : order) {
      const Op& op = fwd_.op(o);
      bool any = op.kind == OpKind::kVariable;
      if (op.kind != OpKind::kVariable) {
        if (!Differentiable(op.kind)) continue;
        for (TensorId t : op.inputs) any |= needs_grad_[static_cast<size_t>(t)];
      }
      if (!any) continue;
      for (TensorId t : op.outputs) needs_grad_[static_cast<size_t>(t)] = IsFloating(fwd_.tensor(t).dtype);
    }
    contributions_.assign(static_cast<size_t>(n_t), {});
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const OpId o = *it;
      const Op op = fwd_.op(o);  // copy: g_ grows while we work
      if (op.kind == OpKind::kVariable) {
        const TensorId grad = Accumulated(op.outputs[0], op);
        if (grad == kNoId) continue;
        Op update;
        update.name = Unique("update/" + op.name);
        update.kind = OpKind::kApplyGradient;
        update.phase = Phase::kUpdate;
        update.inputs = {op.outputs[0], grad};
        update.colocation_group = op.colocation_group;
        update.layer = op.layer;
        update.forward_op = o;
        update.attrs["flops_per_element"] = flops_per_param;
        update.attrs["optimizer"] = opt_.optimizer;
        update.param_bytes = states * fwd_.tensor(op.outputs[0]).bytes();
        const int64_t p = fwd_.tensor(op.outputs[0]).bytes();
        update.cost.flops = flops_per_param * static_cast<double>(fwd_.tensor(op.outputs[0]).num_elements());
        update.cost.bytes_read = p * (2 + states);
        update.cost.bytes_written = p * (1 + states);
        g_.AddOp(std::move(update), false);
        continue;
      }
      if (!Differentiable(op.kind)) continue;
      bool wants = false;
      for (TensorId t : op.inputs) wants |= needs_grad_[static_cast<size_t>(t)];
      if (!wants) continue;
      // Gradients of the outputs. A sink is a loss: it seeds the backward pass.
      std::vector<TensorId> out_grads;
      std::vector<int64_t> grad_outputs;  // which outputs of op the entries of out_grads belong to
      bool has_consumers = false;
      for (size_t k = 0; k < op.outputs.size(); ++k) {
        const TensorId t = op.outputs[k];
        has_consumers |= !fwd_.tensor(t).consumers.empty();
        const TensorId grad = Accumulated(t, op);
        if (grad == kNoId) continue;
        out_grads.push_back(grad);
        grad_outputs.push_back(static_cast<int64_t>(k));
      }
      if (out_grads.empty() && has_consumers) continue;  // does not reach the loss
      std::vector<OpId> made;
      double total_flops = 0;
      for (size_t i = 0; i < op.inputs.size(); ++i) {
        const TensorId x = op.inputs[i];
        if (!needs_grad_[static_cast<size_t>(x)]) continue;
        Op grad;
        grad.name = Unique("grad/" + op.name + "/in" + std::to_string(i));
        grad.kind = op.kind;
        grad.phase = Phase::kBackward;
        grad.attrs = op.attrs;
        grad.attrs["grad_input"] = static_cast<int64_t>(i);
        grad.attrs["grad_outputs"] = grad_outputs;
        grad.inputs = out_grads;
        for (TensorId s : SavedTensors(op, i)) {
          if (std::find(grad.inputs.begin(), grad.inputs.end(), s) == grad.inputs.end()) grad.inputs.push_back(s);
        }
        const Tensor& xt = fwd_.tensor(x);
        const TensorId out = g_.AddTensor(UniqueTensor(grad.name), xt.shape, xt.dtype);
        grad.outputs = {out};
        grad.layer = op.layer;
        grad.forward_op = o;
        grad.cost.flops = GradFlops(fwd_, op, i);
        grad.cost.macs = CategoryOf(op.kind) == OpCategory::kContraction || CategoryOf(op.kind) == OpCategory::kRecurrent
                             ? grad.cost.flops / 2.0
                             : 0.0;
        for (TensorId t : grad.inputs) grad.cost.bytes_read += g_.tensor(t).bytes();
        grad.cost.bytes_written = xt.bytes();
        if (op.kind == OpKind::kGather && i == 0) grad.cost.bytes_read = g_.tensor(out_grads.empty() ? x : out_grads[0]).bytes();
        total_flops += grad.cost.flops;
        made.push_back(g_.AddOp(std::move(grad), false));
        contributions_[static_cast<size_t>(x)].push_back(out);
      }
      if (op.measured_backward_us >= 0 && !made.empty()) {
        for (OpId m : made) {
          const double share = total_flops > 0 ? g_.op(m).cost.flops / total_flops : 1.0 / static_cast<double>(made.size());
          g_.mutable_op(m).measured_time_us = op.measured_backward_us * share;
        }
      }
    }
    g_.set_metadata("training", opt_.optimizer);
    return Status::Ok();
  }

  Graph Take() { return std::move(g_); }

 private:
  // The summed gradient of forward tensor t (an AddN when several consumers contribute).
  TensorId Accumulated(TensorId t, const Op& producer) {
    auto& parts = contributions_[static_cast<size_t>(t)];
    if (parts.empty()) return kNoId;
    if (parts.size() == 1) return parts[0];
    Op sum;
    sum.name = Unique("grad/" + fwd_.tensor(t).name + "/sum");
    sum.kind = OpKind::kAddN;
    sum.phase = Phase::kBackward;
    sum.inputs = parts;
    const Tensor& ft = fwd_.tensor(t);
    const TensorId out = g_.AddTensor(UniqueTensor(sum.name), ft.shape, ft.dtype);
    sum.outputs = {out};
    sum.layer = producer.layer;
    sum.forward_op = ft.producer;
    g_.AddOp(std::move(sum), true);
    parts.assign(1, out);
    return out;
  }

  std::string Unique(const std::string& base) {
    std::string name = base;
    for (int k = 1; !names_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }
  std::string UniqueTensor(const std::string& base) {
    std::string name = base;
    for (int k = 1; !tensor_names_.insert(name).second; ++k) name = base + "_" + std::to_string(k);
    return name;
  }

  const Graph& fwd_;
  Graph g_;
  TrainingOptions opt_;
  std::vector<bool> needs_grad_;
  std::vector<std::vector<TensorId>> contributions_;
  std::unordered_set<std::string> names_, tensor_names_;
};

}  // namespace

StatusOr<Graph> BuildTrainingGraph(const Graph& forward, const TrainingOptions& options) {
  Expander expander(forward, options);
  GO_RETURN_IF_ERROR(expander.Run());
  return expander.Take();
}

}  // namespace graphopt
