// The event-driven list scheduler of m-ETF and m-SCT (baselines/baechi.h), after
// "Baechi: Fast Device Placement of Machine Learning Graphs" (SoCC 2020).
//
// Time advances from event to event (a task ends, a transfer lands, memory frees).
// At each time every idle processor proposes a task: m-ETF the ready task that can
// start there first; m-SCT the same, unless the processor's last task has a
// favourite child that is ready, unplaced and starts there as early as anywhere: then
// it proposes an urgent task (its latest start over the processors has come), else
// the favourite child once it can start, else nothing (it waits for it). Of the
// proposals, the earliest start (ties: topological position, then processor) is
// scheduled; proposals are made again until no idle processor has one.
//
// A ready task's start on a processor is estimated as the paper's code does: its
// inputs from each producer on another processor sent together, after the
// producer's end and once the sender's and the receiver's channels are free; the
// task once scheduled sends them one by one, which moves both channels. Estimates
// are cached per task and processor and recomputed when a channel they read moves,
// when a deferred producer is placed or when a group is decided.
//
// With routes (BaechiProblem::route, the variant that sees the cluster's ports), a
// transfer from a to b holds every resource of route(a, b) for its whole duration
// instead of the two processors' channels: it starts once the producer has ended and
// all of them are free, and frees them all when it lands (the simulator's rule for
// links and ports, sim/cluster.h). Pinned tasks (BaechiProblem::pinned) are allowed
// on their processor only: with every task pinned, the scheduler is the estimate of
// a given placement (the ready task that can start first runs first).
#include <algorithm>
#include <limits>
#include <map>
#include <queue>
#include <utility>

#include "baselines/baechi_dag.h"

namespace graphopt {
namespace baechi_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class ListScheduler {
 public:
  ListScheduler(const BaechiProblem& p, const TaskDag& dag, const std::vector<int32_t>* favourite)
      : p_(p), dag_(dag), fav_(favourite), n_(p.num_tasks), np_(p.num_procs) {}

  BaechiSchedule Run();

 private:
  struct Entry {
    double dry = 0;    // estimated ready time (inputs present)
    int64_t need = 0;  // bytes the task would allocate there
    bool valid = false;
    bool transfers = false;  // the estimate reads channels
  };

  size_t At(int task, int proc) const {
    return static_cast<size_t>(task) * static_cast<size_t>(np_) + static_cast<size_t>(proc);
  }
  size_t TensorAt(int tensor, int proc) const {
    return static_cast<size_t>(tensor) * static_cast<size_t>(np_) + static_cast<size_t>(proc);
  }
  int32_t GroupProc(int task) const {
    const int32_t g = GroupOf(p_, task);
    return g < 0 ? -1 : group_proc_[static_cast<size_t>(g)];
  }
  bool IsPlaced(int task) const { return proc_[static_cast<size_t>(task)] >= 0 || GroupProc(task) >= 0; }
  int32_t PinOf(int task) const { return p_.pinned.empty() ? -1 : p_.pinned[static_cast<size_t>(task)]; }
  bool Allowed(int task, int proc) const {
    const int32_t pin = PinOf(task);
    if (pin >= 0 && pin != proc) return false;
    const int32_t gp = GroupProc(task);
    return gp < 0 || gp == proc;
  }
  // Where producer u is (or will be, if deferred and unplaced) when its reader goes to `proc`.
  int32_t EffectiveProc(int u, int proc) const {
    if (proc_[static_cast<size_t>(u)] >= 0) return proc_[static_cast<size_t>(u)];
    if (PinOf(u) >= 0) return PinOf(u);
    const int32_t gp = GroupProc(u);
    return gp >= 0 ? gp : proc;
  }
  bool Routed() const { return !p_.route.empty(); }
  const std::vector<int32_t>& Route(int a, int b) const {
    return p_.route[static_cast<size_t>(a) * static_cast<size_t>(np_) + static_cast<size_t>(b)];
  }
  // When every resource of route(a, b) is free (routes only).
  double RouteFree(int a, int b) const {
    double t = 0;
    for (int32_t r : Route(a, b)) t = std::max(t, resource_free_[static_cast<size_t>(r)]);
    return t;
  }
  bool Feasible(int task, int proc) const {
    return usage_[static_cast<size_t>(proc)] + entries_[At(task, proc)].need <= CapacityOf(p_, proc);
  }
  // Start time of a ready task on a processor (kInf if not allowed or no room).
  double Sched(int task, int proc) const {
    if (!Allowed(task, proc) || !Feasible(task, proc)) return kInf;
    return std::max(entries_[At(task, proc)].dry, avail_[static_cast<size_t>(proc)]);
  }
  // Latest start over the processors where the task can go (kInf if none).
  double Urgent(int task) const {
    double u = -kInf;
    for (int d = 0; d < np_; ++d) {
      const double s = Sched(task, d);
      if (s < kInf) u = std::max(u, s);
    }
    return u == -kInf ? kInf : u;
  }
  bool Before(double ts_a, int a, double ts_b, int b) const {
    if (ts_a != ts_b) return ts_a < ts_b;
    return dag_.rank[static_cast<size_t>(a)] < dag_.rank[static_cast<size_t>(b)];
  }

