// m-SCT's favourite children (baselines/baechi.h): the LP relaxation of
// "Baechi: Fast Device Placement of Machine Learning Graphs" (SoCC 2020), solved
// with COIN-OR CLP, and the greedy rule used when the LP cannot be solved.
//
// On the DAG of the tasks that are scheduled (deferred tasks left out), with p_i a
// task's cost averaged over the processors and c_ij the time to move the edge's
// tensors averaged over the ordered pairs of distinct processors, the LP is
//   minimise w
//   s_i + p_i + c_ij x_ij <= s_j        for every edge i -> j
//   s_i + p_i <= w                      for every sink i (implied elsewhere)
//   sum_j x_ij >= outdeg(i) - 1         at most one favourite child per task
//   sum_i x_ij >= indeg(j) - 1          at most one favourite parent per task
//   0 <= x_ij <= 1, s_i >= 0
// and edge i -> j makes j the favourite child of i when x_ij < threshold. Edges are
// taken in order of (i, j); a later favourite edge out of i replaces i's earlier
// one, and one into j clears the favourite of j's earlier parent (as the paper's
// code resolves the rounding's conflicts).
//
// Greedy rule: tasks in topological order each take as favourite the successor of
// the largest communication cost (ties: the earlier in topological order) that no
// earlier task has taken.
#include <Clp_C_Interface.h>

#include <algorithm>
#include <limits>

#include "baselines/baechi.h"
#include "baselines/baechi_dag.h"

