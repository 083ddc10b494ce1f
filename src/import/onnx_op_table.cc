#include "import/onnx_op_table.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "graph/cost.h"

namespace graphopt {
namespace onnx_import {
namespace {

double OutElements(const Graph& g, const Op& op) {
  return op.outputs.empty() ? 0.0 : static_cast<double>(g.tensor(op.outputs[0]).num_elements());
}

// Einsum: the loop nest of the contraction visits every combination of index letters.
void EinsumCost(const Graph& g, const Op& op, OpCost* cost) {
  std::string eq = GetStringAttr(op.attrs, "equation", "");
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const std::string lhs = eq.substr(0, eq.find("->"));
  std::vector<std::string> terms;
  size_t from = 0;
  for (;;) {
    const size_t comma = lhs.find(',', from);
    terms.push_back(lhs.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (op.inputs.size() < 2 || terms.size() != op.inputs.size()) {
    cost->macs = 0;
    cost->flops = op.inputs.empty() ? 0.0 : static_cast<double>(g.tensor(op.inputs[0]).num_elements());
    return;
  }
  std::map<char, int64_t> sizes;
  std::vector<int64_t> ellipsis;  // broadcast sizes of the "..." dimensions, right-aligned
  for (size_t k = 0; k < terms.size(); ++k) {
    const Shape& s = g.tensor(op.inputs[k]).shape;
    std::string term = terms[k];
    const size_t dots = term.find("...");
    size_t letters = term.size() - (dots == std::string::npos ? 0 : 3);
    const int64_t ell = dots == std::string::npos ? 0 : static_cast<int64_t>(s.size()) - static_cast<int64_t>(letters);
    size_t axis = 0;
    for (size_t i = 0; i < term.size(); ++i) {
      if (dots != std::string::npos && i == dots) {
        for (int64_t e = 0; e < ell; ++e) {
          const size_t from_right = static_cast<size_t>(ell - 1 - e);
          if (ellipsis.size() <= from_right) ellipsis.resize(from_right + 1, 1);
          if (axis < s.size()) ellipsis[from_right] = std::max(ellipsis[from_right], s[axis]);
          ++axis;
        }
        i += 2;
        continue;
      }
      if (axis < s.size()) sizes[term[i]] = std::max(sizes[term[i]], s[axis]);
      ++axis;
    }
  }
  double macs = 1;
  for (const auto& [letter, size] : sizes) macs *= static_cast<double>(size);
  for (int64_t e : ellipsis) macs *= static_cast<double>(e);
  cost->macs = macs;
  cost->flops = 2.0 * macs;
}

void TopKCost(const Graph& g, const Op& op, OpCost* cost) {
  if (op.inputs.empty() || op.outputs.empty()) return;
  const Shape& in = g.tensor(op.inputs[0]).shape;
  const Shape& out = g.tensor(op.outputs[0]).shape;
  int64_t axis = GetIntAttr(op.attrs, "axis", -1);
  if (axis < 0) axis += static_cast<int64_t>(in.size());
  const int64_t k = axis >= 0 && axis < static_cast<int64_t>(out.size()) ? out[static_cast<size_t>(axis)] : 1;
  cost->flops = static_cast<double>(NumElements(in)) * std::ceil(std::log2(static_cast<double>(k) + 1));
}

void ResizeCost(const Graph& g, const Op& op, OpCost* cost) {
  if (op.inputs.empty() || op.outputs.empty()) return;
  const Shape& in = g.tensor(op.inputs[0]).shape;
  const Shape& out = g.tensor(op.outputs[0]).shape;
  int resized = 0;
  for (size_t i = 0; i < in.size() && i < out.size(); ++i) resized += in[i] != out[i];
  const std::string mode = GetStringAttr(op.attrs, "mode", "nearest");
  const double per = mode == "linear" || mode == "bilinear"   ? 2.0 * std::pow(2.0, resized)
                     : mode == "cubic" || mode == "bicubic" ? 2.0 * std::pow(4.0, resized)
                                                            : 0.0;
  cost->flops = OutElements(g, op) * per;
  // Reads the data (scales, sizes and ROI are a few elements).
  cost->bytes_read = g.tensor(op.inputs[0]).bytes();
}

// Ops that create a tensor from their attributes and shape inputs.
void FillCost(const Graph& g, const Op& op, OpCost* cost) {
  cost->bytes_read = 0;
  const std::string type = GetStringAttr(op.attrs, "op_type", "");
  cost->flops = type == "Range" ? OutElements(g, op) : 0.0;
}

const std::unordered_map<std::string, OnnxOpEntry>& Table() {
  using K = OpKind;
  static const auto* table = new std::unordered_map<std::string, OnnxOpEntry>{
      // Contractions and recurrences.
      {"Conv", {K::kConv}},
      {"ConvTranspose", {K::kConvTranspose}},
      {"MatMul", {K::kMatMul}},
      {"Gemm", {K::kGemm}},
      {"Einsum", {K::kBatchMatMul, -1, EinsumCost}},
      {"LSTM", {K::kLSTM}},
      {"GRU", {K::kGRU}},
      {"RNN", {K::kRNN}},
      // Elementwise.
      {"Add", {K::kAdd}},
      {"Sub", {K::kSub}},
      {"Mul", {K::kMul}},
      {"Div", {K::kDiv}},
      {"Mod", {K::kDiv, 3}},
      {"Pow", {K::kPow}},
      {"Max", {K::kMax}},
      {"Min", {K::kMin}},
      {"Sum", {K::kAddN}},
      {"Mean", {K::kAddN}},
      {"Neg", {K::kNeg}},
      {"Abs", {K::kAbs}},
      {"Sign", {K::kAbs, 1}},
      {"Floor", {K::kAbs, 1}},
      {"Ceil", {K::kAbs, 1}},
      {"Round", {K::kAbs, 1}},
      {"Relu", {K::kRelu}},
      {"LeakyRelu", {K::kLeakyRelu}},
      {"PRelu", {K::kLeakyRelu}},
      {"ThresholdedRelu", {K::kRelu, 1}},
      {"Elu", {K::kLeakyRelu, 3}},
      {"Selu", {K::kLeakyRelu, 4}},
      {"Celu", {K::kLeakyRelu, 4}},
      {"Sigmoid", {K::kSigmoid}},
      {"HardSigmoid", {K::kSigmoid, 4}},
      {"HardSwish", {K::kSigmoid, 5}},
      {"Softplus", {K::kSigmoid, 3}},
      {"Softsign", {K::kSigmoid, 3}},
      {"Mish", {K::kGelu, 8}},
      {"Tanh", {K::kTanh}},
      {"Sin", {K::kTanh, 4}},
      {"Cos", {K::kTanh, 4}},
      {"Tan", {K::kTanh, 4}},
      {"Gelu", {K::kGelu}},
      {"Erf", {K::kErf}},
      {"Exp", {K::kExp}},
      {"Log", {K::kLog}},
      {"Sqrt", {K::kSqrt}},
      {"Reciprocal", {K::kReciprocal}},
      {"Clip", {K::kClip}},
      {"Where", {K::kWhere}},
      {"Trilu", {K::kWhere, 1}},
      {"Equal", {K::kCompare}},
      {"Less", {K::kCompare}},
      {"LessOrEqual", {K::kCompare}},
      {"Greater", {K::kCompare}},
      {"GreaterOrEqual", {K::kCompare}},
      {"And", {K::kCompare}},
      {"Or", {K::kCompare}},
      {"Xor", {K::kCompare}},
      {"BitwiseAnd", {K::kCompare}},
      {"BitwiseOr", {K::kCompare}},
      {"BitwiseXor", {K::kCompare}},
      {"IsNaN", {K::kCompare, 1}},
      {"IsInf", {K::kCompare, 1}},
      {"Not", {K::kNot}},
      {"BitwiseNot", {K::kNot}},
      {"Cast", {K::kCast}},
      {"CastLike", {K::kCast}},
      {"QuantizeLinear", {K::kCast, 2}},
      {"DequantizeLinear", {K::kCast, 2}},
      {"Dropout", {K::kDropout}},
      // Reductions and norms.
      {"ReduceSum", {K::kReduceSum}},
      {"ReduceSumSquare", {K::kReduceSum}},
      {"ReduceProd", {K::kReduceSum}},
      {"ReduceL1", {K::kReduceSum}},
      {"ReduceL2", {K::kReduceSum}},
      {"ReduceLogSum", {K::kReduceSum}},
      {"ReduceLogSumExp", {K::kReduceSum}},
      {"CumSum", {K::kReduceSum}},
      {"NonZero", {K::kReduceSum}},
      {"ReduceMean", {K::kReduceMean}},
      {"ReduceMax", {K::kReduceMax}},
      {"ReduceMin", {K::kReduceMax}},
      {"ArgMax", {K::kReduceMax}},
      {"ArgMin", {K::kReduceMax}},
      {"Hardmax", {K::kReduceMax}},
      {"TopK", {K::kReduceMax, -1, TopKCost}},
      {"Softmax", {K::kSoftmax}},
      {"LogSoftmax", {K::kLogSoftmax}},
      {"LayerNormalization", {K::kLayerNorm}},
      {"InstanceNormalization", {K::kLayerNorm}},
      {"GroupNormalization", {K::kLayerNorm}},
      {"MeanVarianceNormalization", {K::kLayerNorm}},
      {"LpNormalization", {K::kLayerNorm}},
      {"LRN", {K::kLayerNorm}},
      {"BatchNormalization", {K::kBatchNorm}},
      {"SoftmaxCrossEntropyLoss", {K::kSoftmaxCrossEntropy}},
      {"NegativeLogLikelihoodLoss", {K::kSoftmaxCrossEntropy}},
      // Pooling.
      {"MaxPool", {K::kMaxPool}},
      {"AveragePool", {K::kAvgPool}},
      {"LpPool", {K::kAvgPool}},
      {"GlobalAveragePool", {K::kGlobalAvgPool}},
      {"GlobalMaxPool", {K::kGlobalAvgPool}},
      {"GlobalLpPool", {K::kGlobalAvgPool}},
      // Data movement.
      {"Concat", {K::kConcat}},
      {"Split", {K::kSplit}},
      {"Slice", {K::kSlice}},
      {"Gather", {K::kGather}},
      {"GatherElements", {K::kGather}},
      {"GatherND", {K::kGather}},
      {"Compress", {K::kGather}},
      {"Transpose", {K::kTranspose}},
      {"DepthToSpace", {K::kTranspose}},
      {"SpaceToDepth", {K::kTranspose}},
      {"ReverseSequence", {K::kTranspose}},
      {"Pad", {K::kPad}},
      {"Expand", {K::kExpand}},
      {"Tile", {K::kExpand}},
      {"Resize", {K::kExpand, -1, ResizeCost}},
      {"Upsample", {K::kExpand, -1, ResizeCost}},
      {"ConstantOfShape", {K::kExpand, -1, FillCost}},
      {"Range", {K::kExpand, -1, FillCost}},
      {"OneHot", {K::kExpand, -1, FillCost}},
      {"RandomNormal", {K::kExpand, -1, FillCost}},
      {"RandomUniform", {K::kExpand, -1, FillCost}},
      {"RandomNormalLike", {K::kExpand, -1, FillCost}},
      {"RandomUniformLike", {K::kExpand, -1, FillCost}},
      {"Bernoulli", {K::kDropout}},
      {"ScatterND", {K::kScatterAdd}},
      {"ScatterElements", {K::kScatterAdd}},
      {"Scatter", {K::kScatterAdd}},
      // Views and metadata.
      {"Reshape", {K::kReshape}},
      {"Flatten", {K::kReshape}},
      {"Squeeze", {K::kReshape}},
      {"Unsqueeze", {K::kReshape}},
      {"Identity", {K::kIdentity}},
      {"Shape", {K::kShape}},
      {"Size", {K::kShape}},
      {"Constant", {K::kConstant}},
      // Control flow: one op whose subgraph's reads are its inputs (see the importer).
      {"If", {K::kGeneric}},
  };
  return *table;
}

}  // namespace

std::optional<EinsumMatMul> EinsumAsMatMul(const std::string& equation) {
  std::string eq;
  for (size_t i = 0; i < equation.size(); ++i) {
    if (equation[i] == ' ') continue;
    if (equation.compare(i, 3, "...") == 0) {
      eq += '.';  // the broadcast dimensions: one batch "letter"
      i += 2;
      continue;
    }
    eq += equation[i];
  }
  const size_t arrow = eq.find("->"), comma = eq.find(',');
  if (arrow == std::string::npos || comma == std::string::npos || comma > arrow) return std::nullopt;
  const std::string a = eq.substr(0, comma), b = eq.substr(comma + 1, arrow - comma - 1), o = eq.substr(arrow + 2);
  if (a.size() < 2 || a.size() != b.size() || a.size() != o.size() || b.find(',') != std::string::npos) return std::nullopt;
  const size_t n = a.size();
  const std::string batch = o.substr(0, n - 2);
  if (a.substr(0, n - 2) != batch || b.substr(0, n - 2) != batch) return std::nullopt;
  const char i = o[n - 2], k = o[n - 1];
  // The contracted letter: the one of a's last two that is not i.
  EinsumMatMul m;
  char j = 0;
  if (a[n - 2] == i) {
    j = a[n - 1];
  } else if (a[n - 1] == i) {
    j = a[n - 2];
    m.transpose_a = true;
  } else {
    return std::nullopt;
  }
  if (b[n - 2] == j && b[n - 1] == k) {
    m.transpose_b = false;
  } else if (b[n - 1] == j && b[n - 2] == k) {
    m.transpose_b = true;
  } else {
    return std::nullopt;
  }
  if (i == j || j == k || i == k || batch.find_first_of(std::string{i, j, k}) != std::string::npos) return std::nullopt;
  return m;
}

const OnnxOpEntry* FindOnnxOp(const std::string& op_type) {
  auto it = Table().find(op_type);
  return it == Table().end() ? nullptr : &it->second;
}

OpCost OnnxOpCost(const Graph& g, const Op& op, const OnnxOpEntry* entry) {
  OpCost cost = ComputeForwardCost(g, op);
  if (entry == nullptr || IsFree(op.kind) || CategoryOf(op.kind) == OpCategory::kView) return cost;
  if (entry->flops_per_element >= 0) {
    cost.flops = OutElements(g, op) * entry->flops_per_element;
  }
  if (GetStringAttr(op.attrs, "op_type", "") == "LRN") {
    cost.flops = OutElements(g, op) * static_cast<double>(GetIntAttr(op.attrs, "size", 1) + 4);
  }
  if (GetStringAttr(op.attrs, "op_type", "") == "Mean") {
    cost.flops = OutElements(g, op) * static_cast<double>(op.inputs.size());
  }
  if (entry->cost != nullptr) entry->cost(g, op, &cost);
  return cost;
}

void NormalizeAttrs(const ox::NodeProto& node, OpKind kind, const std::vector<TensorId>& inputs,
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
    case OpKind::kMatMul:
    case OpKind::kBatchMatMul:
      if (node.op_type() == "Einsum") {
        const std::optional<EinsumMatMul> mm = EinsumAsMatMul(GetStringAttr(*attrs, "equation", ""));
        if (mm) {
          (*attrs)["transpose_a"] = int64_t{mm->transpose_a};
          (*attrs)["transpose_b"] = int64_t{mm->transpose_b};
        }
      }
      break;
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

}  // namespace onnx_import
}  // namespace graphopt
