#include "baselines/heft.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <unordered_map>

namespace graphopt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The idle time of one processor: disjoint gaps [start, end), the last one endless,
// in a treap keyed by start whose nodes also keep the longest gap of their subtree.
// Answers "earliest start >= ready of a slot of this length" and records a slot as
// busy in O(log n) expected time.
class IdleSlots {
 public:
  IdleSlots() { root_ = NewNode(0.0, kInf); }

  // The earliest t >= ready such that [t, t + duration) lies in one gap.
  double EarliestStart(double ready, double duration) const {
    if (duration <= 0) return ready;
    const int32_t g = Floor(ready);
    if (g >= 0 && ready + duration <= nodes_[static_cast<size_t>(g)].end) return ready;
    const int32_t f = FirstFit(root_, ready, duration);
    GO_CHECK_MSG(f >= 0, "the last idle slot is endless");
    return nodes_[static_cast<size_t>(f)].start;
  }

  // Marks [start, start + duration) busy; it must lie in one gap.
  void Occupy(double start, double duration) {
    if (duration <= 0) return;
    const int32_t g = Floor(start);
    GO_CHECK(g >= 0);
    const double gap_start = nodes_[static_cast<size_t>(g)].start;
    const double gap_end = nodes_[static_cast<size_t>(g)].end;
    const double end = start + duration;
    GO_CHECK_MSG(end <= gap_end, "a busy slot must fit in an idle gap");
    int32_t left = -1, middle = -1, right = -1;
    Split(root_, gap_start, &left, &right);
    Split(right, std::nextafter(gap_start, kInf), &middle, &right);
    GO_CHECK(middle == g);
    int32_t pieces = -1;
    if (end < gap_end) pieces = NewNode(end, gap_end);
    if (start > gap_start) {
      // Reuse the removed node for the piece before the busy slot.
      Node& n = nodes_[static_cast<size_t>(g)];
      n.start = gap_start;
      n.end = start;
      n.left = n.right = -1;
      Update(g);
      pieces = Merge(g, pieces);
    }
    root_ = Merge(Merge(left, pieces), right);
  }

 private:
  struct Node {
    double start = 0, end = 0, max_len = 0;
    uint32_t priority = 0;
    int32_t left = -1, right = -1;
  };

  int32_t NewNode(double start, double end) {
    // xorshift32: deterministic treap priorities.
    seed_ ^= seed_ << 13;
    seed_ ^= seed_ >> 17;
    seed_ ^= seed_ << 5;
    Node n;
    n.start = start;
    n.end = end;
    n.max_len = end - start;
    n.priority = seed_;
    nodes_.push_back(n);
    return static_cast<int32_t>(nodes_.size()) - 1;
  }

  void Update(int32_t t) {
    Node& n = nodes_[static_cast<size_t>(t)];
    n.max_len = n.end - n.start;
    if (n.left >= 0) n.max_len = std::max(n.max_len, nodes_[static_cast<size_t>(n.left)].max_len);
    if (n.right >= 0) n.max_len = std::max(n.max_len, nodes_[static_cast<size_t>(n.right)].max_len);
  }

  // Splits t into the gaps starting before key (*l) and the others (*r).
  void Split(int32_t t, double key, int32_t* l, int32_t* r) {
    if (t < 0) {
      *l = *r = -1;
      return;
    }
    Node& n = nodes_[static_cast<size_t>(t)];
    if (n.start < key) {
      int32_t rl = -1;
      Split(n.right, key, &rl, r);
      nodes_[static_cast<size_t>(t)].right = rl;
      *l = t;
    } else {
      int32_t lr = -1;
      Split(n.left, key, l, &lr);
      nodes_[static_cast<size_t>(t)].left = lr;
      *r = t;
    }
    Update(t);
  }