namespace graphopt {
namespace {

using baechi_internal::InEdge;
using baechi_internal::IsDeferred;
using baechi_internal::TaskDag;

struct LpEdge {
  int32_t from = 0, to = 0;
  double comm = 0;
};

// The edges between scheduled tasks, ordered by (from, to), with their mean transfer times.
std::vector<LpEdge> ScheduledEdges(const BaechiProblem& p, const TaskDag& dag) {
  std::vector<LpEdge> edges;
  const int np = p.num_procs;
  for (int v = 0; v < p.num_tasks; ++v) {
    if (IsDeferred(p, v)) continue;
    for (const InEdge& in : dag.in[static_cast<size_t>(v)]) {
      if (IsDeferred(p, in.producer)) continue;
      double sum = 0;
      for (int a = 0; a < np; ++a) {
        for (int b = 0; b < np; ++b) {
          if (a == b) continue;
          for (int32_t t : in.tensors) sum += p.TransferTime(p.tensors[static_cast<size_t>(t)].bytes, a, b);
        }
      }
      const double pairs = static_cast<double>(np) * static_cast<double>(np - 1);
      edges.push_back(LpEdge{in.producer, v, pairs > 0 ? sum / pairs : 0.0});
    }
  }
  std::sort(edges.begin(), edges.end(),
            [](const LpEdge& a, const LpEdge& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
  return edges;
}

double MeanCost(const BaechiProblem& p, int task) {
  double sum = 0;
  for (int q = 0; q < p.num_procs; ++q) sum += p.Cost(task, q);
  return sum / p.num_procs;
}

// The LP's x per edge, or empty if CLP did not reach an optimum.
std::vector<double> SolveLp(const BaechiProblem& p, const std::vector<LpEdge>& edges, double time_limit_s) {
  const int n = p.num_tasks;
  const int ne = static_cast<int>(edges.size());
  std::vector<int> outdeg(static_cast<size_t>(n), 0), indeg(static_cast<size_t>(n), 0);
  for (const LpEdge& e : edges) ++outdeg[static_cast<size_t>(e.from)], ++indeg[static_cast<size_t>(e.to)];
  // Rows: one per edge, then the degree rows, then the sinks'.
  std::vector<double> row_lb, row_ub;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (const LpEdge& e : edges) {
    row_lb.push_back(-kInf);
    row_ub.push_back(-MeanCost(p, e.from));
  }
  std::vector<int> out_row(static_cast<size_t>(n), -1), in_row(static_cast<size_t>(n), -1),
      sink_row(static_cast<size_t>(n), -1);
  for (int v = 0; v < n; ++v) {
    if (outdeg[static_cast<size_t>(v)] >= 2) {
      out_row[static_cast<size_t>(v)] = static_cast<int>(row_lb.size());
      row_lb.push_back(outdeg[static_cast<size_t>(v)] - 1);
      row_ub.push_back(kInf);
    }
    if (indeg[static_cast<size_t>(v)] >= 2) {
      in_row[static_cast<size_t>(v)] = static_cast<int>(row_lb.size());
      row_lb.push_back(indeg[static_cast<size_t>(v)] - 1);
      row_ub.push_back(kInf);
    }
  }
  // Columns: x_e, then s_v of the scheduled tasks, then w.
  std::vector<int> s_col(static_cast<size_t>(n), -1);
  int num_cols = ne;
  for (int v = 0; v < n; ++v) {
    if (IsDeferred(p, v)) continue;
    s_col[static_cast<size_t>(v)] = num_cols++;
    if (outdeg[static_cast<size_t>(v)] == 0) {
      sink_row[static_cast<size_t>(v)] = static_cast<int>(row_lb.size());
      row_lb.push_back(-kInf);
      row_ub.push_back(-MeanCost(p, v));
    }
  }
  const int w_col = num_cols++;
  std::vector<std::vector<std::pair<int, double>>> cols(static_cast<size_t>(num_cols));
  for (int e = 0; e < ne; ++e) {
    const LpEdge& edge = edges[static_cast<size_t>(e)];
    auto& x = cols[static_cast<size_t>(e)];
    if (edge.comm != 0) x.emplace_back(e, edge.comm);
    if (out_row[static_cast<size_t>(edge.from)] >= 0) x.emplace_back(out_row[static_cast<size_t>(edge.from)], 1.0);
    if (in_row[static_cast<size_t>(edge.to)] >= 0) x.emplace_back(in_row[static_cast<size_t>(edge.to)], 1.0);
    cols[static_cast<size_t>(s_col[static_cast<size_t>(edge.from)])].emplace_back(e, 1.0);
    cols[static_cast<size_t>(s_col[static_cast<size_t>(edge.to)])].emplace_back(e, -1.0);
  }
  for (int v = 0; v < n; ++v) {
    const int r = sink_row[static_cast<size_t>(v)];
    if (r < 0) continue;
    cols[static_cast<size_t>(s_col[static_cast<size_t>(v)])].emplace_back(r, 1.0);
    cols[static_cast<size_t>(w_col)].emplace_back(r, -1.0);
  }
  std::vector<CoinBigIndex> start(1, 0);
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& c : cols) {
    for (const auto& [r, a] : c) index.push_back(r), value.push_back(a);
    start.push_back(static_cast<CoinBigIndex>(index.size()));
  }
  std::vector<double> col_lb(static_cast<size_t>(num_cols), 0.0), col_ub(static_cast<size_t>(num_cols), kInf);
  std::vector<double> objective(static_cast<size_t>(num_cols), 0.0);
  for (int e = 0; e < ne; ++e) col_ub[static_cast<size_t>(e)] = 1.0;
  objective[static_cast<size_t>(w_col)] = 1.0;

  Clp_Simplex* model = Clp_newModel();
  Clp_setLogLevel(model, 0);
  Clp_loadProblem(model, num_cols, static_cast<int>(row_lb.size()), start.data(), index.data(), value.data(),
                  col_lb.data(), col_ub.data(), objective.data(), row_lb.data(), row_ub.data());
  if (time_limit_s > 0) Clp_setMaximumSeconds(model, time_limit_s);
  Clp_dual(model, 0);
  std::vector<double> x;
  if (Clp_status(model) == 0) {
    const double* solution = Clp_getColSolution(model);
    x.assign(solution, solution + ne);
  }
  Clp_deleteModel(model);
  return x;
}

}  // namespace

std::vector<int32_t> BaechiFavouriteChildren(const BaechiProblem& problem, const BaechiOptions& options,
                                             bool* lp_solved) {
  const size_t n = static_cast<size_t>(problem.num_tasks);
  const TaskDag dag = baechi_internal::BuildTaskDag(problem);
  const std::vector<LpEdge> edges = ScheduledEdges(problem, dag);
  std::vector<int32_t> favourite(n, -1), parent(n, -1);
  const std::vector<double> x =
      edges.empty() ? std::vector<double>{} : SolveLp(problem, edges, options.lp_time_limit_s);
  const bool solved = edges.empty() || !x.empty();
  if (lp_solved != nullptr) *lp_solved = solved;
  if (solved) {
    for (size_t e = 0; e < x.size(); ++e) {
      if (!(x[e] < options.sct_threshold)) continue;
      const int32_t i = edges[e].from, j = edges[e].to;
      favourite[static_cast<size_t>(i)] = j;
      const int32_t old = parent[static_cast<size_t>(j)];
      if (old >= 0) favourite[static_cast<size_t>(old)] = -1;
      parent[static_cast<size_t>(j)] = i;
    }
    return favourite;
  }
  // Greedy: edges are sorted by source, so each source's edges are one run.
  std::vector<size_t> begin(n + 1, edges.size());
  for (size_t e = edges.size(); e-- > 0;) begin[static_cast<size_t>(edges[e].from)] = e;
  for (int32_t v : dag.order) {
    int32_t best = -1;
    double best_comm = 0;
    for (size_t e = begin[static_cast<size_t>(v)]; e < edges.size() && edges[e].from == v; ++e) {
      const int32_t c = edges[e].to;
      if (parent[static_cast<size_t>(c)] >= 0) continue;
      if (best < 0 || edges[e].comm > best_comm ||
          (edges[e].comm == best_comm && dag.rank[static_cast<size_t>(c)] < dag.rank[static_cast<size_t>(best)])) {
        best = c, best_comm = edges[e].comm;
      }
    }
    if (best >= 0) favourite[static_cast<size_t>(v)] = best, parent[static_cast<size_t>(best)] = v;
  }
  return favourite;
}

}  // namespace graphopt
