// Op kinds, their categories and per-element costs, and the tensor dtypes.
//
// The kind table is the single place that says what an op kind is: its name (as
// written in JSON and shown to users), its category (which decides how its cost is
// computed and whether it can fuse) and, for elementwise kinds, FLOPs per output
// element.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace graphopt {

enum class OpCategory : uint8_t {
  kSource,       // Input, Variable, Constant: produce a tensor, cost nothing.
  kMetadata,     // shape helpers (Shape, Size, ...): cost nothing at all.
  kView,         // Reshape, Squeeze, ...: alias their input, no FLOPs, no traffic.
  kContraction,  // Conv, MatMul, Gemm, BatchMatMul: 2 FLOPs per multiply-accumulate.
  kRecurrent,    // LSTM/GRU/RNN layers and cells.
  kElementwise,  // unary and broadcasting binary maps.
  kReduction,    // reductions, softmax, norms.
  kPool,         // windowed pooling.
  kDataMovement, // concat, split, slice, gather, transpose, pad: bytes only.
  kLoss,         // losses.
  kUpdate,       // parameter update (optimizer step).
  kGeneric,      // an op this version does not know: costed by its bytes.
};

// X(enum name, display name, category, FLOPs per output element for elementwise)
#define GRAPHOPT_OP_KINDS(X)                          \
  X(Input, "Input", kSource, 0)                       \
  X(Variable, "Variable", kSource, 0)                 \
  X(Constant, "Constant", kSource, 0)                 \
  X(Shape, "Shape", kMetadata, 0)                     \
  X(ShapeCompute, "ShapeCompute", kMetadata, 0)       \
  X(Reshape, "Reshape", kView, 0)                     \
  X(Identity, "Identity", kView, 0)                   \
  X(StopGradient, "StopGradient", kView, 0)           \
  X(Conv, "Conv", kContraction, 0)                    \
  X(ConvTranspose, "ConvTranspose", kContraction, 0)  \
  X(MatMul, "MatMul", kContraction, 0)                \
  X(BatchMatMul, "BatchMatMul", kContraction, 0)      \
  X(Gemm, "Gemm", kContraction, 0)                    \
  X(LSTM, "LSTM", kRecurrent, 0)                      \
  X(GRU, "GRU", kRecurrent, 0)                        \
  X(RNN, "RNN", kRecurrent, 0)                        \
  X(LSTMCell, "LSTMCell", kRecurrent, 0)              \
  X(GRUCell, "GRUCell", kRecurrent, 0)                \
  X(Add, "Add", kElementwise, 1)                      \
  X(Sub, "Sub", kElementwise, 1)                      \
  X(Mul, "Mul", kElementwise, 1)                      \
  X(Div, "Div", kElementwise, 1)                      \
  X(Pow, "Pow", kElementwise, 1)                      \
  X(Max, "Max", kElementwise, 1)                      \
  X(Min, "Min", kElementwise, 1)                      \
  X(Neg, "Neg", kElementwise, 1)                      \
  X(Abs, "Abs", kElementwise, 1)                      \
  X(Relu, "Relu", kElementwise, 1)                    \
  X(LeakyRelu, "LeakyRelu", kElementwise, 2)          \
  X(Sigmoid, "Sigmoid", kElementwise, 4)              \
  X(Tanh, "Tanh", kElementwise, 4)                    \
  X(Gelu, "Gelu", kElementwise, 8)                    \
  X(Erf, "Erf", kElementwise, 4)                      \
  X(Exp, "Exp", kElementwise, 1)                      \
  X(Log, "Log", kElementwise, 1)                      \
  X(Sqrt, "Sqrt", kElementwise, 1)                    \
  X(Reciprocal, "Reciprocal", kElementwise, 1)        \
  X(Clip, "Clip", kElementwise, 2)                    \
  X(Where, "Where", kElementwise, 1)                  \
  X(Compare, "Compare", kElementwise, 1)              \
  X(Not, "Not", kElementwise, 1)                      \
  X(Cast, "Cast", kElementwise, 1)                    \
  X(Dropout, "Dropout", kElementwise, 2)              \
  X(AddN, "AddN", kElementwise, 1)                    \
  X(ReduceSum, "ReduceSum", kReduction, 0)            \
  X(ReduceMean, "ReduceMean", kReduction, 0)          \
  X(ReduceMax, "ReduceMax", kReduction, 0)            \
  X(Softmax, "Softmax", kReduction, 0)                \
  X(LogSoftmax, "LogSoftmax", kReduction, 0)          \
  X(LayerNorm, "LayerNorm", kReduction, 0)            \
  X(BatchNorm, "BatchNorm", kReduction, 0)            \
  X(MaxPool, "MaxPool", kPool, 0)                     \
  X(AvgPool, "AvgPool", kPool, 0)                     \
  X(GlobalAvgPool, "GlobalAvgPool", kPool, 0)         \
  X(Concat, "Concat", kDataMovement, 0)               \
  X(Split, "Split", kDataMovement, 0)                 \
  X(Slice, "Slice", kDataMovement, 0)                 \
  X(Gather, "Gather", kDataMovement, 0)               \
  X(Transpose, "Transpose", kDataMovement, 0)         \
  X(Pad, "Pad", kDataMovement, 0)                     \
  X(Expand, "Expand", kDataMovement, 0)               \
  X(ScatterAdd, "ScatterAdd", kDataMovement, 0)       \
  X(SoftmaxCrossEntropy, "SoftmaxCrossEntropy", kLoss, 0) \
  X(ApplyGradient, "ApplyGradient", kUpdate, 0)       \
  X(Generic, "Generic", kGeneric, 0)

enum class OpKind : uint8_t {
#define GRAPHOPT_X(e, n, c, f) k##e,
  GRAPHOPT_OP_KINDS(GRAPHOPT_X)
#undef GRAPHOPT_X
      kNumKinds
};

inline constexpr int kNumOpKinds = static_cast<int>(OpKind::kNumKinds);

const char* OpKindName(OpKind kind);
std::optional<OpKind> OpKindFromName(const std::string& name);
OpCategory CategoryOf(OpKind kind);
// FLOPs per output element of an elementwise kind (0 for other categories).
int ElementwiseFlops(OpKind kind);
const char* CategoryName(OpCategory category);
// True for kinds that cost nothing (sources and metadata).
bool IsFree(OpKind kind);

// Which part of a training step an op belongs to.
enum class Phase : uint8_t { kForward = 0, kBackward = 1, kUpdate = 2 };
const char* PhaseName(Phase phase);
std::optional<Phase> PhaseFromName(const std::string& name);

enum class DType : uint8_t { kF32, kF16, kBF16, kF64, kI64, kI32, kI16, kI8, kU8, kBool };
inline constexpr int kNumDTypes = 10;
int DTypeBytes(DType dtype);
const char* DTypeName(DType dtype);
std::optional<DType> DTypeFromName(const std::string& name);
bool IsFloating(DType dtype);

}  // namespace graphopt