  // Joins two treaps, every start in a before every start in b.
  int32_t Merge(int32_t a, int32_t b) {
    if (a < 0) return b;
    if (b < 0) return a;
    if (nodes_[static_cast<size_t>(a)].priority > nodes_[static_cast<size_t>(b)].priority) {
      const int32_t r = Merge(nodes_[static_cast<size_t>(a)].right, b);
      nodes_[static_cast<size_t>(a)].right = r;
      Update(a);
      return a;
    }
    const int32_t l = Merge(a, nodes_[static_cast<size_t>(b)].left);
    nodes_[static_cast<size_t>(b)].left = l;
    Update(b);
    return b;
  }

  // The gap with the largest start <= key, or -1.
  int32_t Floor(double key) const {
    int32_t t = root_, best = -1;
    while (t >= 0) {
      const Node& n = nodes_[static_cast<size_t>(t)];
      if (n.start <= key) {
        best = t;
        t = n.right;
      } else {
        t = n.left;
      }
    }
    return best;
  }

  // The leftmost gap in t starting after `after` that holds `duration`, or -1.
  int32_t FirstFit(int32_t t, double after, double duration) const {
    if (t < 0) return -1;
    const Node& n = nodes_[static_cast<size_t>(t)];
    if (n.max_len < duration) return -1;
    if (n.start <= after) return FirstFit(n.right, after, duration);
    const int32_t l = FirstFit(n.left, after, duration);
    if (l >= 0) return l;
    if (n.start + duration <= n.end) return t;
    return FirstFit(n.right, after, duration);
  }

  std::vector<Node> nodes_;
  int32_t root_ = -1;
  uint32_t seed_ = 2463534242u;
};

// Edges of a problem in compressed form: edge indices into problem.edges per task.
struct EdgeLists {
  std::vector<int32_t> succ_begin, succ, pred_begin, pred;
};

EdgeLists BuildEdgeLists(const HeftProblem& p) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  EdgeLists l;
  l.succ_begin.assign(n + 1, 0);
  l.pred_begin.assign(n + 1, 0);
  for (const HeftEdge& e : p.edges) {
    ++l.succ_begin[static_cast<size_t>(e.from) + 1];
    ++l.pred_begin[static_cast<size_t>(e.to) + 1];
  }
  for (size_t i = 0; i < n; ++i) {
    l.succ_begin[i + 1] += l.succ_begin[i];
    l.pred_begin[i + 1] += l.pred_begin[i];
  }
  l.succ.resize(p.edges.size());
  l.pred.resize(p.edges.size());
  std::vector<int32_t> sfill(l.succ_begin.begin(), l.succ_begin.end() - 1);
  std::vector<int32_t> pfill(l.pred_begin.begin(), l.pred_begin.end() - 1);
  for (size_t i = 0; i < p.edges.size(); ++i) {
    const HeftEdge& e = p.edges[i];
    l.succ[static_cast<size_t>(sfill[static_cast<size_t>(e.from)]++)] = static_cast<int32_t>(i);
    l.pred[static_cast<size_t>(pfill[static_cast<size_t>(e.to)]++)] = static_cast<int32_t>(i);
  }
  return l;
}

// Kahn's algorithm, lowest task first among the ready ones; shorter than num_tasks on a cycle.
std::vector<int32_t> TopologicalTasks(const HeftProblem& p, const EdgeLists& l) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  std::vector<int32_t> indegree(n);
  std::priority_queue<int32_t, std::vector<int32_t>, std::greater<int32_t>> ready;
  for (size_t i = 0; i < n; ++i) {
    indegree[i] = l.pred_begin[i + 1] - l.pred_begin[i];
    if (indegree[i] == 0) ready.push(static_cast<int32_t>(i));
  }
  std::vector<int32_t> order;
  order.reserve(n);
  while (!ready.empty()) {
    const int32_t t = ready.top();
    ready.pop();
    order.push_back(t);
    for (int32_t k = l.succ_begin[static_cast<size_t>(t)]; k < l.succ_begin[static_cast<size_t>(t) + 1]; ++k) {
      const int32_t s = p.edges[static_cast<size_t>(l.succ[static_cast<size_t>(k)])].to;
      if (--indegree[static_cast<size_t>(s)] == 0) ready.push(s);
    }
  }
  return order;
}

