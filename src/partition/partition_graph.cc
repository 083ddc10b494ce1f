#include "partition/partition_graph.h"

#include <fcntl.h>
#include <metis.h>
#include <scotch.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <tuple>
#include <vector>

#include "core/strings.h"

namespace graphopt {
namespace {

// Totals the scaled weights stay within, far below 2^31 so that the libraries'
// sums (edges are stored in both directions) cannot overflow.
constexpr double kMaxTotalVertexWeight = 1e8;
constexpr double kMaxTotalEdgeWeight = 2.5e8;
// Allowed imbalance of a part over its share of the vertex weight (METIS's default).
constexpr double kImbalance = 0.03;

// METIS prints some complaints with printf, e.g. "too many parts" when a recursive
// bisection of its initial partitioning meets a side with no vertex (the result is
// still a valid partition, some parts empty); they would interleave with the
// program's own output. While one lives, standard output goes to /dev/null.
class QuietStdout {
 public:
  QuietStdout() {
    std::fflush(stdout);
    saved_ = dup(STDOUT_FILENO);
    const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
    if (null >= 0) close(null);
  }
  ~QuietStdout() {
    std::fflush(stdout);
    if (saved_ < 0) return;
    dup2(saved_, STDOUT_FILENO);
    close(saved_);
  }
  QuietStdout(const QuietStdout&) = delete;
  QuietStdout& operator=(const QuietStdout&) = delete;

