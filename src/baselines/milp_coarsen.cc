// The coarsening of the exact program's problem (baselines/milp.h): bands of equal
// cheapest work in earliest-start order, groups by (band, label) kept acyclic, and the
// problem of the groups.
#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "baselines/baechi_dag.h"
#include "baselines/milp.h"

namespace graphopt {
namespace {

using baechi_internal::GroupOf;
using baechi_internal::InEdge;
using baechi_internal::IsDeferred;
using baechi_internal::ResidentOf;
using baechi_internal::TaskDag;

double CheapestCost(const BaechiProblem& p, int task) {
  double best = std::numeric_limits<double>::infinity();
  for (int q = 0; q < p.num_procs; ++q) best = std::min(best, p.Cost(task, q));
  return best;
}

// Groups of the scheduled tasks for `bands` bands; -1 for deferred tasks.
std::vector<int32_t> GroupTasks(const BaechiProblem& p, const TaskDag& dag, const std::vector<int32_t>& sorted,
                                const std::vector<double>& cheapest, const std::vector<int32_t>& labels, int bands,
                                int* num_groups) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  double total = 0;
  for (int32_t v : sorted) total += cheapest[static_cast<size_t>(v)];
  std::vector<int32_t> band(n, 0);
  double done = 0;
  for (int32_t v : sorted) {
    // The band of the task's midpoint in the cumulative work.
    const double mid = done + cheapest[static_cast<size_t>(v)] / 2;
    band[static_cast<size_t>(v)] =
        total > 0 ? std::min(bands - 1, static_cast<int>(mid / total * bands)) : 0;
    done += cheapest[static_cast<size_t>(v)];
  }
  std::vector<int32_t> group(n, -1);
  std::map<std::pair<int32_t, int32_t>, int32_t> latest;  // (band, label) -> its latest group
  int32_t next = 0;
  for (int32_t v : dag.order) {
    if (IsDeferred(p, v)) continue;
    int32_t after = -1;  // the latest group of a predecessor
    for (const InEdge& in : dag.in[static_cast<size_t>(v)]) after = std::max(after, group[static_cast<size_t>(in.producer)]);
    const auto key = std::make_pair(band[static_cast<size_t>(v)], labels[static_cast<size_t>(v)]);
    auto it = latest.find(key);
    if (it != latest.end() && it->second >= after) {
      group[static_cast<size_t>(v)] = it->second;
    } else {
      group[static_cast<size_t>(v)] = next;
      latest[key] = next++;
    }
  }
  *num_groups = next;
  return group;
}

}  // namespace

