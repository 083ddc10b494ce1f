// Recurrent kernels and the gradients recomputed under autograd.
//
// LSTM/GRU/RNN layers follow ONNX: X [T, B, I] ([B, T, I] with layout=1), W [D, G*H, I],
// R [D, G*H, H], then optional B [D, 2*G*H], sequence lengths (integers), initial_h and
// initial_c [D, B, H] and peepholes P [D, 3H], told apart by shape because the importer
// drops the empty optional inputs; gates i, o, f, c (LSTM) and z, r, h (GRU); outputs
// Y [T, D, B, H], Y_h and Y_c [D, B, H]. Every sequence runs its full length (the
// lengths are not read). Cells (LSTMCell, GRUCell) take x [B, I], states [B, H] and
// either ATen's cell layout (w_ih [G*H, I], w_hh [G*H, H], biases, its gate order), or
// one kernel [I+H, G*H] over concat(x, h) and a bias (as the built-in models' unrolled
// LSTMs keep their weights).
//
// The graph keeps none of a recurrence's internals (gates, cell states per step), so
// their gradients run the forward again with autograd on and back-propagate through
// it: AutogradGradient, which also serves every other op whose gradient the graph
// gives all it needs, or whose derivative does not depend on what it lacks.
#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/autograd.h>

#include "exec/kernels_impl.h"

