#include "graph/cost.h"

namespace graphopt {
namespace {

const Shape& InShape(const Graph& g, const Op& op, size_t i) { return g.tensor(op.inputs[i]).shape; }

int64_t SumBytes(const Graph& g, const std::vector<TensorId>& ids) {
  int64_t b = 0;
  for (TensorId t : ids) b += g.tensor(t).bytes();
  return b;
}

int64_t Dim(const Shape& s, int64_t i) {
  if (i < 0) i += static_cast<int64_t>(s.size());
  if (i < 0 || i >= static_cast<int64_t>(s.size())) return 1;
  return s[static_cast<size_t>(i)];
}

int64_t ProdFrom(const Shape& s, size_t from) {
  int64_t p = 1;
  for (size_t i = from; i < s.size(); ++i) p *= s[i];
  return p;
}

// MACs and elementwise FLOPs of a recurrent op.
void RecurrentCost(const Graph& g, const Op& op, OpCost* cost) {
  // Inputs: X [T, B, I] for layers or [B, I] for cells; W [D, G*H, I] or [G*H, I].
  if (op.inputs.size() < 2) return;
  const Shape& x = InShape(g, op, 0);
  const Shape& w = InShape(g, op, 1);
  const bool cell = op.kind == OpKind::kLSTMCell || op.kind == OpKind::kGRUCell;
  const int64_t gates = (op.kind == OpKind::kLSTM || op.kind == OpKind::kLSTMCell) ? 4
                        : (op.kind == OpKind::kGRU || op.kind == OpKind::kGRUCell) ? 3
                                                                                   : 1;
  const int64_t per_unit = gates == 4 ? 32 : gates == 3 ? 24 : 6;
  const int64_t steps = cell ? 1 : Dim(x, 0);
  const int64_t batch = cell ? Dim(x, 0) : Dim(x, 1);
  const int64_t in = Dim(x, -1);
  const int64_t dirs = w.size() == 3 ? w[0] : 1;
  const int64_t hidden = GetIntAttr(op.attrs, "hidden_size", Dim(w, -2) / gates);
  const double macs = static_cast<double>(dirs) * steps * batch * gates * hidden * (in + hidden);
  cost->macs = macs;
  cost->flops = 2.0 * macs + static_cast<double>(dirs) * steps * batch * hidden * per_unit;
}

}  // namespace

OpCost ComputeForwardCost(const Graph& g, const Op& op) {
  OpCost cost;
  const OpCategory cat = CategoryOf(op.kind);
  if (cat == OpCategory::kSource || cat == OpCategory::kMetadata || cat == OpCategory::kView) return cost;
  cost.bytes_read = SumBytes(g, op.inputs);
  cost.bytes_written = SumBytes(g, op.outputs);
  const double n_out = op.outputs.empty() ? 0.0 : static_cast<double>(g.tensor(op.outputs[0]).num_elements());
  const double n_in = op.inputs.empty() ? 0.0 : static_cast<double>(g.tensor(op.inputs[0]).num_elements());
  switch (op.kind) {
    case OpKind::kConv:
      if (op.inputs.size() >= 2) {
        cost.macs = n_out * static_cast<double>(ProdFrom(InShape(g, op, 1), 1));
        cost.flops = 2.0 * cost.macs + (op.inputs.size() >= 3 ? n_out : 0.0);
      }
      break;
    case OpKind::kConvTranspose:
      if (op.inputs.size() >= 2) {
        cost.macs = n_in * static_cast<double>(ProdFrom(InShape(g, op, 1), 1));
        cost.flops = 2.0 * cost.macs + (op.inputs.size() >= 3 ? n_out : 0.0);
      }
      break;
    case OpKind::kMatMul:
    case OpKind::kBatchMatMul:
      if (op.inputs.size() >= 2) {
        const Shape& a = InShape(g, op, 0);
        const bool ta = GetIntAttr(op.attrs, "transpose_a", 0) != 0;
        const int64_t k = a.size() == 1 ? a[0] : (ta ? Dim(a, -2) : Dim(a, -1));
        cost.macs = n_out * static_cast<double>(k);
        cost.flops = 2.0 * cost.macs;
      }
      break;
    case OpKind::kGemm:
      if (op.inputs.size() >= 2) {
        const Shape& a = InShape(g, op, 0);
        const bool ta = GetIntAttr(op.attrs, "transA", 0) != 0;
        const int64_t k = ta ? Dim(a, 0) : Dim(a, -1);
        cost.macs = n_out * static_cast<double>(k);
        cost.flops = 2.0 * cost.macs + (op.inputs.size() >= 3 ? n_out : 0.0);
      }
      break;
    case OpKind::kLSTM:
    case OpKind::kGRU:
    case OpKind::kRNN:
    case OpKind::kLSTMCell:
    case OpKind::kGRUCell:
      RecurrentCost(g, op, &cost);
      break;
    case OpKind::kReduceSum:
    case OpKind::kReduceMean:
    case OpKind::kReduceMax:
      cost.flops = n_in;
      break;
    case OpKind::kSoftmax:
    case OpKind::kLogSoftmax:
      cost.flops = 5.0 * n_in;
      break;
    case OpKind::kLayerNorm:
      cost.flops = 8.0 * n_in;
      break;
    case OpKind::kBatchNorm:
      // Training mode (every graph here is a training step): the statistics of a
      // channel span the whole batch, so the kernel reads its input twice, once for
      // the mean and variance and once to normalize (XLA expands batch-norm-training
      // into a reduction and an elementwise pass; cuDNN's training kernel does the
      // same). A LayerNorm's statistics span one row, which a kernel keeps on chip
      // (a persistent reduction): one pass.
      cost.flops = 4.0 * n_in;
      if (!op.inputs.empty()) cost.bytes_read += g.tensor(op.inputs[0]).bytes();
      break;
    case OpKind::kMaxPool:
    case OpKind::kAvgPool: {
      double window = 1;
      for (int64_t k : GetIntsAttr(op.attrs, "kernel")) window *= static_cast<double>(k);
      cost.flops = n_out * window;
      break;
    }
    case OpKind::kGlobalAvgPool:
      cost.flops = n_in;
      break;
    case OpKind::kGather:
      // Reads only the gathered rows (the output) and the indices.
      cost.bytes_read = cost.bytes_written + (op.inputs.size() >= 2 ? g.tensor(op.inputs[1]).bytes() : 0);
      break;
    case OpKind::kSoftmaxCrossEntropy:
      cost.flops = 6.0 * n_in;
      break;
    case OpKind::kApplyGradient: {
      const double n_param = n_in;
      cost.flops = GetFloatAttr(op.attrs, "flops_per_element", 2.0) * n_param;
      break;
    }
    default:
      if (cat == OpCategory::kElementwise) {
        // Elementwise maps: for AddN/multi-input kinds every input element is touched.
        const double per = ElementwiseFlops(op.kind);
        cost.flops = op.kind == OpKind::kAddN ? n_out * static_cast<double>(op.inputs.size() > 1 ? op.inputs.size() - 1 : 1)
                                             : n_out * per;
      }
      break;
  }
  return cost;
}

}  // namespace graphopt
