#include "sim/plan_legalizer.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/logging.h"

namespace graphopt {

// Working memory of the cycle search, kept per thread so that legalizing a plan
// allocates nothing once the vectors have grown to the graph's size. After
// FindCycles: producer (the fusion producer of every flagged op, else kNoId), root
// (every op's group) and cycle (per group root: its strongly connected component of
// the group graph if that component has more than one group, else -1). With `active`,
// the search keeps to the active ops: the others are single groups on no cycle.
struct PlanLegalizer::CycleScratch {
  std::vector<OpId> producer, root, path, adj, stack, call;
  std::vector<int32_t> begin, fill, index, low, next_edge, cycle;
  std::vector<uint8_t> on_stack;
};

PlanLegalizer::PlanLegalizer(const Graph& graph) : graph_(&graph), n_(graph.num_ops()), rules_(graph) {
  const size_t n = static_cast<size_t>(n_);
  fusion_producer_.resize(n);
  can_fuse_kind_.resize(n);
  colocation_.resize(n);
  in_begin_.assign(n + 1, 0);
  for (OpId o = 0; o < n_; ++o) {
    const Op& op = graph.op(o);
    fusion_producer_[static_cast<size_t>(o)] = FusionProducer(graph, o);
    can_fuse_kind_[static_cast<size_t>(o)] = CanFuseKind(op.kind) ? 1 : 0;
    colocation_[static_cast<size_t>(o)] = op.colocation_group;
    if (!IsFree(op.kind)) {
      for (TensorId t : op.inputs) {
        const OpId u = graph.tensor(t).producer;
        if (u != kNoId) in_producer_.push_back(u);
      }
    }
    in_begin_[static_cast<size_t>(o) + 1] = static_cast<int32_t>(in_producer_.size());
  }
}

void PlanLegalizer::RespectColocation(Plan* plan) const {
  const Status complete = CompletePlan(*graph_, plan);  // a wrong length is the caller's bug
  GO_CHECK_MSG(complete.ok(), complete.message());
  // Group ids are 0..num_colocation_groups()-1 after Normalize; any other id (a graph
  // built by hand) goes to the map.
  std::vector<DeviceId> dense(static_cast<size_t>(std::max(0, graph_->num_colocation_groups())), kNoId);
  std::map<int32_t, DeviceId> sparse;
  for (OpId o = 0; o < n_; ++o) {
    const int32_t g = colocation_[static_cast<size_t>(o)];
    if (g == kNoId) continue;
    DeviceId& d = plan->device[static_cast<size_t>(o)];
    if (g >= 0 && static_cast<size_t>(g) < dense.size()) {
      DeviceId& first = dense[static_cast<size_t>(g)];
      if (first == kNoId) first = d;
      else d = first;
    } else {
      auto [it, inserted] = sparse.emplace(g, d);
      if (!inserted) d = it->second;
    }
  }
}

int PlanLegalizer::DropRuleBreakingFusions(Plan* plan) const {
  const Status complete = CompletePlan(*graph_, plan);
  GO_CHECK_MSG(complete.ok(), complete.message());
  int cleared = 0;
  // Each op after its fusion producer, so that its producer's kernel is known (a
  // kernel only ever grows here).
  thread_local std::vector<OpId> root;
  thread_local std::vector<FusionGroupSummary> group;
  root.resize(static_cast<size_t>(n_));
  group.resize(static_cast<size_t>(n_));
  for (OpId o : rules_.producer_first_order()) {
    const size_t i = static_cast<size_t>(o);
    uint8_t& flag = plan->fuse_with_producer[i];
    const OpId p = fusion_producer_[i];
    if (flag) {
      if (!can_fuse_kind_[i] || p == kNoId || plan->device[static_cast<size_t>(p)] != plan->device[i]) {
        flag = 0;
        ++cleared;
      } else {
        FusionGroupSummary& g = group[static_cast<size_t>(root[static_cast<size_t>(p)])];
        if (rules_.Check(g, o) == FusionRule::kOk) {
          rules_.Join(&g, o);
          root[i] = root[static_cast<size_t>(p)];
          continue;
        }
        flag = 0;
        ++cleared;
      }
    }
    root[i] = o;
    group[i] = rules_.Start(o);
  }
  return cleared;
}

int PlanLegalizer::DropIllegalFusions(Plan* plan) const {
  int cleared = DropRuleBreakingFusions(plan);
  // Breaking the cycles. A cycle of groups enters some group at a flagged op from a
  // producer in another group of the same component (were every group on it entered
  // at its root, the cycle would be one of the graph itself, which is acyclic), so
  // clearing the flags of those entries (and of them alone) leaves fewer cycles;
  // repeated until none is left. The groups split by it are parts of groups on a
  // cycle, so groups on none keep their flags. After kMaxEntryRounds rounds, the flags
  // of every group still on a cycle are cleared, which leaves none: a cycle after
  // that would map to a closed walk over the groups before; if that walk visits two
  // groups, every group on it was on a cycle and is now single ops, so the new cycle
  // would be one of the graph itself; if it stays in one group, that group was left
  // whole, and one group is no cycle.
  constexpr int kMaxEntryRounds = 16;
  // After the first round only the ops of groups that were on a cycle are searched:
  // by the argument above, a cycle after a round lies within groups on a cycle before
  // it, and the search over them alone finds the same groups and components there.
  thread_local std::vector<OpId> entries;
  thread_local std::vector<uint8_t> active;
  for (int round = 0;; ++round) {
    const CycleScratch& w = FindCycles(plan->fuse_with_producer, round == 0 ? nullptr : &active);
    entries.clear();
    for (OpId v = 0; v < n_; ++v) {
      const size_t i = static_cast<size_t>(v);
      if (w.producer[i] == kNoId) continue;
      const int32_t cycle = w.cycle[static_cast<size_t>(w.root[i])];
      if (cycle < 0) continue;
      if (round == kMaxEntryRounds) {
        entries.push_back(v);
        continue;
      }
      for (int32_t k = in_begin_[i]; k < in_begin_[i + 1]; ++k) {
        const OpId g = w.root[static_cast<size_t>(in_producer_[static_cast<size_t>(k)])];
        if (g != w.root[i] && w.cycle[static_cast<size_t>(g)] == cycle) {
          entries.push_back(v);
          break;
        }
      }
    }
    if (entries.empty()) break;
    active.resize(static_cast<size_t>(n_));  // every entry written below
    for (size_t i = 0; i < static_cast<size_t>(n_); ++i) {
      active[i] = w.cycle[static_cast<size_t>(w.root[i])] >= 0 ? 1 : 0;
    }
    for (OpId v : entries) plan->fuse_with_producer[static_cast<size_t>(v)] = 0;
    cleared += static_cast<int>(entries.size());
    if (round == kMaxEntryRounds) break;
  }
  return cleared;
}

void PlanLegalizer::MakeValid(const Cluster& cluster, Plan* plan) const {
  const Status complete = CompletePlan(*graph_, plan);
  GO_CHECK_MSG(complete.ok(), complete.message());
  for (DeviceId& d : plan->device) {
    if (d < 0 || d >= cluster.num_devices()) d = cluster.FirstAccelerator();
  }
  for (double& p : plan->priority) {
    if (!std::isfinite(p)) p = 0;
  }
  RespectColocation(plan);
  DropIllegalFusions(plan);
}

std::vector<OpId> PlanLegalizer::FusedOpsOnCycles(const std::vector<uint8_t>& fuse) const {
  const CycleScratch& w = FindCycles(fuse);
  std::vector<OpId> cyclic;
  for (size_t o = 0; o < static_cast<size_t>(n_); ++o) {
    if (w.producer[o] != kNoId && w.cycle[static_cast<size_t>(w.root[o])] >= 0) cyclic.push_back(static_cast<OpId>(o));
  }
  return cyclic;
}

const PlanLegalizer::CycleScratch& PlanLegalizer::FindCycles(const std::vector<uint8_t>& fuse,
                                                             const std::vector<uint8_t>* active) const {
  GO_CHECK(fuse.size() == static_cast<size_t>(n_));
  GO_CHECK(active == nullptr || active->size() == static_cast<size_t>(n_));
  auto is_active = [active](size_t o) { return active == nullptr || (*active)[o] != 0; };
  thread_local CycleScratch w;
  const int n = n_;
  const size_t un = static_cast<size_t>(n);
  std::vector<OpId>& producer = w.producer;
  producer.assign(un, kNoId);
  bool any = false;
  for (size_t o = 0; o < un; ++o) {
    if (fuse[o] && is_active(o)) {
      producer[o] = fusion_producer_[o];
      any |= producer[o] != kNoId;
    }
  }
  std::vector<int32_t>& cycle = w.cycle;
  cycle.assign(un, -1);
  if (!any) {
    w.root.resize(un);
    for (size_t o = 0; o < un; ++o) w.root[o] = static_cast<OpId>(o);
    return w;
  }
  // Group root of every op, following fusion producers (iteratively: chains can be long).
  std::vector<OpId>& root = w.root;
  root.assign(un, kNoId);
  for (OpId o = 0; o < n; ++o) {
    OpId x = o;
    while (root[static_cast<size_t>(x)] == kNoId && producer[static_cast<size_t>(x)] != kNoId) {
      w.path.push_back(x);
      x = producer[static_cast<size_t>(x)];
    }
    const OpId r = root[static_cast<size_t>(x)] == kNoId ? x : root[static_cast<size_t>(x)];
    root[static_cast<size_t>(x)] = r;
    for (OpId p : w.path) root[static_cast<size_t>(p)] = r;
    w.path.clear();
  }
  // Group graph edges in compressed rows, counted then filled (duplicates are
  // harmless for the component search).
  auto for_each_edge = [&](auto&& visit) {
    for (size_t v = 0; v < un; ++v) {
      if (!is_active(v)) continue;
      const OpId b = root[v];
      for (int32_t k = in_begin_[v]; k < in_begin_[v + 1]; ++k) {
        const size_t u = static_cast<size_t>(in_producer_[static_cast<size_t>(k)]);
        if (!is_active(u)) continue;
        const OpId a = root[u];
        if (a != b) visit(a, b);
      }
    }
  };
  std::vector<int32_t>& begin = w.begin;
  begin.assign(un + 1, 0);
  for_each_edge([&](OpId a, OpId) { ++begin[static_cast<size_t>(a) + 1]; });
  for (size_t i = 0; i < un; ++i) begin[i + 1] += begin[i];
  w.adj.resize(static_cast<size_t>(begin[un]));
  w.fill.assign(begin.begin(), begin.end() - 1);
  for_each_edge([&](OpId a, OpId b) { w.adj[static_cast<size_t>(w.fill[static_cast<size_t>(a)]++)] = b; });
  // Strongly connected components of the group graph (iterative Tarjan): a group is
  // on a cycle iff its component has more than one group.
  const std::vector<OpId>& adj = w.adj;
  std::vector<int32_t>& index = w.index;
  std::vector<int32_t>& low = w.low;
  std::vector<int32_t>& next_edge = w.next_edge;
  std::vector<uint8_t>& on_stack = w.on_stack;
  std::vector<OpId>& stack = w.stack;
  std::vector<OpId>& call = w.call;
  index.assign(un, -1);
  low.assign(un, 0);
  next_edge.assign(un, 0);
  on_stack.assign(un, 0);
  stack.clear();
  call.clear();
  int32_t counter = 0, components = 0;
  auto visit = [&](OpId v) {
    index[static_cast<size_t>(v)] = low[static_cast<size_t>(v)] = counter++;
    next_edge[static_cast<size_t>(v)] = begin[static_cast<size_t>(v)];
    stack.push_back(v);
    on_stack[static_cast<size_t>(v)] = 1;
    call.push_back(v);
  };
  for (OpId s = 0; s < n; ++s) {
    const size_t us = static_cast<size_t>(s);
    if (root[us] != s || index[us] >= 0 || !is_active(us)) continue;
    visit(s);
    while (!call.empty()) {
      const OpId v = call.back();
      if (next_edge[static_cast<size_t>(v)] < begin[static_cast<size_t>(v) + 1]) {
        const OpId x = adj[static_cast<size_t>(next_edge[static_cast<size_t>(v)]++)];
        if (index[static_cast<size_t>(x)] < 0) {
          visit(x);
        } else if (on_stack[static_cast<size_t>(x)]) {
          low[static_cast<size_t>(v)] = std::min(low[static_cast<size_t>(v)], index[static_cast<size_t>(x)]);
        }
        continue;
      }
      call.pop_back();
      if (!call.empty()) {
        low[static_cast<size_t>(call.back())] =
            std::min(low[static_cast<size_t>(call.back())], low[static_cast<size_t>(v)]);
      }
      if (low[static_cast<size_t>(v)] != index[static_cast<size_t>(v)]) continue;
      // v roots a component: pop it.
      size_t size = 0;
      const size_t top = stack.size();
      while (stack[top - 1 - size] != v) ++size;
      ++size;
      for (size_t i = top - size; i < top; ++i) {
        on_stack[static_cast<size_t>(stack[i])] = 0;
        cycle[static_cast<size_t>(stack[i])] = size > 1 ? components : -1;
      }
      ++components;
      stack.resize(top - size);
    }
  }
  return w;
}

}  // namespace graphopt
