#include "sim/fusion_rules.h"

#include <deque>

#include "core/logging.h"

namespace graphopt {
namespace {

bool IsEpilogueRole(FusionRole r) { return r == FusionRole::kElementwise || r == FusionRole::kView; }

OpId FirstKernelProducer(const Graph& graph, OpId op, TensorId* tensor) {
  for (TensorId t : graph.op(op).inputs) {
    const OpId p = graph.tensor(t).producer;
    if (p != kNoId && !IsFree(graph.op(p).kind)) {
      *tensor = t;
      return p;
    }
  }
  return kNoId;
}

}  // namespace

const char* FusionRuleName(FusionRule rule) {
  switch (rule) {
    case FusionRule::kOk: return "ok";
    case FusionRule::kKind: return "kind";
    case FusionRule::kProducer: return "producer";
    case FusionRule::kContractionEpilogue: return "contraction-epilogue";
    case FusionRule::kOneReduction: return "one-reduction";
    case FusionRule::kIterationSpace: return "iteration-space";
    case FusionRule::kUpdate: return "update";
    case FusionRule::kOpaqueRoot: return "opaque-root";
    case FusionRule::kCycle: return "cycle";
  }
  return "unknown";
}

FusionRole FusionRoleOf(OpKind kind) {
  if (kind == OpKind::kScatterAdd) return FusionRole::kOpaque;
  switch (CategoryOf(kind)) {
    case OpCategory::kSource:
    case OpCategory::kMetadata: return FusionRole::kFree;
    case OpCategory::kView: return FusionRole::kView;
    case OpCategory::kContraction:
    case OpCategory::kRecurrent: return FusionRole::kContraction;
    case OpCategory::kElementwise: return FusionRole::kElementwise;
    case OpCategory::kReduction:
    case OpCategory::kPool:
    case OpCategory::kLoss: return FusionRole::kReduction;
    case OpCategory::kDataMovement: return FusionRole::kDataMovement;
    case OpCategory::kUpdate: return FusionRole::kUpdate;
    case OpCategory::kGeneric: return FusionRole::kOpaque;
  }
  return FusionRole::kOpaque;
}

FusionRules::FusionRules(const Graph& graph) : graph_(&graph) {
  const int n = graph.num_ops();
  const size_t un = static_cast<size_t>(n);
  role_.resize(un);
  space_.assign(un, 0);
  read_.assign(un, 0);
  producer_.assign(un, kNoId);
  std::vector<std::vector<OpId>> children(un);
  for (OpId o = 0; o < n; ++o) {
    const Op& op = graph.op(o);
    const size_t i = static_cast<size_t>(o);
    role_[i] = FusionRoleOf(op.kind);
    TensorId t = kNoId;
    const OpId p = FirstKernelProducer(graph, o, &t);
    producer_[i] = p;
    if (p != kNoId) {
      read_[i] = graph.tensor(t).num_elements();
      children[static_cast<size_t>(p)].push_back(o);
    }
    if (op.kind == OpKind::kSplit) {
      for (TensorId out : op.outputs) space_[i] += graph.tensor(out).num_elements();
    } else if (!op.outputs.empty()) {
      space_[i] = graph.tensor(op.outputs[0]).num_elements();
    } else {
      space_[i] = read_[i];
    }
  }
  // Breadth-first over the forest of fusion producers (a DAG's producer links form no
  // cycle; a graph that is not a DAG is refused before any plan is checked).
  order_.reserve(un);
  std::deque<OpId> queue;
  for (OpId o = 0; o < n; ++o) {
    if (producer_[static_cast<size_t>(o)] == kNoId) queue.push_back(o);
  }
  while (!queue.empty()) {
    const OpId o = queue.front();
    queue.pop_front();
    order_.push_back(o);
    for (OpId c : children[static_cast<size_t>(o)]) queue.push_back(c);
  }
  GO_CHECK_MSG(order_.size() == un, "fusion producers of graph " + graph.name() + " form a cycle");
}

FusionGroupSummary FusionRules::Start(OpId root) const {
  FusionGroupSummary g;
  const FusionRole r = role(root);
  g.root_role = r;
  g.reductions = r == FusionRole::kReduction;
  g.updates = r == FusionRole::kUpdate;
  g.data_movement = r == FusionRole::kDataMovement;
  return g;
}

FusionRule FusionRules::Check(const FusionGroupSummary& group, OpId op) const {
  const FusionRole r = role(op);
  if (r == FusionRole::kFree || r == FusionRole::kContraction || r == FusionRole::kOpaque) return FusionRule::kKind;
  const OpId p = fusion_producer(op);
  if (p == kNoId) return FusionRule::kProducer;
  if (group.root_role == FusionRole::kOpaque) return FusionRule::kOpaqueRoot;
  const int64_t sp = space(p), so = space(op), ro = read(op);
  if (group.root_role == FusionRole::kContraction) {
    if (!IsEpilogueRole(r) || so != ro || ro != sp) return FusionRule::kContractionEpilogue;
    return FusionRule::kOk;
  }
  switch (r) {
    case FusionRole::kReduction:
      if (group.updates > 0) return FusionRule::kUpdate;
      if (group.reductions > 0) return FusionRule::kOneReduction;
      if (ro != sp) return FusionRule::kIterationSpace;
      return FusionRule::kOk;
    case FusionRole::kUpdate:
      if (group.updates > 0 || group.reductions > 0 || group.data_movement > 0 || !IsEpilogueRole(group.root_role) ||
          so != ro || ro != sp) {
        return FusionRule::kUpdate;
      }
      return FusionRule::kOk;
    default:  // loop roles
      if (group.updates > 0 && !IsEpilogueRole(r)) return FusionRule::kUpdate;
      if (so != ro || ro != sp) return group.updates > 0 ? FusionRule::kUpdate : FusionRule::kIterationSpace;
      return FusionRule::kOk;
  }
}

void FusionRules::Join(FusionGroupSummary* group, OpId op) const {
  const FusionRole r = role(op);
  group->reductions += r == FusionRole::kReduction;
  group->updates += r == FusionRole::kUpdate;
  group->data_movement += r == FusionRole::kDataMovement;
  ++group->members;
}

FusionRule FusionRules::CheckInWholeGroup(const FusionGroupSummary& whole, OpId op) const {
  // The group without op, as Check sees it when op joins last; a member that joined
  // earlier saw a subset of the others, and every count rule is monotone, so checking
  // each member against the rest of the whole group decides the same groups.
  FusionGroupSummary rest = whole;
  const FusionRole r = role(op);
  rest.reductions -= r == FusionRole::kReduction;
  rest.updates -= r == FusionRole::kUpdate;
  rest.data_movement -= r == FusionRole::kDataMovement;
  --rest.members;
  return Check(rest, op);
}

FusionDecision FusionRules::Explain(const FusionGroupSummary& group, OpId root, OpId op) const {
  const FusionRule rule = Check(group, op);
  if (rule == FusionRule::kOk) return {};
  const Op& o = graph_->op(op);
  const std::string name = "'" + o.name + "' (" + OpKindName(o.kind) + ")";
  const std::string kernel = "the kernel of '" + graph_->op(root).name + "' (" + OpKindName(graph_->op(root).kind) + ")";
  const OpId p = fusion_producer(op);
  std::string why;
  switch (rule) {
    case FusionRule::kKind:
      why = name + " never joins another op's kernel (sources and metadata run none; contractions, recurrent "
                   "layers, Generic and ScatterAdd are kernels of their own)";
      break;
    case FusionRule::kProducer:
      why = name + " has no producer that runs a kernel";
      break;
    case FusionRule::kContractionEpilogue:
      why = kernel + " is a library contraction: it takes only an elementwise epilogue of its output's size, not " +
            name + " (" + std::to_string(space(op)) + " elements, reading " + std::to_string(read(op)) + ")";
      break;
    case FusionRule::kOneReduction:
      why = name + " would be a second reduction in " + kernel;
      break;
    case FusionRule::kIterationSpace:
      why = name + " writes " + std::to_string(space(op)) + " elements and reads " + std::to_string(read(op)) +
            " from '" + graph_->op(p).name + "', which writes " + std::to_string(space(p)) + ": not one iteration space";
      break;
    case FusionRule::kUpdate:
      why = name + " and " + kernel + ": an update fuses only with elementwise ops of its own size";
      break;
    case FusionRule::kOpaqueRoot:
      why = kernel + " takes no other op, not " + name;
      break;
    default:
      why = name + ": " + FusionRuleName(rule);
      break;
  }
  return FusionDecision(false, std::string(FusionRuleName(rule)) + ": " + why, rule);
}

std::vector<OpId> FusionRules::Roots(const std::vector<uint8_t>& fuse) const {
  GO_CHECK(fuse.size() == role_.size());
  std::vector<OpId> root(fuse.size(), kNoId);
  for (OpId o : order_) {
    const size_t i = static_cast<size_t>(o);
    const OpId p = producer_[i];
    root[i] = fuse[i] && p != kNoId ? root[static_cast<size_t>(p)] : o;
  }
  return root;
}

std::vector<FusionRules::Break> FusionRules::FindBreaks(const std::vector<uint8_t>& fuse) const {
  const size_t un = role_.size();
  const std::vector<OpId> root = Roots(fuse);
  std::vector<FusionGroupSummary> group(un);
  for (size_t i = 0; i < un; ++i) {
    if (root[i] == static_cast<OpId>(i)) group[i] = Start(static_cast<OpId>(i));
  }
  for (size_t i = 0; i < un; ++i) {
    if (root[i] != static_cast<OpId>(i)) Join(&group[static_cast<size_t>(root[i])], static_cast<OpId>(i));
  }
  std::vector<Break> breaks;
  for (size_t i = 0; i < un; ++i) {
    if (!fuse[i] || producer_[i] == kNoId) continue;
    const FusionRule rule = CheckInWholeGroup(group[static_cast<size_t>(root[i])], static_cast<OpId>(i));
    if (rule != FusionRule::kOk) breaks.push_back({static_cast<OpId>(i), root[i], rule});
  }
  return breaks;
}

}  // namespace graphopt
