// The exact program of placement and order (baselines/milp.h): the model's list
// schedule of a placement, and the mixed-integer program solved by COIN-OR CBC.
#include <Cbc_C_Interface.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "baselines/baechi_dag.h"
#include "baselines/milp.h"

namespace graphopt {
namespace {

using baechi_internal::GroupOf;
using baechi_internal::InEdge;
using baechi_internal::TaskDag;

constexpr double kInf = std::numeric_limits<double>::infinity();

// A task's predecessors and the transfer time of their tensors per ordered pair of
// processors (row = from).
struct ModelEdge {
  int32_t from = 0, to = 0;
  std::vector<double> transfer;  // num_procs x num_procs
};

struct Model {
  TaskDag dag;
  std::vector<std::vector<ModelEdge>> in;  // per task
  std::vector<int32_t> class_of;           // colocation class per task
  int num_classes = 0;
  std::vector<int64_t> class_memory;
};

Model BuildModel(const BaechiProblem& p) {
  Model m;
  m.dag = baechi_internal::BuildTaskDag(p);
  const size_t n = static_cast<size_t>(p.num_tasks);
  const int np = p.num_procs;
  m.in.assign(n, {});
  for (size_t v = 0; v < n; ++v) {
    for (const InEdge& e : m.dag.in[v]) {
      ModelEdge me{e.producer, static_cast<int32_t>(v), std::vector<double>(static_cast<size_t>(np * np), 0.0)};
      for (int a = 0; a < np; ++a) {
        for (int b = 0; b < np; ++b) {
          if (a == b) continue;
          for (int32_t t : e.tensors)
            me.transfer[static_cast<size_t>(a * np + b)] += p.TransferTime(p.tensors[static_cast<size_t>(t)].bytes, a, b);
        }
      }
      m.in[v].push_back(std::move(me));
    }
  }
  // Colocation classes: the tasks of one group id, the others alone.
  m.class_of.assign(n, -1);
  std::vector<int32_t> class_of_group;
  for (size_t v = 0; v < n; ++v) {
    const int32_t g = GroupOf(p, static_cast<int>(v));
    if (g < 0) {
      m.class_of[v] = m.num_classes++;
      continue;
    }
    if (static_cast<size_t>(g) >= class_of_group.size()) class_of_group.resize(static_cast<size_t>(g) + 1, -1);
    if (class_of_group[static_cast<size_t>(g)] < 0) class_of_group[static_cast<size_t>(g)] = m.num_classes++;
    m.class_of[v] = class_of_group[static_cast<size_t>(g)];
  }
  const std::vector<int64_t> memory = MilpTaskMemory(p);
  m.class_memory.assign(static_cast<size_t>(m.num_classes), 0);
  for (size_t v = 0; v < n; ++v) m.class_memory[static_cast<size_t>(m.class_of[v])] += memory[v];
  return m;
}

bool FitsCapacities(const BaechiProblem& p, const std::vector<int32_t>& proc) {
  if (p.capacity.empty()) return true;
  std::vector<int64_t> used(static_cast<size_t>(p.num_procs), 0);
  const std::vector<int64_t> memory = MilpTaskMemory(p);
  for (size_t v = 0; v < proc.size(); ++v) used[static_cast<size_t>(proc[v])] += memory[v];
  for (int q = 0; q < p.num_procs; ++q) {
    if (used[static_cast<size_t>(q)] > p.capacity[static_cast<size_t>(q)]) return false;
  }
  return true;
}

// The earliest schedule of a placement in which tasks run in `order` (a topological
// order) on each processor.
MilpSchedule ScheduleInOrder(const BaechiProblem& p, const Model& m, const std::vector<int32_t>& proc,
                             const std::vector<int32_t>& order) {
  const int np = p.num_procs;
  MilpSchedule s;
  s.proc = proc;
  s.start.assign(proc.size(), 0);
  std::vector<double> finish(proc.size(), 0), free_at(static_cast<size_t>(np), 0);
  for (int32_t v : order) {
    const int b = proc[static_cast<size_t>(v)];
    double t = free_at[static_cast<size_t>(b)];
    for (const ModelEdge& e : m.in[static_cast<size_t>(v)]) {
      const int a = proc[static_cast<size_t>(e.from)];
      t = std::max(t, finish[static_cast<size_t>(e.from)] + e.transfer[static_cast<size_t>(a * np + b)]);
    }
    s.start[static_cast<size_t>(v)] = t;
    finish[static_cast<size_t>(v)] = t + p.Cost(v, b);
    free_at[static_cast<size_t>(b)] = finish[static_cast<size_t>(v)];
    s.makespan_us = std::max(s.makespan_us, finish[static_cast<size_t>(v)]);
  }
  s.fits = FitsCapacities(p, proc);
  return s;
}

Status CheckPlacement(const BaechiProblem& p, const Model& m, const std::vector<int32_t>& proc) {
  if (proc.size() != static_cast<size_t>(p.num_tasks)) {
    return InvalidArgument("exact program: a placement of " + std::to_string(proc.size()) + " tasks for " +
                           std::to_string(p.num_tasks));
  }
  std::vector<int32_t> proc_of_class(static_cast<size_t>(m.num_classes), -1);
  for (size_t v = 0; v < proc.size(); ++v) {
    if (proc[v] < 0 || proc[v] >= p.num_procs)
      return InvalidArgument("exact program: task " + std::to_string(v) + " on processor " + std::to_string(proc[v]));
    int32_t& c = proc_of_class[static_cast<size_t>(m.class_of[v])];
    if (c >= 0 && c != proc[v])
      return InvalidArgument("exact program: the colocation group of task " + std::to_string(v) + " is split");
    c = proc[v];
  }
  return Status::Ok();
}

// Earliest start first among the ready tasks (ties: topological position).
MilpSchedule ListScheduleOf(const BaechiProblem& p, const Model& m, const std::vector<int32_t>& proc) {
  const size_t n = static_cast<size_t>(p.num_tasks);
  const int np = p.num_procs;
  std::vector<int32_t> waiting(n, 0);
  for (size_t v = 0; v < n; ++v) waiting[v] = static_cast<int32_t>(m.in[v].size());
  std::vector<double> finish(n, 0), free_at(static_cast<size_t>(np), 0);
  std::vector<int32_t> ready, order;
  for (size_t v = 0; v < n; ++v) {
    if (waiting[v] == 0) ready.push_back(static_cast<int32_t>(v));
  }
  auto start_of = [&](int32_t v) {
    const int b = proc[static_cast<size_t>(v)];
    double t = free_at[static_cast<size_t>(b)];
    for (const ModelEdge& e : m.in[static_cast<size_t>(v)]) {
      const int a = proc[static_cast<size_t>(e.from)];
      t = std::max(t, finish[static_cast<size_t>(e.from)] + e.transfer[static_cast<size_t>(a * np + b)]);
    }
    return t;
  };
  while (!ready.empty()) {
    size_t best = 0;
    double best_start = kInf;
    for (size_t i = 0; i < ready.size(); ++i) {
      const double t = start_of(ready[i]);
      if (t < best_start || (t == best_start && m.dag.rank[static_cast<size_t>(ready[i])] <
                                                   m.dag.rank[static_cast<size_t>(ready[best])])) {
        best = i;
        best_start = t;
      }
    }
    const int32_t v = ready[best];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best));
    order.push_back(v);
    finish[static_cast<size_t>(v)] = best_start + p.Cost(v, proc[static_cast<size_t>(v)]);
    free_at[static_cast<size_t>(proc[static_cast<size_t>(v)])] = finish[static_cast<size_t>(v)];
    for (int32_t s : m.dag.succs[static_cast<size_t>(v)]) {
      if (--waiting[static_cast<size_t>(s)] == 0) ready.push_back(s);
    }
  }
  return ScheduleInOrder(p, m, proc, order);
}