  void Compute(int task, int proc);
  void RefreshEntries();
  void Invalidate(const std::vector<int32_t>& changed);
  void ComputeSenders(int task);
  void AddReady(int task);
  void Release(double t);
  void ApplyFrees(double t);
  void Allocate(int proc, int64_t bytes);
  void AddResidentOf(int task, int proc);
  void PlaceTask(int task, int proc);
  void ScheduleFrees(int tensor);
  void Commit(int task, int proc);
  // The proposal of an idle processor at time t: (task, start), or task -1; sets awake_.
  std::pair<int, double> Propose(int proc, double t);
  double NextTime(double t);

  const BaechiProblem& p_;
  const TaskDag& dag_;
  const std::vector<int32_t>* fav_;
  const int n_, np_;

  std::vector<int32_t> proc_, group_proc_, pred_count_, last_op_, remaining_;
  std::vector<uint8_t> in_ready_, resident_counted_, awake_;
  std::vector<double> start_, finish_, avail_, channel_, arrival_, last_use_, resource_free_;
  std::vector<uint8_t> pair_dirty_;  // routes: the pairs whose route a commit moved
  std::vector<int64_t> usage_, peak_, out_memory_, group_resident_;
  std::vector<std::map<double, int64_t>> pending_free_;
  std::vector<Entry> entries_;
  std::vector<std::vector<int32_t>> senders_;
  std::vector<int32_t> ready_;
  std::priority_queue<std::pair<double, int32_t>, std::vector<std::pair<double, int32_t>>, std::greater<>> ends_;
  bool global_event_ = false;
  bool fits_ = true;
  int committed_ = 0;
};

void ListScheduler::Compute(int task, int proc) {
  Entry& e = entries_[At(task, proc)];
  e = Entry{};
  e.valid = true;
  e.need = out_memory_[static_cast<size_t>(task)];
  std::vector<int32_t> groups;  // undecided groups counted in `need`
  auto add_resident = [&](int x) {
    const int32_t g = GroupOf(p_, x);
    if (g < 0) {
      if (!resident_counted_[static_cast<size_t>(x)]) e.need += ResidentOf(p_, x);
    } else if (group_proc_[static_cast<size_t>(g)] < 0 && std::find(groups.begin(), groups.end(), g) == groups.end()) {
      groups.push_back(g);
      e.need += group_resident_[static_cast<size_t>(g)];
    }
  };
  add_resident(task);
  for (const InEdge& in : dag_.in[static_cast<size_t>(task)]) {
    const int u = in.producer;
    const int pu = EffectiveProc(u, proc);
    const bool placed = proc_[static_cast<size_t>(u)] >= 0;
    if (!placed && pu == proc) {  // a deferred producer that comes along
      e.need += out_memory_[static_cast<size_t>(u)];
      add_resident(u);
      continue;
    }
    const double end = placed ? finish_[static_cast<size_t>(u)] : 0.0;
    if (pu == proc) {
      e.dry = std::max(e.dry, end);
      continue;
    }
    double ready = 0, cost = 0;
    bool send = false;
    for (int32_t t : in.tensors) {
      const double arrived = arrival_[TensorAt(t, proc)];
      if (arrived >= 0) {
        ready = std::max(ready, arrived);
      } else {
        cost += p_.TransferTime(p_.tensors[static_cast<size_t>(t)].bytes, pu, proc);
        e.need += p_.tensors[static_cast<size_t>(t)].bytes;
        send = true;
      }
    }
    if (send && Routed()) {
      ready = std::max(ready, std::max(end, RouteFree(pu, proc)) + cost);
    } else if (send) {
      const double send_start = std::max(end, channel_[static_cast<size_t>(pu)]);
      const double recv_start = std::max(send_start, channel_[static_cast<size_t>(proc)]);
      ready = std::max(ready, recv_start + cost);
    }
    e.transfers = true;
    e.dry = std::max(e.dry, ready);
  }
}

void ListScheduler::ComputeSenders(int task) {
  std::vector<int32_t>& s = senders_[static_cast<size_t>(task)];
  s.clear();
  for (const InEdge& in : dag_.in[static_cast<size_t>(task)]) {
    int32_t q = proc_[static_cast<size_t>(in.producer)];
    if (q < 0) q = GroupProc(in.producer);
    if (q >= 0 && std::find(s.begin(), s.end(), q) == s.end()) s.push_back(q);
  }
}

void ListScheduler::RefreshEntries() {
  for (int32_t w : ready_) {
    if (global_event_) ComputeSenders(w);
    const int32_t pin = PinOf(w);
    for (int d = 0; d < np_; ++d) {
      if (pin >= 0 && d != pin) continue;  // never read (not allowed)
      if (global_event_ || !entries_[At(w, d)].valid) Compute(w, d);
    }
  }
  global_event_ = false;
}

void ListScheduler::Invalidate(const std::vector<int32_t>& changed) {
  if (changed.empty()) return;
  if (Routed()) {  // `changed` lists resources: the entries reading a route through one
    std::fill(pair_dirty_.begin(), pair_dirty_.end(), 0);
    for (int a = 0; a < np_; ++a) {
      for (int b = 0; b < np_; ++b) {
        for (int32_t r : Route(a, b)) {
          if (std::find(changed.begin(), changed.end(), r) != changed.end()) {
            pair_dirty_[static_cast<size_t>(a * np_ + b)] = 1;
            break;
          }
        }
      }
    }
    for (int32_t w : ready_) {
      const auto& s = senders_[static_cast<size_t>(w)];
      for (int d = 0; d < np_; ++d) {
        Entry& e = entries_[At(w, d)];
        if (!e.transfers) continue;
        for (int32_t q : s) {
          if (pair_dirty_[static_cast<size_t>(q * np_ + d)]) {
            e.valid = false;
            break;
          }
        }
      }
    }
    return;
  }
  for (int32_t w : ready_) {
    const auto& s = senders_[static_cast<size_t>(w)];
    const bool sender_moved = std::any_of(
        s.begin(), s.end(), [&](int32_t q) { return std::find(changed.begin(), changed.end(), q) != changed.end(); });
    for (int d = 0; d < np_; ++d) {
      Entry& e = entries_[At(w, d)];
      if (!e.transfers) continue;
      if (sender_moved || std::find(changed.begin(), changed.end(), d) != changed.end()) e.valid = false;
    }
  }
}

void ListScheduler::AddReady(int task) {
  in_ready_[static_cast<size_t>(task)] = 1;
  ready_.push_back(task);
  ComputeSenders(task);
  for (int d = 0; d < np_; ++d) entries_[At(task, d)].valid = false;
}

void ListScheduler::Release(double t) {
  while (!ends_.empty() && ends_.top().first <= t) {
    const int v = ends_.top().second;
    ends_.pop();
    for (int32_t s : dag_.succs[static_cast<size_t>(v)]) {
      if (--pred_count_[static_cast<size_t>(s)] == 0) AddReady(s);
    }
  }
}

void ListScheduler::ApplyFrees(double t) {
  for (int d = 0; d < np_; ++d) {
    auto& pending = pending_free_[static_cast<size_t>(d)];
    while (!pending.empty() && pending.begin()->first <= t) {
      usage_[static_cast<size_t>(d)] -= pending.begin()->second;
      pending.erase(pending.begin());
    }
  }
}

void ListScheduler::Allocate(int proc, int64_t bytes) {
  int64_t& u = usage_[static_cast<size_t>(proc)];
  u += bytes;
  peak_[static_cast<size_t>(proc)] = std::max(peak_[static_cast<size_t>(proc)], u);
  if (u > CapacityOf(p_, proc)) fits_ = false;
}

// Counts the resident bytes the task brings to `proc`: its own, or its whole group's
// when the task decides the group.
void ListScheduler::AddResidentOf(int task, int proc) {
  const int32_t g = GroupOf(p_, task);
  if (g < 0) {
    if (!resident_counted_[static_cast<size_t>(task)]) Allocate(proc, ResidentOf(p_, task));
    resident_counted_[static_cast<size_t>(task)] = 1;
    return;
  }
  if (group_proc_[static_cast<size_t>(g)] >= 0) return;
  group_proc_[static_cast<size_t>(g)] = proc;
  Allocate(proc, group_resident_[static_cast<size_t>(g)]);
  global_event_ = true;
}

void ListScheduler::PlaceTask(int task, int proc) {
  proc_[static_cast<size_t>(task)] = proc;
  AddResidentOf(task, proc);
}

// Once every reader of the tensor is scheduled: its memory on every processor that
// holds it frees when the last reader there (and, on the producer's, the last send) ends.
void ListScheduler::ScheduleFrees(int tensor) {
  const BaechiTensor& t = p_.tensors[static_cast<size_t>(tensor)];
  const int home = proc_[static_cast<size_t>(t.producer)];
  for (int q = 0; q < np_; ++q) {
    if (q == home) {
      if (t.memory == 0) continue;
      const double when = std::max(last_use_[TensorAt(tensor, q)], finish_[static_cast<size_t>(t.producer)]);
      pending_free_[static_cast<size_t>(q)][when] += t.memory;
    } else if (arrival_[TensorAt(tensor, q)] >= 0 && t.bytes > 0) {
      const double when = std::max(last_use_[TensorAt(tensor, q)], arrival_[TensorAt(tensor, q)]);
      pending_free_[static_cast<size_t>(q)][when] += t.bytes;
    }
  }
}

void ListScheduler::Commit(int task, int proc) {
  const size_t v = static_cast<size_t>(task);
  PlaceTask(task, proc);
  for (const InEdge& in : dag_.in[v]) {
    const int u = in.producer;
    if (proc_[static_cast<size_t>(u)] >= 0) continue;
    // A deferred producer: placed with its group, or with this task.
    const int q = EffectiveProc(u, proc);
    PlaceTask(u, q);
    global_event_ = true;
    Allocate(q, out_memory_[static_cast<size_t>(u)]);
    for (int32_t t : dag_.outputs[static_cast<size_t>(u)]) {
      if (p_.tensors[static_cast<size_t>(t)].consumers.empty()) ScheduleFrees(t);
    }
  }
  std::vector<int32_t> changed;
  double ready = 0;
  for (const InEdge& in : dag_.in[v]) {
    const int u = in.producer;
    const int pu = proc_[static_cast<size_t>(u)];
    const double end = finish_[static_cast<size_t>(u)];
    if (pu == proc) {
      ready = std::max(ready, end);
      continue;
    }
    for (int32_t t : in.tensors) {
      double& arrived = arrival_[TensorAt(t, proc)];
      if (arrived >= 0) {
        ready = std::max(ready, arrived);
        continue;
      }
      const int64_t bytes = p_.tensors[static_cast<size_t>(t)].bytes;
      const double c = p_.TransferTime(bytes, pu, proc);
      if (Routed()) {
        const double begin = std::max(end, RouteFree(pu, proc));
        for (int32_t r : Route(pu, proc)) {
          resource_free_[static_cast<size_t>(r)] = begin + c;
          if (std::find(changed.begin(), changed.end(), r) == changed.end()) changed.push_back(r);
        }
        arrived = begin + c;
        double& sent = last_use_[TensorAt(t, pu)];
        sent = std::max(sent, begin + c);
        Allocate(proc, bytes);
        ready = std::max(ready, arrived);
        continue;
      }
      const double send_start = std::max(end, channel_[static_cast<size_t>(pu)]);
      channel_[static_cast<size_t>(pu)] = send_start + c;
      const double recv_start = std::max(send_start, channel_[static_cast<size_t>(proc)]);
      channel_[static_cast<size_t>(proc)] = recv_start + c;
      arrived = recv_start + c;
      double& sent = last_use_[TensorAt(t, pu)];
      sent = std::max(sent, send_start + c);
      Allocate(proc, bytes);
      ready = std::max(ready, arrived);
      for (int32_t q : {static_cast<int32_t>(pu), static_cast<int32_t>(proc)}) {
        if (std::find(changed.begin(), changed.end(), q) == changed.end()) changed.push_back(q);
      }
    }
  }
  const double start = std::max(avail_[static_cast<size_t>(proc)], ready);
  const double end = start + p_.Cost(task, proc);
  start_[v] = start;
  finish_[v] = end;
  avail_[static_cast<size_t>(proc)] = end;
  last_op_[static_cast<size_t>(proc)] = task;
  Allocate(proc, out_memory_[v]);
  for (const InEdge& in : dag_.in[v]) {
    for (int32_t t : in.tensors) {
      double& used = last_use_[TensorAt(t, proc)];
      used = std::max(used, end);
      if (--remaining_[static_cast<size_t>(t)] == 0) ScheduleFrees(t);
    }
  }
  for (int32_t t : dag_.outputs[v]) {
    if (p_.tensors[static_cast<size_t>(t)].consumers.empty()) ScheduleFrees(t);
  }
  in_ready_[v] = 0;
  ready_.erase(std::find(ready_.begin(), ready_.end(), task));
  ends_.emplace(end, task);
  ++committed_;
  Invalidate(changed);
}

std::pair<int, double> ListScheduler::Propose(int proc, double t) {
  awake_[static_cast<size_t>(proc)] = 0;
  const int last = last_op_[static_cast<size_t>(proc)];
  if (fav_ != nullptr && last >= 0) {
    const int fc = (*fav_)[static_cast<size_t>(last)];
    if (fc >= 0 && in_ready_[static_cast<size_t>(fc)] && !IsPlaced(fc)) {
      const double here = Sched(fc, proc);
      double best = kInf;
      for (int d = 0; d < np_; ++d) best = std::min(best, Sched(fc, d));
      if (here < kInf && here == best) {
        awake_[static_cast<size_t>(proc)] = 1;
        int urgent = -1;
        double urgent_ts = kInf;
        for (int32_t w : ready_) {
          if (!Allowed(w, proc) || !Feasible(w, proc)) continue;
          const double u = Urgent(w);
          if (urgent < 0 || Before(u, w, urgent_ts, urgent)) urgent = w, urgent_ts = u;
        }
        if (urgent >= 0 && urgent_ts <= t) return {urgent, Sched(urgent, proc)};
        if (here <= t) return {fc, here};
        return {-1, kInf};
      }
    }
  }
  int best = -1;
  double best_ts = kInf;
  for (int32_t w : ready_) {
    const double s = Sched(w, proc);
    if (s < kInf && (best < 0 || Before(s, w, best_ts, best))) best = w, best_ts = s;
  }
  if (best >= 0 && best_ts <= t) return {best, best_ts};
  return {-1, kInf};
}

double ListScheduler::NextTime(double t) {
  double next = kInf;
  auto consider = [&](double x) {
    if (x > t) next = std::min(next, x);
  };
  if (!ends_.empty()) consider(ends_.top().first);
  for (int d = 0; d < np_; ++d) {
    if (avail_[static_cast<size_t>(d)] > t) {
      consider(avail_[static_cast<size_t>(d)]);
      continue;
    }
    const bool awake = awake_[static_cast<size_t>(d)] != 0;
    const int fc = awake ? (*fav_)[static_cast<size_t>(last_op_[static_cast<size_t>(d)])] : -1;
    if (awake) consider(Sched(fc, d));
    for (int32_t w : ready_) {
      if (awake) {
        if (Allowed(w, d) && Feasible(w, d)) consider(Urgent(w));
      } else {
        consider(Sched(w, d));
      }
    }
  }
  return next;
}

BaechiSchedule ListScheduler::Run() {
  const size_t n = static_cast<size_t>(n_), np = static_cast<size_t>(np_);
  const size_t nt = p_.tensors.size();
  proc_.assign(n, -1);
  group_proc_.assign(static_cast<size_t>(NumGroups(p_)), -1);
  pred_count_.assign(n, 0);
  last_op_.assign(np, -1);
  remaining_.assign(nt, 0);
  in_ready_.assign(n, 0);
  resident_counted_.assign(n, 0);
  awake_.assign(np, 0);
  start_.assign(n, 0.0);
  finish_.assign(n, 0.0);
  avail_.assign(np, 0.0);
  channel_.assign(np, 0.0);
  int32_t num_resources = 0;
  for (const auto& r : p_.route) {
    for (int32_t x : r) num_resources = std::max(num_resources, x + 1);
  }
  resource_free_.assign(static_cast<size_t>(num_resources), 0.0);
  pair_dirty_.assign(Routed() ? np * np : 0, 0);
  arrival_.assign(nt * np, -1.0);
  last_use_.assign(nt * np, 0.0);
  usage_.assign(np, 0);
  peak_.assign(np, 0);
  out_memory_.assign(n, 0);
  group_resident_.assign(group_proc_.size(), 0);
  pending_free_.assign(np, {});
  entries_.assign(n * np, Entry{});
  senders_.assign(n, {});
  for (size_t t = 0; t < nt; ++t) {
    const BaechiTensor& x = p_.tensors[t];
    out_memory_[static_cast<size_t>(x.producer)] += x.memory;
    remaining_[t] = static_cast<int32_t>(x.consumers.size());
  }
  for (int v = 0; v < n_; ++v) {
    const int32_t g = GroupOf(p_, v);
    if (g >= 0) group_resident_[static_cast<size_t>(g)] += ResidentOf(p_, v);
  }
  int to_schedule = 0;
  for (int v : dag_.order) {
    if (IsDeferred(p_, v)) continue;
    ++to_schedule;
    for (const InEdge& in : dag_.in[static_cast<size_t>(v)]) {
      if (!IsDeferred(p_, in.producer)) ++pred_count_[static_cast<size_t>(v)];
    }
    if (pred_count_[static_cast<size_t>(v)] == 0) AddReady(v);
  }

  double t = 0;
  while (committed_ < to_schedule) {
    Release(t);
    ApplyFrees(t);
    while (true) {
      RefreshEntries();
      int best = -1, best_proc = -1;
      double best_ts = kInf;
      for (int d = 0; d < np_; ++d) {
        if (avail_[static_cast<size_t>(d)] > t) continue;
        const auto [w, ts] = Propose(d, t);
        if (w >= 0 && (best < 0 || Before(ts, w, best_ts, best))) best = w, best_proc = d, best_ts = ts;
      }
      if (best < 0) break;
      Commit(best, best_proc);
      Release(t);
      ApplyFrees(t);
    }
    if (committed_ == to_schedule) break;
    const double next = NextTime(t);
    if (next < kInf) {
      t = next;
      continue;
    }
    // Nothing can start now or later as memory stands: wait for memory to free, or
    // else place the ready task where it overflows least.
    double free_at = kInf;
    for (const auto& pending : pending_free_) {
      if (!pending.empty()) free_at = std::min(free_at, pending.begin()->first);
    }
    if (free_at < kInf) {
      t = std::max(t, free_at);
      continue;
    }
    GO_CHECK_MSG(!ready_.empty(), "Baechi list scheduler: no ready task (the DAG was validated)");
    int best = -1, best_proc = -1;
    int64_t best_over = 0;
    double best_ts = kInf;
    for (int32_t w : ready_) {
      for (int d = 0; d < np_; ++d) {
        if (!Allowed(w, d)) continue;
        const int64_t over = usage_[static_cast<size_t>(d)] + entries_[At(w, d)].need - CapacityOf(p_, d);
        const double ts = std::max(entries_[At(w, d)].dry, avail_[static_cast<size_t>(d)]);
        if (best < 0 || over < best_over || (over == best_over && Before(ts, w, best_ts, best))) {
          best = w, best_proc = d, best_over = over, best_ts = ts;
        }
      }
    }
    fits_ = false;
    Commit(best, best_proc);
  }

  // Deferred tasks nobody scheduled reads: with their group, else on processor 0.
  for (int v = 0; v < n_; ++v) {
    if (proc_[static_cast<size_t>(v)] >= 0) continue;
    const int32_t gp = GroupProc(v);
    const int q = PinOf(v) >= 0 ? PinOf(v) : gp >= 0 ? gp : 0;
    PlaceTask(v, q);
    Allocate(q, out_memory_[static_cast<size_t>(v)]);
  }

  BaechiSchedule s;
  s.proc = proc_;
  s.start = start_;
  s.finish = finish_;
  for (double f : finish_) s.makespan = std::max(s.makespan, f);
  s.peak_memory = peak_;
  s.fits = fits_;
  return s;
}

}  // namespace

BaechiSchedule ListSchedule(const BaechiProblem& problem, const TaskDag& dag, const std::vector<int32_t>* favourite) {
  return ListScheduler(problem, dag, favourite).Run();
}

}  // namespace baechi_internal
}  // namespace graphopt