 private:
  int saved_ = -1;
};

int64_t ScaledWeight(double value, double scale) { return std::max<int64_t>(1, std::llround(value * scale)); }

}  // namespace

PartitionGraph BuildPartitionGraph(const Graph& graph, const std::vector<double>& op_weight) {
  PartitionGraph pg;
  const int n = graph.num_ops();
  pg.vertex_of_op.assign(static_cast<size_t>(n), kNoId);
  // Vertices in order of their lowest op id: deterministic.
  std::vector<int32_t> vertex_of_group(static_cast<size_t>(std::max(0, graph.num_colocation_groups())), kNoId);
  int32_t num_vertices = 0;
  for (OpId o = 0; o < n; ++o) {
    const int32_t g = graph.op(o).colocation_group;
    if (g != kNoId && static_cast<size_t>(g) >= vertex_of_group.size()) {
      vertex_of_group.resize(static_cast<size_t>(g) + 1, kNoId);
    }
    if (g == kNoId) {
      pg.vertex_of_op[static_cast<size_t>(o)] = num_vertices++;
    } else {
      int32_t& v = vertex_of_group[static_cast<size_t>(g)];
      if (v == kNoId) v = num_vertices++;
      pg.vertex_of_op[static_cast<size_t>(o)] = v;
    }
  }

  std::vector<double> ns(static_cast<size_t>(num_vertices), 0.0);
  double total_ns = 0;
  for (OpId o = 0; o < n; ++o) {
    const double t = std::max(0.0, op_weight[static_cast<size_t>(o)]);
    ns[static_cast<size_t>(pg.vertex_of_op[static_cast<size_t>(o)])] += t;
    total_ns += t;
  }
  const double vertex_scale = total_ns > kMaxTotalVertexWeight ? kMaxTotalVertexWeight / total_ns : 1.0;
  pg.vertex_weight.resize(static_cast<size_t>(num_vertices));
  for (int32_t v = 0; v < num_vertices; ++v) {
    pg.vertex_weight[static_cast<size_t>(v)] = ScaledWeight(ns[static_cast<size_t>(v)], vertex_scale);
  }

  // Edges (low vertex, high vertex, bytes), one per tensor and consuming vertex.
  std::vector<std::tuple<int32_t, int32_t, double>> edges;
  std::vector<int32_t> consumers;
  for (TensorId t = 0; t < graph.num_tensors(); ++t) {
    const Tensor& tensor = graph.tensor(t);
    if (tensor.producer == kNoId) continue;
    const int32_t from = pg.vertex_of_op[static_cast<size_t>(tensor.producer)];
    consumers.clear();
    for (OpId c : tensor.consumers) {
      const int32_t to = pg.vertex_of_op[static_cast<size_t>(c)];
      if (to != from) consumers.push_back(to);
    }
    std::sort(consumers.begin(), consumers.end());
    consumers.erase(std::unique(consumers.begin(), consumers.end()), consumers.end());
    for (int32_t to : consumers) {
      edges.emplace_back(std::min(from, to), std::max(from, to), static_cast<double>(tensor.bytes()));
    }
  }
  std::sort(edges.begin(), edges.end());
  std::vector<std::tuple<int32_t, int32_t, double>> merged;
  double total_bytes = 0;
  for (const auto& e : edges) {
    if (!merged.empty() && std::get<0>(merged.back()) == std::get<0>(e) &&
        std::get<1>(merged.back()) == std::get<1>(e)) {
      std::get<2>(merged.back()) += std::get<2>(e);
    } else {
      merged.push_back(e);
    }
    total_bytes += std::get<2>(e);
  }
  const double edge_scale = total_bytes > kMaxTotalEdgeWeight ? kMaxTotalEdgeWeight / total_bytes : 1.0;

  pg.offsets.assign(static_cast<size_t>(num_vertices) + 1, 0);
  for (const auto& [a, b, bytes] : merged) {
    ++pg.offsets[static_cast<size_t>(a) + 1];
    ++pg.offsets[static_cast<size_t>(b) + 1];
  }
  for (int32_t v = 0; v < num_vertices; ++v) {
    pg.offsets[static_cast<size_t>(v) + 1] += pg.offsets[static_cast<size_t>(v)];
  }
  pg.neighbours.resize(2 * merged.size());
  pg.edge_weight.resize(2 * merged.size());
  std::vector<int64_t> fill(pg.offsets.begin(), pg.offsets.end() - 1);
  for (const auto& [a, b, bytes] : merged) {
    const int64_t w = ScaledWeight(bytes, edge_scale);
    const size_t ia = static_cast<size_t>(fill[static_cast<size_t>(a)]++);
    const size_t ib = static_cast<size_t>(fill[static_cast<size_t>(b)]++);
    pg.neighbours[ia] = b;
    pg.edge_weight[ia] = w;
    pg.neighbours[ib] = a;
    pg.edge_weight[ib] = w;
  }
  return pg;
}

namespace {

// Copies into the library's integer type; at least one element, so that data() is
// never null for the libraries.
template <typename Int, typename From>
std::vector<Int> Converted(const std::vector<From>& values) {
  std::vector<Int> out(std::max<size_t>(1, values.size()), 0);
  for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<Int>(values[i]);
  return out;
}

// The seed handed to the libraries, in [1, 2^31 - 1]: both treat seeds 0 and 1
// alike (glibc's srand does), so distinct option seeds below 2^31 - 1 stay distinct.
int32_t LibrarySeed(uint64_t seed) { return static_cast<int32_t>(seed % 2147483646u) + 1; }

}  // namespace

StatusOr<std::vector<int>> MetisPartition(const PartitionGraph& pg, int k, uint64_t seed) {
  static_assert(sizeof(idx_t) >= 4, "idx_t narrower than 32 bits");
  idx_t num_vertices = pg.num_vertices();
  idx_t num_constraints = 1;
  idx_t num_parts = k;
  idx_t edge_cut = 0;
  std::vector<idx_t> xadj = Converted<idx_t>(pg.offsets);
  std::vector<idx_t> adjncy = Converted<idx_t>(pg.neighbours);
  std::vector<idx_t> vwgt = Converted<idx_t>(pg.vertex_weight);
  std::vector<idx_t> adjwgt = Converted<idx_t>(pg.edge_weight);
  std::vector<idx_t> part(static_cast<size_t>(num_vertices), 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(LibrarySeed(seed));
  options[METIS_OPTION_NUMBERING] = 0;
  const QuietStdout quiet;
  const int rc = METIS_PartGraphKway(&num_vertices, &num_constraints, xadj.data(), adjncy.data(), vwgt.data(),
                                     /*vsize=*/nullptr, adjwgt.data(), &num_parts, /*tpwgts=*/nullptr,
                                     /*ubvec=*/nullptr, options, &edge_cut, part.data());
  if (rc != METIS_OK) {
    const char* what = rc == METIS_ERROR_INPUT ? "invalid input" : rc == METIS_ERROR_MEMORY ? "out of memory" : "error";
    return InternalError(StrFormat("METIS_PartGraphKway failed (%s, code %d) on %d vertices and %d parts", what, rc,
                                   static_cast<int>(num_vertices), k));
  }
  return std::vector<int>(part.begin(), part.end());
}

namespace {

// Releases the Scotch objects of one partitioning on every path.
struct ScotchSession {
  SCOTCH_Context context;
  SCOTCH_Graph graph;
  SCOTCH_Graph bound_graph;
  SCOTCH_Strat strategy;
  bool context_ready = false, graph_ready = false, bound_ready = false, strategy_ready = false;
  ~ScotchSession() {
    if (bound_ready) SCOTCH_graphExit(&bound_graph);
    if (graph_ready) SCOTCH_graphExit(&graph);
    if (strategy_ready) SCOTCH_stratExit(&strategy);
    if (context_ready) SCOTCH_contextExit(&context);
  }
};

}  // namespace

StatusOr<std::vector<int>> ScotchPartition(const PartitionGraph& pg, int k, uint64_t seed) {
  static_assert(sizeof(SCOTCH_Num) >= 4, "SCOTCH_Num narrower than 32 bits");
  const SCOTCH_Num num_vertices = pg.num_vertices();
  const SCOTCH_Num num_arcs = static_cast<SCOTCH_Num>(pg.neighbours.size());
  std::vector<SCOTCH_Num> verttab = Converted<SCOTCH_Num>(pg.offsets);
  std::vector<SCOTCH_Num> edgetab = Converted<SCOTCH_Num>(pg.neighbours);
  std::vector<SCOTCH_Num> velotab = Converted<SCOTCH_Num>(pg.vertex_weight);
  std::vector<SCOTCH_Num> edlotab = Converted<SCOTCH_Num>(pg.edge_weight);
  std::vector<SCOTCH_Num> parttab(static_cast<size_t>(num_vertices), 0);

  ScotchSession s;
  if (SCOTCH_contextInit(&s.context) != 0) return InternalError("Scotch: cannot initialize a context");
  s.context_ready = true;
  // A private random generator seeded with the seed, one thread: the same inputs
  // give the same partition, whatever else runs in the process.
  if (SCOTCH_contextRandomClone(&s.context) != 0) return InternalError("Scotch: cannot clone the random generator");
  SCOTCH_contextRandomSeed(&s.context, static_cast<SCOTCH_Num>(LibrarySeed(seed)));
  SCOTCH_contextOptionSetNum(&s.context, SCOTCH_OPTIONNUMDETERMINISTIC, 1);
  if (SCOTCH_contextThreadSpawn(&s.context, 1, nullptr) != 0) return InternalError("Scotch: cannot set up its thread");

  if (SCOTCH_graphInit(&s.graph) != 0) return InternalError("Scotch: cannot initialize a graph");
  s.graph_ready = true;
  if (SCOTCH_graphBuild(&s.graph, /*baseval=*/0, num_vertices, verttab.data(), verttab.data() + 1, velotab.data(),
                        /*vlbltab=*/nullptr, num_arcs, edgetab.data(), edlotab.data()) != 0) {
    return InternalError(StrFormat("Scotch: SCOTCH_graphBuild failed on %d vertices", static_cast<int>(num_vertices)));
  }
  if (SCOTCH_graphCheck(&s.graph) != 0) return InternalError("Scotch: the partition graph is inconsistent");
  if (SCOTCH_graphInit(&s.bound_graph) != 0) return InternalError("Scotch: cannot initialize a graph");
  s.bound_ready = true;
  if (SCOTCH_contextBindGraph(&s.context, &s.graph, &s.bound_graph) != 0) {
    return InternalError("Scotch: cannot bind the graph to its context");
  }
  if (SCOTCH_stratInit(&s.strategy) != 0) return InternalError("Scotch: cannot initialize a strategy");
  s.strategy_ready = true;
  if (SCOTCH_stratGraphMapBuild(&s.strategy, SCOTCH_STRATDEFAULT, k, kImbalance) != 0) {
    return InternalError("Scotch: cannot build the default mapping strategy");
  }
  if (SCOTCH_graphPart(&s.bound_graph, k, &s.strategy, parttab.data()) != 0) {
    return InternalError(
        StrFormat("Scotch: SCOTCH_graphPart failed on %d vertices and %d parts", static_cast<int>(num_vertices), k));
  }
  return std::vector<int>(parttab.begin(), parttab.end());
}

}  // namespace graphopt