namespace graphopt {
namespace exec_kernels {
namespace {

struct RecurrentPlan {
  int64_t gates = 4;
  bool cell = false;
  int64_t steps = 1, batch = 0, in = 0, hidden = 0, dirs = 1;
  bool batch_first = false;
  bool reverse = false;  // a single direction that runs backwards
  bool linear_before_reset = false;
  // Positions among the op's inputs, -1 if absent.
  int w = -1, r = -1, bias = -1, bias_hh = -1, h0 = -1, c0 = -1, peephole = -1, kernel = -1;
};

int64_t GatesOf(OpKind kind) {
  if (kind == OpKind::kLSTM || kind == OpKind::kLSTMCell) return 4;
  if (kind == OpKind::kGRU || kind == OpKind::kGRUCell) return 3;
  return 1;
}

StatusOr<RecurrentPlan> PlanRecurrent(const KernelCall& c) {
  const Op& op = c.op();
  RecurrentPlan p;
  p.gates = GatesOf(op.kind);
  p.cell = op.kind == OpKind::kLSTMCell || op.kind == OpKind::kGRUCell;
  const bool lstm = p.gates == 4;
  if (c.num_inputs() < 2 || c.num_outputs() < 1) return c.Error("a recurrence reads an input and weights");
  const Shape& x = c.in_shape(0);
  if (p.cell) {
    if (x.size() != 2 || c.out_shape(0).size() != 2) return c.Error("a cell reads x [B, I] and gives h [B, H]");
    p.batch = x[0];
    p.in = x[1];
    p.hidden = GetIntAttr(op.attrs, "hidden_size", c.out_shape(0)[1]);
    const int64_t gh = p.gates * p.hidden;
    for (size_t j = 1; j < c.num_inputs(); ++j) {
      const Shape& s = c.in_shape(j);
      const int jj = static_cast<int>(j);
      if (!IsFloating(c.in_dtype(j))) continue;
      if (s == Shape{gh, p.in} && p.w < 0) {
        p.w = jj;
      } else if (s == Shape{gh, p.hidden} && p.r < 0) {
        p.r = jj;
      } else if (s == Shape{p.in + p.hidden, gh} && p.kernel < 0) {
        p.kernel = jj;
      } else if ((s == Shape{gh} || s == Shape{2 * gh}) && (p.bias < 0 || p.bias_hh < 0)) {
        (p.bias < 0 ? p.bias : p.bias_hh) = jj;
      } else if (s == Shape{p.batch, p.hidden} && (p.h0 < 0 || (lstm && p.c0 < 0))) {
        (p.h0 < 0 ? p.h0 : p.c0) = jj;
      } else {
        return c.Error("input " + std::to_string(j) + " " + ShapeToString(s) + " is no weight, bias or state of the cell");
      }
    }
    if (!(p.w >= 0 && p.r >= 0) && p.kernel < 0) return c.Error("the cell has no input and recurrent weights");
    if (NumElements(c.out_shape(0)) != p.batch * p.hidden) return c.Error("the cell's output is not [B, H]");
    return p;
  }
  if (x.size() != 3 || c.num_inputs() < 3) return c.Error("a recurrent layer reads X [T, B, I], W and R");
  const Shape& w = c.in_shape(1);
  const Shape& r = c.in_shape(2);
  p.batch_first = GetIntAttr(op.attrs, "layout", 0) != 0;
  p.steps = p.batch_first ? x[1] : x[0];
  p.batch = p.batch_first ? x[0] : x[1];
  p.in = x[2];
  if (w.size() != 3 || r.size() != 3) return c.Error("W and R must be [D, G*H, I] and [D, G*H, H]");
  p.dirs = w[0];
  p.hidden = GetIntAttr(op.attrs, "hidden_size", r[2]);
  const int64_t gh = p.gates * p.hidden;
  if (w != Shape{p.dirs, gh, p.in} || r != Shape{p.dirs, gh, p.hidden} || p.dirs < 1 || p.dirs > 2) {
    return c.Error("W and R must be [D, G*H, I] and [D, G*H, H] with D 1 or 2");
  }
  p.w = 1;
  p.r = 2;
  p.reverse = p.dirs == 1 && GetStringAttr(op.attrs, "direction", "forward") == "reverse";
  p.linear_before_reset = GetIntAttr(op.attrs, "linear_before_reset", 0) != 0;
  const Shape state = p.batch_first ? Shape{p.batch, p.dirs, p.hidden} : Shape{p.dirs, p.batch, p.hidden};
  for (size_t j = 3; j < c.num_inputs(); ++j) {
    const Shape& s = c.in_shape(j);
    const int jj = static_cast<int>(j);
    if (!IsFloating(c.in_dtype(j))) continue;  // sequence lengths
    if (s == Shape{p.dirs, 2 * gh} && p.bias < 0) {
      p.bias = jj;
    } else if (s == state && (p.h0 < 0 || (lstm && p.c0 < 0))) {
      (p.h0 < 0 ? p.h0 : p.c0) = jj;
    } else if (lstm && s == Shape{p.dirs, 3 * p.hidden} && p.peephole < 0) {
      p.peephole = jj;
    } else {
      return c.Error("input " + std::to_string(j) + " " + ShapeToString(s) + " is no bias, state or peephole of the layer");
    }
  }
  const int64_t all = p.steps * p.dirs * p.batch * p.hidden, last = p.dirs * p.batch * p.hidden;
  for (size_t k = 0; k < c.num_outputs(); ++k) {
    if (NumElements(c.out_shape(k)) != (k == 0 ? all : last)) return c.Error("output " + std::to_string(k) + " does not have the layer's size");
  }
  return p;
}

// One step of direction d; h and cell are updated.
void Step(const RecurrentPlan& p, const at::Tensor& xw, const at::Tensor& rd, const at::Tensor& rb,
          const at::Tensor& peep, at::Tensor& h, at::Tensor& cell) {
  if (p.gates == 1) {
    h = at::tanh(xw + at::matmul(h, rd.t()) + rb);
    return;
  }
  if (p.gates == 4) {
    const std::vector<at::Tensor> g = (xw + at::matmul(h, rd.t()) + rb).chunk(4, 1);
    at::Tensor i = g[0], o = g[1], f = g[2];
    if (peep.defined()) {
      const std::vector<at::Tensor> pp = peep.chunk(3, 0);
      i = i + pp[0] * cell;
      f = f + pp[2] * cell;
    }
    cell = at::sigmoid(f) * cell + at::sigmoid(i) * at::tanh(g[3]);
    if (peep.defined()) o = o + peep.chunk(3, 0)[1] * cell;
    h = at::sigmoid(o) * at::tanh(cell);
    return;
  }
  const std::vector<at::Tensor> xg = xw.chunk(3, 1);
  const std::vector<at::Tensor> rg = rd.chunk(3, 0);
  const std::vector<at::Tensor> bg = rb.chunk(3, 0);
  const at::Tensor z = at::sigmoid(xg[0] + at::matmul(h, rg[0].t()) + bg[0]);
  const at::Tensor r = at::sigmoid(xg[1] + at::matmul(h, rg[1].t()) + bg[1]);
  const at::Tensor n = p.linear_before_reset ? at::tanh(xg[2] + r * (at::matmul(h, rg[2].t()) + bg[2]))
                                             : at::tanh(xg[2] + at::matmul(r * h, rg[2].t()) + bg[2]);
  h = (1 - z) * n + z * h;
}

Tensors LayerForward(const KernelCall& c, const RecurrentPlan& p) {
  const at::Tensor x = p.batch_first ? c.in(0).transpose(0, 1) : c.in(0);  // [T, B, I]
  const int64_t gh = p.gates * p.hidden;
  const at::TensorOptions opt = x.options();
  std::vector<at::Tensor> ys, hs, cs;
  for (int64_t d = 0; d < p.dirs; ++d) {
    const at::Tensor wd = c.in(static_cast<size_t>(p.w)).select(0, d);
    const at::Tensor rd = c.in(static_cast<size_t>(p.r)).select(0, d);
    at::Tensor wb = at::zeros({gh}, opt), rb = at::zeros({gh}, opt);
    if (p.bias >= 0) {
      const at::Tensor b = c.in(static_cast<size_t>(p.bias)).select(0, d);
      wb = b.narrow(0, 0, gh);
      rb = b.narrow(0, gh, gh);
    }
    const at::Tensor peep = p.peephole >= 0 ? c.in(static_cast<size_t>(p.peephole)).select(0, d) : at::Tensor();
    auto initial = [&](int pos) {
      if (pos < 0) return at::zeros({p.batch, p.hidden}, opt);
      return c.in(static_cast<size_t>(pos)).select(p.batch_first ? 1 : 0, d);
    };
    at::Tensor h = initial(p.h0), cell = initial(p.c0);
    const at::Tensor xw = at::matmul(x, wd.t()) + wb;  // the input projection of every step at once
    std::vector<at::Tensor> out(static_cast<size_t>(p.steps));
    const bool backwards = p.reverse || d == 1;
    for (int64_t s = 0; s < p.steps; ++s) {
      const int64_t t = backwards ? p.steps - 1 - s : s;
      Step(p, xw.select(0, t), rd, rb, peep, h, cell);
      out[static_cast<size_t>(t)] = h;
    }
    ys.push_back(p.steps > 0 ? at::stack(out, 0) : at::zeros({0, p.batch, p.hidden}, opt));
    hs.push_back(h);
    cs.push_back(cell);
  }
  at::Tensor y = at::stack(ys, 1);  // [T, D, B, H]
  if (p.batch_first) y = y.permute({2, 0, 1, 3});
  const int64_t state_dim = p.batch_first ? 1 : 0;
  return Tensors{y, at::stack(hs, state_dim), at::stack(cs, state_dim)};
}

Tensors CellForward(const KernelCall& c, const RecurrentPlan& p) {
  const at::Tensor& x = c.in(0);
  const at::TensorOptions opt = x.options();
  const int64_t gh = p.gates * p.hidden;
  const at::Tensor h = p.h0 >= 0 ? c.in(static_cast<size_t>(p.h0)) : at::zeros({p.batch, p.hidden}, opt);
  const at::Tensor cell = p.c0 >= 0 ? c.in(static_cast<size_t>(p.c0)) : at::zeros({p.batch, p.hidden}, opt);
  c10::optional<at::Tensor> b_ih, b_hh;
  if (p.bias >= 0) {
    const at::Tensor b = c.in(static_cast<size_t>(p.bias)).reshape({-1});
    b_ih = b.narrow(0, 0, gh);
    if (b.numel() == 2 * gh) b_hh = b.narrow(0, gh, gh);
  }
  if (p.bias_hh >= 0) b_hh = c.in(static_cast<size_t>(p.bias_hh)).reshape({-1}).narrow(0, 0, gh);
  at::Tensor w_ih, w_hh;
  if (p.kernel >= 0) {
    const at::Tensor k = c.in(static_cast<size_t>(p.kernel));
    w_ih = k.narrow(0, 0, p.in).t();
    w_hh = k.narrow(0, p.in, p.hidden).t();
  } else {
    w_ih = c.in(static_cast<size_t>(p.w));
    w_hh = c.in(static_cast<size_t>(p.r));
  }
  if (p.gates == 4) {
    auto r = at::lstm_cell(x, {h, cell}, w_ih, w_hh, b_ih, b_hh);
    return Tensors{std::get<0>(r), std::get<1>(r)};
  }
  return Tensors{at::gru_cell(x, h, w_ih, w_hh, b_ih, b_hh)};
}

}  // namespace

StatusOr<Tensors> RecurrentForward(const KernelCall& c) {
  GO_ASSIGN_OR_RETURN(RecurrentPlan p, PlanRecurrent(c));
  if (c.op().kind == OpKind::kGRUCell && c.num_outputs() > 1) return c.Error("a GRU cell has one output");
  if (c.dry()) return Tensors{};
  return p.cell ? CellForward(c, p) : LayerForward(c, p);
}

StatusOr<at::Tensor> AutogradGradient(const Graph& graph, OpId fwd, const Tensors& fwd_inputs, const Tensors& out_grads,
                                      size_t input) {
  at::AutoGradMode enable(true);
  Tensors ins;
  ins.reserve(fwd_inputs.size());
  for (const at::Tensor& t : fwd_inputs) ins.push_back(t.detach());
  at::Tensor& x = ins[input];
  if (!IsFloatingType(x.scalar_type())) return at::zeros_like(x);
  x.requires_grad_(true);
  const KernelCall call{&graph, fwd, &ins, nullptr};
  GO_ASSIGN_OR_RETURN(Tensors outs, RunForward(call));
  std::vector<at::Tensor> ys, gs;
  for (size_t k = 0; k < outs.size() && k < out_grads.size(); ++k) {
    if (!out_grads[k].defined() || !outs[k].requires_grad()) continue;
    ys.push_back(outs[k]);
    gs.push_back(out_grads[k].to(outs[k].scalar_type()).reshape(outs[k].sizes()));
  }
  if (ys.empty()) return at::zeros_like(x).detach();
  const std::vector<at::Tensor> grads = torch::autograd::grad(ys, {x}, gs, /*retain_graph=*/false,
                                                              /*create_graph=*/false, /*allow_unused=*/true);
  return grads[0].defined() ? grads[0].detach() : at::zeros_like(x).detach();
}

}  // namespace exec_kernels
}  // namespace graphopt