StatusOr<MilpCoarsening> CoarsenForMilp(const BaechiProblem& p, const std::vector<std::vector<int32_t>>& label_sets,
                                        int max_groups) {
  GO_RETURN_IF_ERROR(ValidateBaechiProblem(p));
  const size_t n = static_cast<size_t>(p.num_tasks);
  for (const std::vector<int32_t>& labels : label_sets) {
    if (labels.size() != n) {
      return InvalidArgument("exact program: " + std::to_string(labels.size()) + " labels for " + std::to_string(n) +
                             " tasks");
    }
  }
  if (max_groups < 1) return InvalidArgument("exact program: at most " + std::to_string(max_groups) + " groups");
  const TaskDag dag = baechi_internal::BuildTaskDag(p);

  // Earliest starts with the cheapest costs, no transfers.
  std::vector<double> cheapest(n, 0), earliest(n, 0);
  for (size_t v = 0; v < n; ++v) cheapest[v] = IsDeferred(p, static_cast<int>(v)) ? 0 : CheapestCost(p, static_cast<int>(v));
  for (int32_t v : dag.order) {
    for (const InEdge& in : dag.in[static_cast<size_t>(v)]) {
      const size_t u = static_cast<size_t>(in.producer);
      earliest[static_cast<size_t>(v)] = std::max(earliest[static_cast<size_t>(v)], earliest[u] + cheapest[u]);
    }
  }
  std::vector<int32_t> sorted;
  for (int32_t v : dag.order) {
    if (!IsDeferred(p, v)) sorted.push_back(v);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [&](int32_t a, int32_t b) {
    if (earliest[static_cast<size_t>(a)] != earliest[static_cast<size_t>(b)])
      return earliest[static_cast<size_t>(a)] < earliest[static_cast<size_t>(b)];
    return dag.rank[static_cast<size_t>(a)] < dag.rank[static_cast<size_t>(b)];
  });

  // The first label set that keeps within max_groups with one band (the last resort:
  // no labels, one group per band); then the most bands that keep within it (the
  // count grows with the bands; a binary search).
  std::vector<std::vector<int32_t>> sets = label_sets;
  sets.emplace_back(n, 0);
  int num_groups = 0;
  std::vector<int32_t> group;
  size_t chosen = 0;
  for (; chosen < sets.size(); ++chosen) {
    group = GroupTasks(p, dag, sorted, cheapest, sets[chosen], 1, &num_groups);
    if (num_groups <= max_groups) break;
  }
  const std::vector<int32_t>& labels = sets[chosen];
  int lo = 1, hi = std::max(1, std::min<int>(max_groups, static_cast<int>(sorted.size())));
  int best_bands = lo;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    int count = 0;
    std::vector<int32_t> g = GroupTasks(p, dag, sorted, cheapest, labels, mid, &count);
    if (count <= max_groups) {
      lo = mid;
      best_bands = mid;
      group = std::move(g);
      num_groups = count;
    } else {
      hi = mid - 1;
    }
  }
  if (num_groups == 0) num_groups = 1;  // only deferred tasks: one group holds them

  // Deferred tasks: with their earliest reader's group, else their colocation group's,
  // else group 0.
  std::map<int32_t, int32_t> group_of_colocation;
  for (int32_t v : dag.order) {
    const int32_t c = GroupOf(p, v);
    if (c >= 0 && group[static_cast<size_t>(v)] >= 0 && group_of_colocation.count(c) == 0)
      group_of_colocation[c] = group[static_cast<size_t>(v)];
  }
  for (size_t v = 0; v < n; ++v) {
    if (group[v] >= 0) continue;
    // The earliest group of its readers: its tensors then leave for later groups only.
    int32_t best = -1;
    for (int32_t s : dag.succs[v]) {
      const int32_t g = group[static_cast<size_t>(s)];
      if (g >= 0 && (best < 0 || g < best)) best = g;
    }
    if (best < 0) {
      const auto it = group_of_colocation.find(GroupOf(p, static_cast<int>(v)));
      best = it != group_of_colocation.end() ? it->second : 0;
    }
    group[v] = best;
  }

  // The problem of the groups: costs and resident bytes summed, colocation classes
  // joined (two groups holding one colocation group are one class), the tensors that
  // leave their group.
  const size_t m = static_cast<size_t>(num_groups);
  const int np = p.num_procs;
  std::vector<int32_t> parent(m);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int32_t x) {
    while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  };
  std::map<int32_t, int32_t> first_group_of;
  for (size_t v = 0; v < n; ++v) {
    const int32_t c = GroupOf(p, static_cast<int>(v));
    if (c < 0) continue;
    const auto [it, inserted] = first_group_of.emplace(c, group[v]);
    if (!inserted) parent[static_cast<size_t>(find(group[v]))] = find(it->second);
  }
  MilpCoarsening out;
  out.num_bands = best_bands;
  out.label_set = static_cast<int>(chosen);
  out.group_of_task = group;
  BaechiProblem& f = out.problem;
  f.num_tasks = num_groups;
  f.num_procs = np;
  f.cost.assign(m * static_cast<size_t>(np), 0.0);
  f.resident.assign(m, 0);
  f.group.assign(m, -1);
  f.deferred.assign(m, 0);
  f.latency = p.latency;
  f.time_per_byte = p.time_per_byte;
  f.capacity = p.capacity;
  f.route = p.route;
  for (size_t v = 0; v < n; ++v) {
    const size_t g = static_cast<size_t>(group[v]);
    for (int q = 0; q < np; ++q) f.cost[g * static_cast<size_t>(np) + static_cast<size_t>(q)] += p.Cost(static_cast<int>(v), q);
    f.resident[g] += ResidentOf(p, static_cast<int>(v));
  }
  std::vector<int32_t> class_size(m, 0);
  for (size_t g = 0; g < m; ++g) ++class_size[static_cast<size_t>(find(static_cast<int32_t>(g)))];
  for (size_t g = 0; g < m; ++g) {
    const int32_t root = find(static_cast<int32_t>(g));
    if (class_size[static_cast<size_t>(root)] > 1) f.group[g] = root;
  }
  for (const BaechiTensor& t : p.tensors) {
    BaechiTensor ft;
    ft.producer = group[static_cast<size_t>(t.producer)];
    ft.bytes = t.bytes;
    ft.memory = t.memory;
    for (int32_t c : t.consumers) {
      const int32_t fc = group[static_cast<size_t>(c)];
      if (fc != ft.producer && std::find(ft.consumers.begin(), ft.consumers.end(), fc) == ft.consumers.end())
        ft.consumers.push_back(fc);
    }
    if (ft.consumers.empty()) continue;  // it stays inside its group
    f.tensors.push_back(std::move(ft));
  }
  GO_RETURN_IF_ERROR(ValidateBaechiProblem(f).WithContext("exact program: the coarsened problem"));
  return out;
}

}  // namespace graphopt