// Column-major matrix for CBC, built row by row.
struct Program {
  std::vector<double> col_lb, col_ub, obj;
  std::vector<bool> integer;
  std::vector<double> row_lb, row_ub;
  std::vector<std::vector<std::pair<int, double>>> cols;  // per column: (row, value)

  int AddColumn(double lb, double ub, double cost, bool is_integer) {
    col_lb.push_back(lb);
    col_ub.push_back(ub);
    obj.push_back(cost);
    integer.push_back(is_integer);
    cols.emplace_back();
    return static_cast<int>(cols.size()) - 1;
  }
  // lb <= sum of terms <= ub; repeated columns add up.
  void AddRow(const std::vector<std::pair<int, double>>& terms, double lb, double ub) {
    const int row = static_cast<int>(row_lb.size());
    row_lb.push_back(lb);
    row_ub.push_back(ub);
    for (const auto& [col, value] : terms) {
      auto& c = cols[static_cast<size_t>(col)];
      if (!c.empty() && c.back().first == row) {
        c.back().second += value;
      } else {
        c.emplace_back(row, value);
      }
    }
  }
};

// Processors are interchangeable: every task costs the same on each, the capacities are
// equal and every edge's transfer time is the same between any two of them.
bool Interchangeable(const BaechiProblem& p, const Model& m) {
  const int np = p.num_procs;
  if (np < 2) return true;
  for (int v = 0; v < p.num_tasks; ++v) {
    for (int q = 1; q < np; ++q) {
      if (p.Cost(v, q) != p.Cost(v, 0)) return false;
    }
  }
  for (int q = 1; q < np && !p.capacity.empty(); ++q) {
    if (p.capacity[static_cast<size_t>(q)] != p.capacity[0]) return false;
  }
  for (const auto& edges : m.in) {
    for (const ModelEdge& e : edges) {
      for (int a = 0; a < np; ++a) {
        for (int b = 0; b < np; ++b) {
          if (a != b && e.transfer[static_cast<size_t>(a * np + b)] != e.transfer[1]) return false;
        }
      }
    }
  }
  return true;
}

}  // namespace

