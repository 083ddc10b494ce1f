// The kernels' entry points: source data, dispatch by phase and kind, the optimizer
// updates, the dry run of CheckKernels, and the helpers all kernel files share.
#include "exec/kernels.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "exec/kernels_impl.h"

namespace graphopt {
namespace exec_kernels {

std::string DescribeOp(const Graph& graph, OpId id) {
  const Op& op = graph.op(id);
  std::string s = "op '" + op.name + "' (" + OpKindName(op.kind);
  if (op.phase != Phase::kForward) s += std::string(" ") + PhaseName(op.phase);
  s += ", inputs ";
  for (size_t i = 0; i < op.inputs.size(); ++i) s += (i ? ", " : "") + ShapeToString(graph.tensor(op.inputs[i]).shape);
  if (op.inputs.empty()) s += "none";
  s += " -> outputs ";
  for (size_t i = 0; i < op.outputs.size(); ++i) s += (i ? ", " : "") + ShapeToString(graph.tensor(op.outputs[i]).shape);
  if (op.outputs.empty()) s += "none";
  return s + ")";
}

Status KernelCall::Error(const std::string& what) const { return InvalidArgument(DescribeOp(*graph, id) + ": " + what); }

int ParseGradInputIndex(const std::string& name) {
  const size_t at = name.rfind("/in");
  if (at == std::string::npos) return -1;
  size_t i = at + 3;
  const size_t digits = i;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  if (i == digits || i - digits > 6) return -1;
  const int index = std::stoi(name.substr(digits, i - digits));
  if (i == name.size()) return index;
  if (name[i] != '_') return -1;  // "/in3_2": a renamed duplicate
  for (size_t k = i + 1; k < name.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(name[k]))) return -1;
  }
  return i + 1 < name.size() ? index : -1;
}

bool IsGradientOp(const Op& op) {
  if (op.phase != Phase::kBackward) return false;
  return op.attrs.count("grad_input") != 0 || ParseGradInputIndex(op.name) >= 0;
}

StatusOr<at::Tensor> FitOutput(const KernelCall& call, size_t i, const at::Tensor& t) {
  const Shape& shape = call.out_shape(i);
  const at::ScalarType type = ToScalarType(call.out_dtype(i));
  if (!t.defined()) return call.Error("output " + std::to_string(i) + " was not computed");
  if (t.numel() != NumElements(shape)) {
    return call.Error("output " + std::to_string(i) + " has " + std::to_string(t.numel()) + " elements " +
                      ShapeToString(Shape(t.sizes().begin(), t.sizes().end())) + ", the graph's " +
                      ShapeToString(shape));
  }
  at::Tensor out = t;
  if (!std::equal(out.sizes().begin(), out.sizes().end(), shape.begin(), shape.end())) out = out.reshape(shape);
  if (out.scalar_type() != type) out = out.to(type);
  return out.contiguous();
}

StatusOr<Tensors> FitOutputs(const KernelCall& call, const Tensors& outs) {
  if (outs.size() < call.num_outputs()) {
    return call.Error("the kernel made " + std::to_string(outs.size()) + " outputs, the op has " +
                      std::to_string(call.num_outputs()));
  }
  Tensors fitted;
  fitted.reserve(call.num_outputs());
  for (size_t i = 0; i < call.num_outputs(); ++i) {
    GO_ASSIGN_OR_RETURN(at::Tensor t, FitOutput(call, i, outs[i]));
    fitted.push_back(std::move(t));
  }
  return fitted;
}

at::Tensor SumToShape(const at::Tensor& g, const Shape& shape) {
  at::Tensor r = g;
  const int64_t lead = r.dim() - static_cast<int64_t>(shape.size());
  if (lead > 0) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
    r = r.sum(dims);
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < r.dim(); ++d) {
    if (shape[static_cast<size_t>(d)] == 1 && r.size(d) != 1) dims.push_back(d);
  }
  if (!dims.empty()) r = r.sum(dims, /*keepdim=*/true);
  if (NumElements(shape) == r.numel()) return r.reshape(shape);
  return r;  // the caller's FitOutput reports the mismatch
}

