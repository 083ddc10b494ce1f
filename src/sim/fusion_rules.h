// FusionRules: which fused kernels a compiler would emit, and why any other is refused.
//
// A fused group (sim/plan.h) is a tree of ops rooted at an unflagged op, each flagged
// op joining the kernel of its fusion producer. The rules below keep only kernels that
// XLA's GPU fusion or TorchInductor's scheduler generate:
// - XLA, xla/service/gpu/gpu_fusible.h and priority_fusion.cc: loop fusion of
//   elementwise ops over one iteration space (IsLoopFusibleAsProducer/Consumer,
//   ShapesCompatibleForMultiOutputFusion); a reduction is the "hero" of its fusion,
//   with its elementwise producers fused in and at most one reduction (its sibling
//   reductions only as a multi-output fusion, not modelled here); GEMMs and
//   convolutions are library calls (cuBLAS/cuDNN custom calls) that take at most an
//   elementwise epilogue (gemm_rewriter's bias and activation, the cuDNN fused
//   convolution's bias + activation + side input); scatter is a fusion of its own.
// - Inductor, torch/_inductor/scheduler.py can_fuse / can_fuse_vertical: pointwise
//   nodes fuse when their iteration ranges (sizes) match; a reduction fuses its
//   pointwise producers and a pointwise epilogue over its output ranges; extern
//   kernels (mm, convolution) are not fused except through epilogue templates.
//
// The rules, each named (FusionRule) in every refusal:
//   kind             sources and metadata run no kernel; contractions, recurrent layers,
//                    Generic ops and ScatterAdd never join another op's kernel.
//   producer         the op has a fusion producer, on its own device.
//   contraction-epilogue  a kernel rooted at a contraction or a recurrent layer takes
//                    only elementwise (and view) ops of its output's size: bias,
//                    activation, residual add; never a reduction, a data movement,
//                    an update or another contraction.
//   one-reduction    a kernel holds at most one reduction (reductions, softmax,
//                    normalizations, pools and losses).
//   iteration-space  an elementwise, view or data-movement op joins only a producer
//                    whose iteration space is its own: it writes as many elements
//                    as it reads from the producer and the producer writes (broadcast
//                    inputs from outside the kernel are allowed); a reduction reads
//                    its producer's whole space, and its epilogue iterates over the
//                    reduction's output. So a kernel iterates over at most two
//                    spaces: its input space and, after its reduction, its output.
//   update           an update (optimizer step) fuses only with elementwise ops of
//                    its own size: a kernel with an update holds no reduction, no
//                    data movement and no second update.
//   opaque-root      a kernel rooted at a Generic op or a ScatterAdd takes no other op.
//   cycle            the groups form no cycle (sim/plan_legalizer.h).
// The rules hold for every subtree of a legal group, so splitting a group (breaking a
// cycle) keeps it legal. A normalization's two passes over its input (statistics, then
// normalize) are costed by graph/cost.cc; inside a kernel the second pass reads its
// input again (sim/simulator.h).
//
// The check is incremental (a group summary, updated as ops join in an order where
// every op comes after its fusion producer) and order-independent: a group accepted
// op by op is exactly a group whose every member passes against the whole group's
// summary. FusionRules copies what it needs of the graph once (O(ops)); thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace graphopt {

enum class FusionRule : uint8_t {
  kOk = 0,
  kKind,
  kProducer,
  kContractionEpilogue,
  kOneReduction,
  kIterationSpace,
  kUpdate,
  kOpaqueRoot,
  kCycle,
};
// "contraction-epilogue", ...: the rule's name as the header lists it.
const char* FusionRuleName(FusionRule rule);

// Why a fusion is or is not allowed: ok, or the rule it breaks and a sentence for the
// error message.
struct FusionDecision {
  bool ok = true;
  std::string reason;
  FusionRule rule = FusionRule::kOk;
  FusionDecision() = default;
  FusionDecision(bool allowed, std::string why, FusionRule broken = FusionRule::kKind)
      : ok(allowed), reason(std::move(why)), rule(allowed ? FusionRule::kOk : broken) {}
  explicit operator bool() const { return ok; }
};

// What an op is to the fusion rules.
enum class FusionRole : uint8_t {
  kFree,          // sources and metadata: no kernel
  kElementwise,   // elementwise maps
  kView,          // reshapes and identities
  kDataMovement,  // concat, split, slice, gather, transpose, pad, expand
  kReduction,     // reductions, softmax, normalizations, pools, losses
  kContraction,   // GEMM, convolution, recurrent layers
  kUpdate,        // optimizer steps
  kOpaque,        // Generic, ScatterAdd
};
FusionRole FusionRoleOf(OpKind kind);

// The part of a fused group the rules read.
struct FusionGroupSummary {
  FusionRole root_role = FusionRole::kElementwise;
  int32_t reductions = 0;
  int32_t updates = 0;
  int32_t data_movement = 0;
  int32_t members = 1;
};

class FusionRules {
 public:
  explicit FusionRules(const Graph& graph);

  FusionRole role(OpId op) const { return role_[static_cast<size_t>(op)]; }
  // Elements the op writes (its first output; a Split: all of its outputs).
  int64_t space(OpId op) const { return space_[static_cast<size_t>(op)]; }
  // Elements of the tensor the op reads from its fusion producer (0 if none).
  int64_t read(OpId op) const { return read_[static_cast<size_t>(op)]; }
  OpId fusion_producer(OpId op) const { return producer_[static_cast<size_t>(op)]; }
  // Every op after its fusion producer (a fixed order: fusion producers do not depend
  // on the plan).
  const std::vector<OpId>& producer_first_order() const { return order_; }
  // The root of each op's kernel under the flags `fuse` (one per op; a flag without a
  // fusion producer joins nothing).
  std::vector<OpId> Roots(const std::vector<uint8_t>& fuse) const;

  // The summary of a group of one op.
  FusionGroupSummary Start(OpId root) const;
  // Whether flagged `op` may join `group`, the kernel holding its fusion producer
  // (kind, producer and device are the caller's checks: sim/plan.h).
  FusionRule Check(const FusionGroupSummary& group, OpId op) const;
  void Join(FusionGroupSummary* group, OpId op) const;
  // Check's verdict in words, naming the ops (graph names).
  FusionDecision Explain(const FusionGroupSummary& group, OpId root, OpId op) const;

  // Every flagged op (in op order) that breaks a rule in the kernels of `fuse` (one
  // flag per op; flags without a fusion producer are the caller's to reject), with
  // the rule and the root of its kernel. Order-independent: each member is checked
  // against the summary of its whole kernel.
  struct Break {
    OpId op;
    OpId root;
    FusionRule rule;
  };
  std::vector<Break> FindBreaks(const std::vector<uint8_t>& fuse) const;

  // Check against the summary of a whole group (FindBreaks' test; the group's own
  // counts include op).
  FusionRule CheckInWholeGroup(const FusionGroupSummary& group, OpId op) const;

 private:
  const Graph* graph_;
  std::vector<FusionRole> role_;
  std::vector<int64_t> space_, read_;
  std::vector<OpId> producer_;
  std::vector<OpId> order_;
};

}  // namespace graphopt