std::vector<double> RanksInOrder(const HeftProblem& p, const EdgeLists& l, const std::vector<int32_t>& topo) {
  // Mean latency and mean time per unit over the ordered pairs of distinct processors:
  // by linearity, mean CommTime(e) = messages x mean latency + data x mean time per unit.
  double mean_latency = 0, mean_tpu = 0;
  const int np = p.num_procs;
  if (np > 1) {
    for (int a = 0; a < np; ++a) {
      for (int b = 0; b < np; ++b) {
        if (a == b) continue;
        const size_t k = static_cast<size_t>(a * np + b);
        mean_latency += p.latency.empty() ? 0.0 : p.latency[k];
        mean_tpu += p.time_per_unit.empty() ? 1.0 : p.time_per_unit[k];
      }
    }
    const double pairs = static_cast<double>(np) * (np - 1);
    mean_latency /= pairs;
    mean_tpu /= pairs;
  }
  std::vector<double> rank(static_cast<size_t>(p.num_tasks), 0.0);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const int32_t t = *it;
    double w = 0;
    for (int q = 0; q < np; ++q) w += p.Cost(t, q);
    w /= np;
    double tail = 0;
    for (int32_t k = l.succ_begin[static_cast<size_t>(t)]; k < l.succ_begin[static_cast<size_t>(t) + 1]; ++k) {
      const HeftEdge& e = p.edges[static_cast<size_t>(l.succ[static_cast<size_t>(k)])];
      const double c = np > 1 ? e.messages * mean_latency + e.data * mean_tpu : 0.0;
      tail = std::max(tail, c + rank[static_cast<size_t>(e.to)]);
    }
    rank[static_cast<size_t>(t)] = w + tail;
  }
  return rank;
}

bool NonNegativeFinite(double x) { return std::isfinite(x) && x >= 0; }

}  // namespace

double HeftProblem::CommTime(const HeftEdge& e, int a, int b) const {
  if (a == b) return 0;
  const size_t k = static_cast<size_t>(a) * static_cast<size_t>(num_procs) + static_cast<size_t>(b);
  const double lat = latency.empty() ? 0.0 : latency[k];
  const double tpu = time_per_unit.empty() ? 1.0 : time_per_unit[k];
  return e.messages * lat + e.data * tpu;
}

Status ValidateHeftProblem(const HeftProblem& p) {
  if (p.num_tasks < 0) return InvalidArgument("HEFT: negative number of tasks");
  if (p.num_procs < 1) return InvalidArgument("HEFT: needs at least one processor");
  const size_t n = static_cast<size_t>(p.num_tasks), np = static_cast<size_t>(p.num_procs);
  if (p.cost.size() != n * np) {
    return InvalidArgument("HEFT: cost has " + std::to_string(p.cost.size()) +
                           " entries, expected tasks x processors = " + std::to_string(n * np));
  }
  for (size_t i = 0; i < p.cost.size(); ++i) {
    if (!NonNegativeFinite(p.cost[i])) {
      return InvalidArgument("HEFT: task " + std::to_string(i / np) +
                             " has a negative or non-finite cost on processor " + std::to_string(i % np));
    }
  }
  for (const auto* m : {&p.latency, &p.time_per_unit}) {
    if (!m->empty() && m->size() != np * np) {
      return InvalidArgument("HEFT: communication matrices must have processors^2 = " + std::to_string(np * np) +
                             " entries");
    }
    for (double x : *m) {
      if (!NonNegativeFinite(x)) return InvalidArgument("HEFT: negative or non-finite communication cost");
    }
  }
  for (size_t i = 0; i < p.edges.size(); ++i) {
    const HeftEdge& e = p.edges[i];
    if (e.from < 0 || e.from >= p.num_tasks || e.to < 0 || e.to >= p.num_tasks || e.from == e.to) {
      return InvalidArgument("HEFT: edge " + std::to_string(i) + " (" + std::to_string(e.from) + " -> " +
                             std::to_string(e.to) + ") has an endpoint out of range or is a self-loop");
    }
    if (!NonNegativeFinite(e.data) || !NonNegativeFinite(e.messages)) {
      return InvalidArgument("HEFT: edge " + std::to_string(i) + " has negative or non-finite data");
    }
  }
  if (!p.group.empty() && p.group.size() != n) return InvalidArgument("HEFT: group must have one entry per task");
  if (!p.deferred.empty() && p.deferred.size() != n)
    return InvalidArgument("HEFT: deferred must have one entry per task");
  for (size_t i = 0; i < p.group.size(); ++i) {
    if (p.group[i] < -1) return InvalidArgument("HEFT: task " + std::to_string(i) + " has a negative group id");
  }
  const EdgeLists l = BuildEdgeLists(p);
  for (size_t i = 0; i < p.deferred.size(); ++i) {
    if (!p.deferred[i]) continue;
    if (l.pred_begin[i + 1] != l.pred_begin[i]) {
      return InvalidArgument("HEFT: deferred task " + std::to_string(i) + " has predecessors");
    }
    for (size_t q = 0; q < np; ++q) {
      if (p.cost[i * np + q] != 0)
        return InvalidArgument("HEFT: deferred task " + std::to_string(i) + " has a non-zero cost");
    }
  }
  const std::vector<int32_t> topo = TopologicalTasks(p, l);
  if (topo.size() != n) {
    std::vector<char> done(n, 0);
    for (int32_t t : topo) done[static_cast<size_t>(t)] = 1;
    const size_t stuck = static_cast<size_t>(std::find(done.begin(), done.end(), 0) - done.begin());
    return InvalidArgument("HEFT: the task graph has a cycle (task " + std::to_string(stuck) + " is on or after one)");
  }
  return Status::Ok();
}