std::vector<int64_t> AtenPads(const std::vector<int64_t>& begin, const std::vector<int64_t>& end) {
  std::vector<int64_t> pads;
  for (size_t d = begin.size(); d-- > 0;) {
    pads.push_back(begin[d]);
    pads.push_back(end[d]);
  }
  return pads;
}

std::vector<int64_t> Negated(std::vector<int64_t> v) {
  for (int64_t& x : v) x = -x;
  return v;
}

bool IsFloatingType(at::ScalarType t) { return at::isFloatingType(t); }

namespace {
// SplitMix64: mixes a seed and an id into a well-spread generator seed.
uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ULL + b + 0x632be59bd9b4e019ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

at::Generator OpGenerator(OpId op, uint64_t salt) {
  return at::make_generator<at::CPUGeneratorImpl>(Mix(salt, static_cast<uint64_t>(op)));
}

double DropoutRate(const Op& op) {
  double rate = GetFloatAttr(op.attrs, "rate", GetFloatAttr(op.attrs, "ratio", 0.1));
  if (!(rate >= 0.0 && rate < 1.0)) rate = 0.1;
  return rate;
}

at::Tensor DropoutMask(OpId op, const Shape& shape, double rate) {
  at::Generator gen = OpGenerator(op, 0xd50);
  at::Tensor u = at::empty(shape, at::TensorOptions().dtype(at::kFloat));
  u.uniform_(0.0, 1.0, gen);
  return u.ge(rate).to(at::kFloat);
}

Tensors SurrogateForward(const KernelCall& call) {
  at::Tensor base;
  at::Tensor shift = at::zeros({}, at::kFloat);
  for (size_t i = 0; i < call.num_inputs(); ++i) {
    const at::Tensor& x = call.in(i);
    if (!IsFloatingType(x.scalar_type()) || x.numel() == 0) continue;
    const at::Tensor xf = x.to(at::kFloat);
    if (!base.defined()) base = xf.flatten();
    shift = shift + 1e-3 * xf.mean();
  }
  Tensors outs;
  for (size_t k = 0; k < call.num_outputs(); ++k) {
    const Shape& shape = call.out_shape(k);
    const int64_t n = NumElements(shape);
    const at::ScalarType type = ToScalarType(call.out_dtype(k));
    if (!IsFloatingType(type) || !base.defined()) {
      outs.push_back(at::zeros(shape, at::TensorOptions().dtype(type)));
      continue;
    }
    at::Tensor v = base;
    if (v.numel() < n) v = v.repeat({(n + v.numel() - 1) / v.numel()});
    v = v.narrow(0, 0, n) * 0.5 + shift;
    outs.push_back(v.reshape(shape));
  }
  return outs;
}

namespace {

// ---- Source data -----------------------------------------------------------------

// Ops that pass an integer tensor's values on unchanged (followed to find its uses).
bool PassesValues(const Op& op) {
  switch (op.kind) {
    case OpKind::kReshape:
    case OpKind::kIdentity:
    case OpKind::kStopGradient:
    case OpKind::kCast:
    case OpKind::kConcat:
    case OpKind::kSplit:
    case OpKind::kSlice:
    case OpKind::kTranspose:
      return true;
    case OpKind::kExpand:
      return OnnxType(op).empty() || OnnxType(op) == "Tile";
    default:
      return false;
  }
}

// The range [0, bound) an integer tensor's consumers index with it (the smallest);
// 0 if none constrains it.
int64_t ConsumerBound(const Graph& g, const Op& c, size_t slot) {
  auto shape = [&](size_t i) -> const Shape& { return g.tensor(c.inputs[i]).shape; };
  auto out = [&](size_t i) -> const Shape& { return g.tensor(c.outputs[i]).shape; };
  if (c.inputs.empty() || c.outputs.empty()) return 0;
  switch (c.kind) {
    case OpKind::kGather: {
      if (slot != 1 || c.inputs.size() < 2) return 0;
      StatusOr<GatherPlan> p = PlanGather(c, shape(0), shape(1), out(0));
      if (!p.ok() || p->mode == GatherPlan::kCompress) return 0;
      if (p->mode == GatherPlan::kNd) {
        int64_t m = 0;
        for (size_t d = 0; d < shape(0).size() && d < static_cast<size_t>(shape(1).back()); ++d) {
          m = m == 0 ? shape(0)[d] : std::min(m, shape(0)[d]);
        }
        return m;
      }
      return shape(0)[static_cast<size_t>(p->axis)];
    }
    case OpKind::kSoftmaxCrossEntropy: {
      if (slot != 1 || c.inputs.size() < 2) return 0;
      StatusOr<CrossEntropyPlan> p = PlanCrossEntropy(c, shape(0), shape(1), out(0));
      if (!p.ok() || p->soft_labels) return 0;
      return shape(0)[static_cast<size_t>(p->class_axis)];
    }
    case OpKind::kCompare:
      if (c.attrs.count("maxlen")) return GetIntAttr(c.attrs, "maxlen", 1) + 1;
      return 0;
    case OpKind::kScatterAdd: {
      if (slot != 1) return 0;
      const int64_t axis = NormalizeAxis(GetIntAttr(c.attrs, "axis", 0), shape(0).size());
      return axis < 0 ? 0 : shape(0)[static_cast<size_t>(axis)];
    }
    case OpKind::kExpand:
      if (OnnxType(c) == "OneHot" && slot == 0) {
        const int64_t axis = NormalizeAxis(GetIntAttr(c.attrs, "axis", -1), out(0).size());
        return axis < 0 ? 0 : out(0)[static_cast<size_t>(axis)];
      }
      return 0;
    default:
      return 0;
  }
}

// Calls visit(op, slot) for every use of t's values: its consumers, and theirs through
// ops that pass values on unchanged.
template <typename Visit>
void ForEachUse(const Graph& g, TensorId t, Visit visit) {
  std::set<TensorId> seen{t};
  std::vector<TensorId> todo{t};
  while (!todo.empty() && seen.size() < 256) {
    const TensorId cur = todo.back();
    todo.pop_back();
    for (OpId c : g.tensor(cur).consumers) {
      const Op& op = g.op(c);
      for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
        if (op.inputs[slot] == cur) visit(op, slot);
      }
      if (!PassesValues(op)) continue;
      for (TensorId o : op.outputs) {
        if (seen.insert(o).second) todo.push_back(o);
      }
    }
  }
}

int64_t IntegerBound(const Graph& g, TensorId t) {
  int64_t bound = 0;
  ForEachUse(g, t, [&](const Op& op, size_t slot) {
    const int64_t b = ConsumerBound(g, op, slot);
    if (b > 0) bound = bound == 0 ? b : std::min(bound, b);
  });
  return bound > 0 ? bound : 2;
}

// True if t's values are some Pow's exponent.
bool IsExponent(const Graph& g, TensorId t) {
  bool exponent = false;
  ForEachUse(g, t, [&](const Op& op, size_t slot) { exponent |= op.kind == OpKind::kPow && slot == 1; });
  return exponent;
}

// The standard deviation of a parameter: 1/sqrt(fan-in) for the weights of
// contractions and recurrences, 0.1 for everything else.
double ParameterStd(const Graph& g, TensorId t) {
  const Shape& s = g.tensor(t).shape;
  for (OpId c : g.tensor(t).consumers) {
    const Op& op = g.op(c);
    for (size_t slot = 0; slot < op.inputs.size(); ++slot) {
      if (op.inputs[slot] != t) continue;
      int64_t fan_in = 0;
      switch (op.kind) {
        case OpKind::kConv:
          if (slot == 1 && s.size() >= 2) fan_in = NumElements(Shape(s.begin() + 1, s.end()));
          break;
        case OpKind::kConvTranspose:
          if (slot == 1 && s.size() >= 2) fan_in = s[0] * NumElements(Shape(s.begin() + 2, s.end()));
          break;
        case OpKind::kMatMul:
        case OpKind::kBatchMatMul:
        case OpKind::kGemm: {
          if (slot > 1 || s.empty()) break;
          const bool gemm = op.kind == OpKind::kGemm;
          const bool tr = GetIntAttr(op.attrs, slot == 0 ? (gemm ? "transA" : "transpose_a") : (gemm ? "transB" : "transpose_b"), 0) != 0;
          if (s.size() == 1) {
            fan_in = s[0];
          } else if (slot == 0) {
            fan_in = tr ? s[s.size() - 2] : s.back();
          } else {
            fan_in = tr ? s.back() : s[s.size() - 2];
          }
          break;
        }
        case OpKind::kLSTM:
        case OpKind::kGRU:
        case OpKind::kRNN:
        case OpKind::kLSTMCell:
        case OpKind::kGRUCell:
          if (s.size() >= 2) fan_in = s.back();
          break;
        default:
          break;
      }
      if (fan_in > 0) return 1.0 / std::sqrt(static_cast<double>(fan_in));
    }
  }
  return 0.1;
}

// True if t is the scale of a norm (initialized near one, as frameworks do).
bool IsNormScale(const Graph& g, TensorId t) {
  for (OpId c : g.tensor(t).consumers) {
    const Op& op = g.op(c);
    if ((op.kind == OpKind::kLayerNorm || op.kind == OpKind::kBatchNorm) && op.inputs.size() >= 2 && op.inputs[1] == t) {
      return true;
    }
  }
  return false;
}

// ---- Updates -----------------------------------------------------------------------

constexpr double kLearningRate = 0.01;
constexpr double kMomentum = 0.9;
constexpr double kAdamBeta1 = 0.9, kAdamBeta2 = 0.999, kAdamEpsilon = 1e-8;

StatusOr<Tensors> ApplyGradient(const KernelCall& c) {
  const Op& op = c.op();
  auto training = c.graph->metadata().find("training");
  const std::string fallback = training == c.graph->metadata().end() ? "sgd" : training->second;
  const std::string optimizer = GetStringAttr(op.attrs, "optimizer", fallback);
  if (optimizer != "sgd" && optimizer != "momentum" && optimizer != "adam") {
    return c.Error("unknown optimizer '" + optimizer + "' (expected sgd, momentum or adam)");
  }
  if (c.num_inputs() < 2) return c.Error("an update reads its parameter and its gradient");
  if (NumElements(c.in_shape(0)) != NumElements(c.in_shape(1))) {
    return c.Error("the gradient's size differs from the parameter's");
  }
  if (c.dry()) return Tensors{};
  at::Tensor p = c.in(0);
  if (!IsFloatingType(p.scalar_type())) return Tensors{};
  at::NoGradGuard no_grad;
  KernelState local;
  KernelState* st = c.state != nullptr ? c.state : &local;
  const double lr = GetFloatAttr(op.attrs, "learning_rate", kLearningRate);
  const at::Tensor g = c.in(1).reshape(p.sizes()).to(p.scalar_type());
  ++st->steps;
  if (optimizer == "sgd") {
    p.add_(g, -lr);
  } else if (optimizer == "momentum") {
    if (st->tensors.empty()) st->tensors = {at::zeros_like(p)};
    at::Tensor& buf = st->tensors[0];
    buf.mul_(kMomentum).add_(g);
    p.add_(buf, -lr);
  } else {
    if (st->tensors.size() < 2) st->tensors = {at::zeros_like(p), at::zeros_like(p)};
    at::Tensor& m = st->tensors[0];
    at::Tensor& v = st->tensors[1];
    m.mul_(kAdamBeta1).add_(g, 1.0 - kAdamBeta1);
    v.mul_(kAdamBeta2).addcmul_(g, g, 1.0 - kAdamBeta2);
    const double t = static_cast<double>(st->steps);
    const double bc1 = 1.0 - std::pow(kAdamBeta1, t), bc2 = 1.0 - std::pow(kAdamBeta2, t);
    const at::Tensor denom = (v / bc2).sqrt_().add_(kAdamEpsilon);
    p.addcdiv_(m, denom, -lr / bc1);
  }
  return Tensors{};
}

StatusOr<Tensors> Dispatch(const KernelCall& c) {
  const Op& op = c.op();
  if (CategoryOf(op.kind) == OpCategory::kSource) {
    return c.Error("a source op has no kernel: its data comes from MakeSourceTensor");
  }
  if (op.kind == OpKind::kApplyGradient) return ApplyGradient(c);
  if (IsGradientOp(op)) return RunGradient(c);
  return RunForward(c);
}

StatusOr<Tensors> Guarded(const KernelCall& c) {
  try {
    return Dispatch(c);
  } catch (const c10::Error& e) {
    return c.Error(std::string("ATen failed: ") + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return c.Error(std::string("failed: ") + e.what());
  }
}

}  // namespace
}  // namespace exec_kernels

