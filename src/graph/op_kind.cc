#include "graph/op_kind.h"

#include <cstring>

namespace graphopt {
namespace {
struct KindInfo {
  const char* name;
  OpCategory category;
  int flops;
};
constexpr KindInfo kKinds[] = {
#define GRAPHOPT_X(e, n, c, f) {n, OpCategory::c, f},
    GRAPHOPT_OP_KINDS(GRAPHOPT_X)
#undef GRAPHOPT_X
};
}  // namespace

const char* OpKindName(OpKind kind) { return kKinds[static_cast<int>(kind)].name; }

std::optional<OpKind> OpKindFromName(const std::string& name) {
  for (int i = 0; i < kNumOpKinds; ++i) {
    if (name == kKinds[i].name) return static_cast<OpKind>(i);
  }
  return std::nullopt;
}

OpCategory CategoryOf(OpKind kind) { return kKinds[static_cast<int>(kind)].category; }
int ElementwiseFlops(OpKind kind) { return kKinds[static_cast<int>(kind)].flops; }

bool IsFree(OpKind kind) {
  const OpCategory c = CategoryOf(kind);
  return c == OpCategory::kSource || c == OpCategory::kMetadata;
}

const char* CategoryName(OpCategory category) {
  switch (category) {
    case OpCategory::kSource: return "source";
    case OpCategory::kMetadata: return "metadata";
    case OpCategory::kView: return "view";
    case OpCategory::kContraction: return "contraction";
    case OpCategory::kRecurrent: return "recurrent";
    case OpCategory::kElementwise: return "elementwise";
    case OpCategory::kReduction: return "reduction";
    case OpCategory::kPool: return "pool";
    case OpCategory::kDataMovement: return "data-movement";
    case OpCategory::kLoss: return "loss";
    case OpCategory::kUpdate: return "update";
    case OpCategory::kGeneric: return "generic";
  }
  return "?";
}

const char* PhaseName(Phase phase) {
  switch (phase) {
    case Phase::kForward: return "forward";
    case Phase::kBackward: return "backward";
    case Phase::kUpdate: return "update";
  }
  return "?";
}

std::optional<Phase> PhaseFromName(const std::string& name) {
  if (name == "forward") return Phase::kForward;
  if (name == "backward") return Phase::kBackward;
  if (name == "update") return Phase::kUpdate;
  return std::nullopt;
}

namespace {
constexpr const char* kDTypeNames[kNumDTypes] = {"f32", "f16", "bf16", "f64", "i64", "i32", "i16", "i8", "u8", "bool"};
constexpr int kDTypeBytes[kNumDTypes] = {4, 2, 2, 8, 8, 4, 2, 1, 1, 1};
}  // namespace

int DTypeBytes(DType dtype) { return kDTypeBytes[static_cast<int>(dtype)]; }
const char* DTypeName(DType dtype) { return kDTypeNames[static_cast<int>(dtype)]; }
std::optional<DType> DTypeFromName(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kDTypeNames[i]) return static_cast<DType>(i);
  }
  return std::nullopt;
}
bool IsFloating(DType dtype) {
  return dtype == DType::kF32 || dtype == DType::kF16 || dtype == DType::kBF16 || dtype == DType::kF64;
}

}  // namespace graphopt