std::vector<double> HeftUpwardRanks(const HeftProblem& problem) {
  const EdgeLists l = BuildEdgeLists(problem);
  return RanksInOrder(problem, l, TopologicalTasks(problem, l));
}

StatusOr<HeftSchedule> ScheduleHeft(const HeftProblem& p) {
  GO_RETURN_IF_ERROR(ValidateHeftProblem(p));
  const size_t n = static_cast<size_t>(p.num_tasks);
  const int np = p.num_procs;
  const EdgeLists l = BuildEdgeLists(p);
  const std::vector<int32_t> topo = TopologicalTasks(p, l);

  HeftSchedule s;
  s.rank = RanksInOrder(p, l, topo);

  // Decreasing rank; ranks equal to 9 significant digits tie (so that rounding does
  // not decide between tasks of the same rank) and go in topological order. Ranks
  // never increase along an edge, so the order is topological.
  double max_rank = 0;
  for (double r : s.rank) max_rank = std::max(max_rank, r);
  const double quantum = max_rank > 0 ? max_rank * 1e-9 : 1.0;
  std::vector<double> key(n);
  std::vector<int32_t> topo_pos(n);
  for (size_t i = 0; i < n; ++i) key[i] = std::nearbyint(s.rank[i] / quantum);
  for (size_t i = 0; i < n; ++i) topo_pos[static_cast<size_t>(topo[i])] = static_cast<int32_t>(i);
  s.order = topo;
  std::stable_sort(s.order.begin(), s.order.end(), [&](int32_t a, int32_t b) {
    if (key[static_cast<size_t>(a)] != key[static_cast<size_t>(b)])
      return key[static_cast<size_t>(a)] > key[static_cast<size_t>(b)];
    return topo_pos[static_cast<size_t>(a)] < topo_pos[static_cast<size_t>(b)];
  });

  // Dense group ids and the processor each group is pinned to.
  std::vector<int32_t> group(n, -1);
  int32_t num_groups = 0;
  if (!p.group.empty()) {
    std::unordered_map<int32_t, int32_t> dense;
    for (size_t i = 0; i < n; ++i) {
      if (p.group[i] < 0) continue;
      auto it = dense.emplace(p.group[i], num_groups).first;
      if (it->second == num_groups) ++num_groups;
      group[i] = it->second;
    }
  }
  std::vector<int32_t> group_proc(static_cast<size_t>(num_groups), -1);
  auto is_deferred = [&](size_t t) { return !p.deferred.empty() && p.deferred[t] != 0; };
  // Where a task's output is: its processor, or for an unplaced deferred task its
  // group's processor, or -1 (it will be placed with the consumer asking).
  s.proc.assign(n, -1);
  s.start.assign(n, 0.0);
  s.finish.assign(n, 0.0);
  auto location = [&](int32_t t) -> int32_t {
    if (s.proc[static_cast<size_t>(t)] >= 0) return s.proc[static_cast<size_t>(t)];
    const int32_t g = group[static_cast<size_t>(t)];
    return g >= 0 ? group_proc[static_cast<size_t>(g)] : -1;
  };

  std::vector<IdleSlots> slots(static_cast<size_t>(np));
  std::vector<double> ready(static_cast<size_t>(np));
  for (int32_t t : s.order) {
    const size_t ti = static_cast<size_t>(t);
    if (is_deferred(ti)) continue;  // placed with its group or its first consumer
    std::fill(ready.begin(), ready.end(), 0.0);
    for (int32_t k = l.pred_begin[ti]; k < l.pred_begin[ti + 1]; ++k) {
      const HeftEdge& e = p.edges[static_cast<size_t>(l.pred[static_cast<size_t>(k)])];
      const int32_t from = location(e.from);
      GO_CHECK_MSG(from >= 0 || is_deferred(static_cast<size_t>(e.from)), "HEFT order must be topological");
      const double done = s.finish[static_cast<size_t>(e.from)];
      for (int q = 0; q < np; ++q) {
        const double arrive = from < 0 ? done : done + p.CommTime(e, from, q);
        ready[static_cast<size_t>(q)] = std::max(ready[static_cast<size_t>(q)], arrive);
      }
    }
    const int32_t g = group[ti];
    const int32_t pinned = g >= 0 ? group_proc[static_cast<size_t>(g)] : -1;
    int32_t best = -1;
    double best_start = 0, best_finish = kInf;
    for (int q = 0; q < np; ++q) {
      if (pinned >= 0 && q != pinned) continue;
      const double w = p.Cost(t, q);
      const double st = slots[static_cast<size_t>(q)].EarliestStart(ready[static_cast<size_t>(q)], w);
      if (st + w < best_finish) {
        best = q;
        best_start = st;
        best_finish = st + w;
      }
    }
    GO_CHECK(best >= 0);
    s.proc[ti] = best;
    s.start[ti] = best_start;
    s.finish[ti] = best_finish;
    slots[static_cast<size_t>(best)].Occupy(best_start, p.Cost(t, best));
    if (g >= 0 && pinned < 0) group_proc[static_cast<size_t>(g)] = best;
    // Deferred producers not placed yet follow their group or this consumer.
    for (int32_t k = l.pred_begin[ti]; k < l.pred_begin[ti + 1]; ++k) {
      const int32_t u = p.edges[static_cast<size_t>(l.pred[static_cast<size_t>(k)])].from;
      if (s.proc[static_cast<size_t>(u)] >= 0) continue;
      const int32_t at = location(u);
      s.proc[static_cast<size_t>(u)] = at >= 0 ? at : best;
      const int32_t gu = group[static_cast<size_t>(u)];
      if (gu >= 0 && group_proc[static_cast<size_t>(gu)] < 0) group_proc[static_cast<size_t>(gu)] = best;
    }
  }
  // Deferred tasks that no scheduled task consumed.
  for (int32_t t : s.order) {
    const size_t ti = static_cast<size_t>(t);
    if (s.proc[ti] >= 0) continue;
    const int32_t at = location(t);
    s.proc[ti] = at >= 0 ? at : 0;
    if (group[ti] >= 0 && group_proc[static_cast<size_t>(group[ti])] < 0)
      group_proc[static_cast<size_t>(group[ti])] = s.proc[ti];
  }
  for (double f : s.finish) s.makespan = std::max(s.makespan, f);
  return s;
}

}  // namespace graphopt