using exec_kernels::KernelCall;
using exec_kernels::Tensors;

at::ScalarType ToScalarType(DType dtype) {
  switch (dtype) {
    case DType::kF32: return at::kFloat;
    case DType::kF16: return at::kHalf;
    case DType::kBF16: return at::kBFloat16;
    case DType::kF64: return at::kDouble;
    case DType::kI64: return at::kLong;
    case DType::kI32: return at::kInt;
    case DType::kI16: return at::kShort;
    case DType::kI8: return at::kChar;
    case DType::kU8: return at::kByte;
    case DType::kBool: return at::kBool;
  }
  return at::kFloat;
}

StatusOr<at::Tensor> MakeSourceTensor(const Graph& graph, TensorId tensor, uint64_t seed) {
  if (tensor < 0 || tensor >= graph.num_tensors()) {
    return InvalidArgument("MakeSourceTensor: tensor id " + std::to_string(tensor) + " is out of range");
  }
  const Tensor& t = graph.tensor(tensor);
  if (t.producer == kNoId || CategoryOf(graph.op(t.producer).kind) != OpCategory::kSource) {
    return InvalidArgument("MakeSourceTensor: tensor '" + t.name + "' is not the output of an Input, Variable or Constant op");
  }
  const Op& op = graph.op(t.producer);
  const at::ScalarType type = ToScalarType(t.dtype);
  const at::TensorOptions options = at::TensorOptions().dtype(type);
  try {
    // A constant's own value, where the graph keeps one.
    if (op.kind == OpKind::kConstant) {
      for (const char* key : {"value", "value_float", "value_int"}) {
        auto it = op.attrs.find(key);
        if (it == op.attrs.end()) continue;
        if (const double* d = std::get_if<double>(&it->second)) return at::full(t.shape, *d, options);
        if (const int64_t* i = std::get_if<int64_t>(&it->second)) return at::full(t.shape, *i, options);
      }
      const std::vector<int64_t> ints = GetIntsAttr(op.attrs, "value_ints");
      if (!ints.empty() && static_cast<int64_t>(ints.size()) == NumElements(t.shape)) {
        return at::tensor(ints, at::TensorOptions().dtype(at::kLong)).reshape(t.shape).to(type);
      }
    }
    at::Generator gen = at::make_generator<at::CPUGeneratorImpl>(
        exec_kernels::Mix(seed, static_cast<uint64_t>(tensor) + 0x5eed));
    if (type == at::kBool) {
      return at::randint(0, 2, t.shape, gen, at::TensorOptions().dtype(at::kLong)).to(at::kBool);
    }
    if (!at::isFloatingType(type)) {
      int64_t bound = exec_kernels::IntegerBound(graph, tensor);
      if (type == at::kChar) bound = std::min<int64_t>(bound, 127);
      if (type == at::kByte) bound = std::min<int64_t>(bound, 255);
      if (type == at::kShort) bound = std::min<int64_t>(bound, 32767);
      return at::randint(0, std::max<int64_t>(bound, 1), t.shape, gen, at::TensorOptions().dtype(at::kLong)).to(type);
    }
    if (NumElements(t.shape) == 1) {
      // A single number is a hyperparameter more often than not (an epsilon, a scale, a
      // divisor, an exponent in ONNX graphs, whose values the graph does not keep):
      // positive, and 2 as an exponent, so that sqrt(var + eps), x / d and x^e stay finite.
      if (exec_kernels::IsExponent(graph, tensor)) return at::full(t.shape, 2.0, options);
      at::Tensor u = at::empty(t.shape, at::TensorOptions().dtype(at::kFloat));
      u.uniform_(0.5, 1.5, gen);
      return u.to(type);
    }
    const bool parameter = op.kind == OpKind::kVariable;
    const double std = parameter ? exec_kernels::ParameterStd(graph, tensor) : 0.1;
    at::Tensor x = at::randn(t.shape, gen, at::TensorOptions().dtype(at::kFloat)) * std;
    if (parameter && exec_kernels::IsNormScale(graph, tensor)) x = x + 1.0;
    return x.to(type).contiguous();
  } catch (const c10::Error& e) {
    return InvalidArgument("MakeSourceTensor: tensor '" + t.name + "': ATen failed: " + e.what_without_backtrace());
  }
}