std::vector<int64_t> MilpTaskMemory(const BaechiProblem& p) {
  std::vector<int64_t> memory(static_cast<size_t>(p.num_tasks), 0);
  for (int v = 0; v < p.num_tasks; ++v) memory[static_cast<size_t>(v)] = baechi_internal::ResidentOf(p, v);
  for (const BaechiTensor& t : p.tensors) memory[static_cast<size_t>(t.producer)] += t.memory;
  return memory;
}

StatusOr<MilpSchedule> MilpScheduleOf(const BaechiProblem& problem, const std::vector<int32_t>& proc) {
  GO_RETURN_IF_ERROR(ValidateBaechiProblem(problem));
  const Model m = BuildModel(problem);
  GO_RETURN_IF_ERROR(CheckPlacement(problem, m, proc));
  return ListScheduleOf(problem, m, proc);
}

StatusOr<MilpResult> SolveMilp(const BaechiProblem& p, const std::vector<std::vector<int32_t>>& starts,
                               const MilpOptions& options) {
  const auto clock_start = std::chrono::steady_clock::now();
  GO_RETURN_IF_ERROR(ValidateBaechiProblem(p));
  const Model m = BuildModel(p);
  const size_t n = static_cast<size_t>(p.num_tasks);
  const int np = p.num_procs;
  const size_t nc = static_cast<size_t>(m.num_classes);

  // The warm starts: the shortest that fits is the incumbent; without one, the one
  // that overflows least is what is returned if CBC finds nothing.
  MilpResult result;
  int best_start = -1;
  MilpSchedule fallback;
  int64_t fallback_over = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < starts.size(); ++i) {
    GO_RETURN_IF_ERROR(CheckPlacement(p, m, starts[i]).WithContext("warm start " + std::to_string(i)));
    MilpSchedule s = ListScheduleOf(p, m, starts[i]);
    if (s.fits && (best_start < 0 || s.makespan_us < result.schedule.makespan_us)) {
      result.schedule = s;
      best_start = static_cast<int>(i);
    }
    if (!s.fits && !p.capacity.empty()) {
      std::vector<int64_t> used(static_cast<size_t>(np), 0);
      const std::vector<int64_t> memory = MilpTaskMemory(p);
      for (size_t v = 0; v < n; ++v) used[static_cast<size_t>(s.proc[v])] += memory[v];
      int64_t over = 0;
      for (int q = 0; q < np; ++q) over = std::max(over, used[static_cast<size_t>(q)] - p.capacity[static_cast<size_t>(q)]);
      if (over < fallback_over) fallback_over = over, fallback = s;
    }
  }
  if (best_start >= 0) result.source = "start " + std::to_string(best_start);

  // The horizon: the incumbent's makespan, else every task after the other on its
  // slowest processor with every transfer at its slowest.
  double horizon = 0;
  if (best_start >= 0) {
    horizon = result.schedule.makespan_us * (1 + 1e-9) + 1e-6;
  } else {
    for (size_t v = 0; v < n; ++v) {
      double worst = 0;
      for (int q = 0; q < np; ++q) worst = std::max(worst, p.Cost(static_cast<int>(v), q));
      horizon += worst;
      for (const ModelEdge& e : m.in[v]) horizon += *std::max_element(e.transfer.begin(), e.transfer.end());
    }
    horizon = horizon * (1 + 1e-9) + 1e-6;
  }

  // Columns: x[c][d], s[i], C, then o and q per unordered pair.
  Program prog;
  std::vector<int> x(nc * static_cast<size_t>(np));
  for (size_t c = 0; c < nc; ++c) {
    for (int d = 0; d < np; ++d) x[c * static_cast<size_t>(np) + static_cast<size_t>(d)] = prog.AddColumn(0, 1, 0, true);
  }
  auto xcol = [&](int32_t task, int d) {
    return x[static_cast<size_t>(m.class_of[static_cast<size_t>(task)]) * static_cast<size_t>(np) + static_cast<size_t>(d)];
  };
  std::vector<int> s(n);
  for (size_t v = 0; v < n; ++v) s[v] = prog.AddColumn(0, horizon, 0, false);
  const int cmax = prog.AddColumn(0, horizon, 1, false);
  // p_i as terms with a sign.
  auto duration = [&](int32_t task, double sign, std::vector<std::pair<int, double>>* terms) {
    for (int d = 0; d < np; ++d) {
      const double c = p.Cost(task, d);
      if (c != 0) terms->emplace_back(xcol(task, d), sign * c);
    }
  };
  for (size_t c = 0; c < nc; ++c) {
    std::vector<std::pair<int, double>> terms;
    for (int d = 0; d < np; ++d) terms.emplace_back(x[c * static_cast<size_t>(np) + static_cast<size_t>(d)], 1.0);
    prog.AddRow(terms, 1, 1);
  }
  if (!p.capacity.empty()) {
    for (int d = 0; d < np; ++d) {
      std::vector<std::pair<int, double>> terms;
      for (size_t c = 0; c < nc; ++c) {
        if (m.class_memory[c] > 0)
          terms.emplace_back(x[c * static_cast<size_t>(np) + static_cast<size_t>(d)], static_cast<double>(m.class_memory[c]));
      }
      if (!terms.empty()) prog.AddRow(terms, -kInf, static_cast<double>(p.capacity[static_cast<size_t>(d)]));
    }
  }
  if (Interchangeable(p, m)) {
    for (size_t c = 0; c < nc; ++c) {
      for (int d = static_cast<int>(c) + 1; d < np; ++d) prog.col_ub[static_cast<size_t>(x[c * static_cast<size_t>(np) + static_cast<size_t>(d)])] = 0;
    }
  }
  // Precedence and transfers.
  for (size_t v = 0; v < n; ++v) {
    for (const ModelEdge& e : m.in[v]) {
      std::vector<std::pair<int, double>> base{{s[v], 1.0}, {s[static_cast<size_t>(e.from)], -1.0}};
      duration(e.from, -1.0, &base);
      prog.AddRow(base, 0, kInf);
      if (m.class_of[static_cast<size_t>(e.from)] == m.class_of[v]) continue;
      for (int a = 0; a < np; ++a) {
        // The processors b != a by transfer time, each time once.
        std::vector<double> times;
        for (int b = 0; b < np; ++b) {
          const double t = e.transfer[static_cast<size_t>(a * np + b)];
          if (b != a && t > 0) times.push_back(t);
        }
        std::sort(times.begin(), times.end());
        times.erase(std::unique(times.begin(), times.end()), times.end());
        for (double t : times) {
          std::vector<std::pair<int, double>> terms = base;
          terms.emplace_back(xcol(e.from, a), -t);
          for (int b = 0; b < np; ++b) {
            if (b != a && e.transfer[static_cast<size_t>(a * np + b)] == t) terms.emplace_back(xcol(static_cast<int32_t>(v), b), -t);
          }
          prog.AddRow(terms, -t, kInf);
        }
      }
    }
  }
  // The makespan: after every task, and at least every processor's load.
  for (size_t v = 0; v < n; ++v) {
    if (!m.dag.succs[v].empty()) continue;
    std::vector<std::pair<int, double>> terms{{cmax, 1.0}, {s[v], -1.0}};
    duration(static_cast<int32_t>(v), -1.0, &terms);
    prog.AddRow(terms, 0, kInf);
  }
  for (int d = 0; d < np; ++d) {
    std::vector<std::pair<int, double>> terms{{cmax, 1.0}};
    for (size_t v = 0; v < n; ++v) {
      const double c = p.Cost(static_cast<int>(v), d);
      if (c != 0) terms.emplace_back(xcol(static_cast<int32_t>(v), d), -c);
    }
    prog.AddRow(terms, 0, kInf);
  }
  // Pairs that no path orders: one before the other when on one processor.
  const size_t words = (n + 63) / 64;
  std::vector<std::vector<uint64_t>> reach(n, std::vector<uint64_t>(words, 0));
  for (auto it = m.dag.order.rbegin(); it != m.dag.order.rend(); ++it) {
    const size_t v = static_cast<size_t>(*it);
    for (int32_t w : m.dag.succs[v]) {
      reach[v][static_cast<size_t>(w) / 64] |= uint64_t{1} << (static_cast<size_t>(w) % 64);
      for (size_t k = 0; k < words; ++k) reach[v][k] |= reach[static_cast<size_t>(w)][k];
    }
  }
  auto reaches = [&](size_t a, size_t b) { return (reach[a][b / 64] >> (b % 64)) & 1; };
  auto busy = [&](size_t v) {
    for (int d = 0; d < np; ++d) {
      if (p.Cost(static_cast<int>(v), d) > 0) return true;
    }
    return false;
  };
  struct Pair {
    size_t i, j;
    int o, q;
  };
  std::vector<Pair> pairs;
  for (size_t i = 0; i < n; ++i) {
    if (!busy(i)) continue;
    for (size_t j = i + 1; j < n; ++j) {
      if (!busy(j) || reaches(i, j) || reaches(j, i)) continue;
      const bool same_class = m.class_of[i] == m.class_of[j];
      Pair pr{i, j, prog.AddColumn(0, 1, 0, true), same_class ? -1 : prog.AddColumn(0, 1, 0, false)};
      // s_j - s_i - p_i - H o - H q >= -2H (same class: without q, >= -H).
      std::vector<std::pair<int, double>> first{{s[j], 1.0}, {s[i], -1.0}, {pr.o, -horizon}};
      duration(static_cast<int32_t>(i), -1.0, &first);
      // s_i - s_j - p_j + H o - H q >= -H (same class: >= 0).
      std::vector<std::pair<int, double>> second{{s[i], 1.0}, {s[j], -1.0}, {pr.o, horizon}};
      duration(static_cast<int32_t>(j), -1.0, &second);
      if (same_class) {
        prog.AddRow(first, -horizon, kInf);
        prog.AddRow(second, 0, kInf);
      } else {
        first.emplace_back(pr.q, -horizon);
        second.emplace_back(pr.q, -horizon);
        prog.AddRow(first, -2 * horizon, kInf);
        prog.AddRow(second, -horizon, kInf);
        for (int d = 0; d < np; ++d)
          prog.AddRow({{pr.q, 1.0}, {xcol(static_cast<int32_t>(i), d), -1.0}, {xcol(static_cast<int32_t>(j), d), -1.0}}, -1, kInf);
      }
      pairs.push_back(pr);
    }
  }

  // To CBC.
  const int ncols = static_cast<int>(prog.cols.size());
  const int nrows = static_cast<int>(prog.row_lb.size());
  result.num_columns = ncols;
  result.num_rows = nrows;
  std::vector<CoinBigIndex> col_start(1, 0);
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& col : prog.cols) {
    for (const auto& [row, v] : col) index.push_back(row), value.push_back(v);
    col_start.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  Cbc_Model* model = Cbc_newModel();
  Cbc_loadProblem(model, ncols, nrows, col_start.data(), index.data(), value.data(), prog.col_lb.data(),
                  prog.col_ub.data(), prog.obj.data(), prog.row_lb.data(), prog.row_ub.data());
  for (int c = 0; c < ncols; ++c) {
    if (prog.integer[static_cast<size_t>(c)]) Cbc_setInteger(model, c);
  }
  Cbc_setLogLevel(model, 0);
  Cbc_setAllowableGap(model, 1e-7);
  if (options.time_limit_s > 0) Cbc_setMaximumSeconds(model, options.time_limit_s);
  if (options.max_nodes > 0) Cbc_setMaximumNodes(model, static_cast<int>(std::min<int64_t>(options.max_nodes, INT32_MAX)));
  if (best_start >= 0) {
    // The incumbent as values of every column.
    const MilpSchedule& w = result.schedule;
    std::vector<double> start_values(static_cast<size_t>(ncols), 0);
    for (size_t v = 0; v < n; ++v) {
      start_values[static_cast<size_t>(xcol(static_cast<int32_t>(v), w.proc[v]))] = 1;
      start_values[static_cast<size_t>(s[v])] = w.start[v];
    }
    start_values[static_cast<size_t>(cmax)] = w.makespan_us;
    for (const Pair& pr : pairs) {
      const bool i_first = w.start[pr.i] < w.start[pr.j] ||
                           (w.start[pr.i] == w.start[pr.j] && m.dag.rank[pr.i] < m.dag.rank[pr.j]);
      start_values[static_cast<size_t>(pr.o)] = i_first ? 1 : 0;
      if (pr.q >= 0) start_values[static_cast<size_t>(pr.q)] = w.proc[pr.i] == w.proc[pr.j] ? 1 : 0;
    }
    std::vector<int> cols(static_cast<size_t>(ncols));
    std::iota(cols.begin(), cols.end(), 0);
    Cbc_setMIPStartI(model, ncols, cols.data(), start_values.data());
  }
  Cbc_solve(model);
  result.nodes = Cbc_getNodeCount(model);
  result.limit_reached = Cbc_isSecondsLimitReached(model) || Cbc_isNodeLimitReached(model);
  const double* solution = Cbc_bestSolution(model);
  if (solution != nullptr) {
    // The solver's placement and order, scheduled at the earliest (never later than
    // its starts).
    std::vector<int32_t> proc(n, 0);
    for (size_t v = 0; v < n; ++v) {
      double best = -1;
      for (int d = 0; d < np; ++d) {
        const double xv = solution[xcol(static_cast<int32_t>(v), d)];
        if (xv > best) best = xv, proc[v] = d;
      }
    }
    std::vector<int32_t> order(m.dag.order.begin(), m.dag.order.end());
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const double sa = solution[s[static_cast<size_t>(a)]], sb = solution[s[static_cast<size_t>(b)]];
      if (std::abs(sa - sb) > 1e-7 * std::max(1.0, horizon)) return sa < sb;
      return m.dag.rank[static_cast<size_t>(a)] < m.dag.rank[static_cast<size_t>(b)];
    });
    // Sorting by start may break a dependency where starts tie within tolerance: then
    // the topological order decides.
    std::vector<int32_t> position(n);
    for (size_t k = 0; k < n; ++k) position[static_cast<size_t>(order[k])] = static_cast<int32_t>(k);
    bool topological = true;
    for (size_t v = 0; v < n && topological; ++v) {
      for (const ModelEdge& e : m.in[v]) topological = topological && position[static_cast<size_t>(e.from)] < position[v];
    }
    if (!topological) order = m.dag.order;
    MilpSchedule cbc = ScheduleInOrder(p, m, proc, order);
    if (cbc.fits && (best_start < 0 || cbc.makespan_us < result.schedule.makespan_us - 1e-9)) {
      result.schedule = std::move(cbc);
      result.source = "cbc";
    }
  }
  const bool proven_optimal = Cbc_isProvenOptimal(model) != 0;
  result.infeasible = Cbc_isProvenInfeasible(model) != 0 && best_start < 0 && solution == nullptr;
  const bool found = best_start >= 0 || result.source == "cbc";
  if (found) {
    double bound = proven_optimal ? Cbc_getObjValue(model) : Cbc_getBestPossibleObjValue(model);
    if (!std::isfinite(bound)) bound = 0;
    result.lower_bound_us = std::max(0.0, std::min(bound, result.schedule.makespan_us));
    result.optimal = proven_optimal;
    if (proven_optimal) result.lower_bound_us = std::min(result.schedule.makespan_us, bound);
    result.gap = result.schedule.makespan_us > 0
                     ? (result.schedule.makespan_us - result.lower_bound_us) / result.schedule.makespan_us
                     : 0;
  } else {
    result.schedule = fallback.proc.empty() ? MilpSchedule{} : fallback;
    result.source = fallback.proc.empty() ? "none" : "least overflowing start";
  }
  Cbc_deleteModel(model);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock_start).count();
  return result;
}

}  // namespace graphopt
