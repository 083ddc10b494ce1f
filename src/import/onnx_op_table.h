// The ONNX operator table: for every operator of the default domain the importer
// knows, the graphopt op kind it becomes and, where the kind's own formula
// (graph/cost.h) does not fit the operator, the operator's FLOPs and bytes.
//
// Costs the table adds to the kinds' formulas (N = output elements):
//   HardSigmoid 4 N (multiply, add, clamp); HardSwish 5 N; Mod 3 N; Softplus,
//   Softsign, Elu 3 N; Selu, Celu, Sin, Cos, Tan 4 N; Mish 8 N; Floor, Ceil,
//   Round, Sign, IsNaN, IsInf, ThresholdedRelu, Trilu 1 N; Mean (k inputs) k N;
//   QuantizeLinear, DequantizeLinear 2 N; LRN (size s) (s + 4) N.
//   Einsum: a two-operand matrix product (e.g. "bhid,bhjd->bhij") is a MatMul or
//     BatchMatMul with its transposes, other equations Generic ops; with k >= 2
//     operands MACs = product of the sizes of every index
//     letter (the loop nest of the contraction), FLOPs = 2 MACs; with one operand
//     (a transpose or a reduction) FLOPs = elements of the input.
//   TopK: FLOPs = N_in * ceil(log2(K + 1)) (a K-element heap per row).
//   Resize/Upsample: nearest 0 FLOPs; linear 2 * 2^a per output element, cubic
//     2 * 4^a, a = number of resized axes.
//   Range, ConstantOfShape, RandomNormal/Uniform(Like), OneHot: write their output,
//     read nothing but their shape inputs; Range 1 FLOP per element.
//   everything else: the kind's formula (contractions, recurrences, reductions,
//     norms, pooling, data movement).
#pragma once

#include <optional>
#include <string>

#include "graph/graph.h"
#include "import/onnx_util.h"

namespace graphopt {
namespace onnx_import {

struct OnnxOpEntry {
  OpKind kind = OpKind::kGeneric;
  // FLOPs per output element replacing the kind's elementwise count; < 0: the kind's.
  double flops_per_element = -1;
  // A cost formula replacing the kind's, or nullptr.
  void (*cost)(const Graph& g, const Op& op, OpCost* cost) = nullptr;
};

// A two-operand Einsum that is a (batched) matrix product: the same batch letters
// (or "...") before the last two of each operand and of the output, one letter
// contracted; whether each operand is transposed. nullopt for any other equation.
struct EinsumMatMul {
  bool transpose_a = false, transpose_b = false;
};
std::optional<EinsumMatMul> EinsumAsMatMul(const std::string& equation);

// The entry of a default-domain operator type, or nullptr if the importer does not know it.
const OnnxOpEntry* FindOnnxOp(const std::string& op_type);

// The forward cost of an imported op: the kind's formula, then the entry's.
OpCost OnnxOpCost(const Graph& g, const Op& op, const OnnxOpEntry* entry);

// Renames and completes the attributes the cost formulas and the rest of graphopt
// read (kernel, strides, pads, group, axis, split, hidden_size, ...); records the
// ONNX type in "op_type" when it differs from the kind's name.
void NormalizeAttrs(const ox::NodeProto& node, OpKind kind, const std::vector<TensorId>& inputs,
                    const std::vector<TensorId>& outputs, const Graph& g, Attrs* attrs);

}  // namespace onnx_import
}  // namespace graphopt