StatusOr<std::vector<at::Tensor>> RunKernel(const Graph& graph, OpId op, const std::vector<at::Tensor>& inputs,
                                            KernelState* state) {
  if (op < 0 || op >= graph.num_ops()) return InvalidArgument("RunKernel: op id " + std::to_string(op) + " is out of range");
  KernelCall call{&graph, op, &inputs, state};
  const Op& o = graph.op(op);
  if (inputs.size() != o.inputs.size()) {
    return call.Error("given " + std::to_string(inputs.size()) + " input tensors, the op has " +
                      std::to_string(o.inputs.size()));
  }
  // Half precision runs in float on the CPU (ATen's CPU kernels lack most f16 ones);
  // the outputs are cast back to the graph's dtypes.
  Tensors widened;
  const bool has_half =
      o.kind != OpKind::kApplyGradient &&
      std::any_of(inputs.begin(), inputs.end(), [](const at::Tensor& t) { return t.defined() && t.scalar_type() == at::kHalf; });
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) return call.Error("input " + std::to_string(i) + " is not given");
    if (inputs[i].numel() != graph.tensor(o.inputs[i]).num_elements()) {
      return call.Error("input " + std::to_string(i) + " has " + std::to_string(inputs[i].numel()) +
                        " elements, the graph's tensor " + std::to_string(graph.tensor(o.inputs[i]).num_elements()));
    }
  }
  if (has_half) {
    for (const at::Tensor& t : inputs) widened.push_back(t.scalar_type() == at::kHalf ? t.to(at::kFloat) : t);
    call.inputs = &widened;
  }
  return exec_kernels::Guarded(call);
}

Status CheckKernels(const Graph& graph) {
  constexpr int kMaxListed = 5;
  std::vector<std::string> problems;
  int failed = 0;
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    if (CategoryOf(graph.op(o).kind) == OpCategory::kSource) continue;
    const KernelCall call{&graph, o, nullptr, nullptr};
    StatusOr<Tensors> r = exec_kernels::Guarded(call);
    if (r.ok()) continue;
    if (++failed <= kMaxListed) problems.push_back(r.status().message());
  }
  if (failed == 0) return Status::Ok();
  std::string msg = "graph '" + graph.name() + "': " + std::to_string(failed) + " op(s) have no kernel that gives their shapes:";
  for (const std::string& p : problems) msg += "\n  " + p;
  if (failed > kMaxListed) msg += "\n  ... and " + std::to_string(failed - kMaxListed) + " more";
  return InvalidArgument(msg);
}

}  // namespace graphopt
