#include "sim/lower_bound_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>

namespace graphopt {
namespace lower_bound_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kUsPerSecond = 1e6;  // as the simulator times a transfer

// An op of positive weight in the interval argument: a = ES + p, b = tail + p.
struct IntervalOp {
  double a, b, p;
};

// Up to `count` of the sorted values, evenly spread by rank (first and last kept).
std::vector<double> Subsample(std::vector<double> values, size_t count) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() <= count || count < 2) return values;
  std::vector<double> out;
  out.reserve(count);
  const double step = static_cast<double>(values.size() - 1) / static_cast<double>(count - 1);
  for (size_t i = 0; i < count; ++i) out.push_back(values[static_cast<size_t>(std::lround(step * static_cast<double>(i)))]);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// L* of the anchored interval (x, y) (lower_bound.h): the ops [0, count) are those with
// a > x. 0 if at most D ops must overlap it. `top` is a scratch min-heap.
double LongestViolatedLength(const IntervalOp* ops, size_t count, double x, double y, int num_devices,
                             std::vector<double>* top) {
  const size_t d = static_cast<size_t>(num_devices);
  top->clear();
  double sum = 0;
  size_t m = 0;
  for (size_t i = 0; i < count; ++i) {
    const double b = std::min(ops[i].p, std::min(ops[i].a - x, ops[i].b - y));
    if (b <= 0) continue;
    sum += b;
    ++m;
    if (top->size() < d) {
      top->push_back(b);
      std::push_heap(top->begin(), top->end(), std::greater<double>());
    } else if (b > top->front()) {
      std::pop_heap(top->begin(), top->end(), std::greater<double>());
      top->back() = b;
      std::push_heap(top->begin(), top->end(), std::greater<double>());
    }
  }
  if (m <= d) return 0;
  std::sort(top->begin(), top->end(), std::greater<double>());
  double best = kInf, largest = 0;
  for (size_t k = 0; k < d; ++k) {
    best = std::min(best, (sum - largest) / static_cast<double>(d - k));
    largest += (*top)[k];
  }
  return std::max(0.0, best);
}

// Union-find over ops with the resident bytes of each component (saturating: a sum
// that would pass INT64_MAX stays there, which only understates it).
class Components {
 public:
  explicit Components(std::vector<int64_t> bytes) : parent_(bytes.size()), bytes_(std::move(bytes)) {
    for (size_t i = 0; i < parent_.size(); ++i) parent_[i] = static_cast<int32_t>(i);
  }
  int32_t Find(int32_t x) {
    while (parent_[static_cast<size_t>(x)] != x) {
      parent_[static_cast<size_t>(x)] = parent_[static_cast<size_t>(parent_[static_cast<size_t>(x)])];
      x = parent_[static_cast<size_t>(x)];
    }
    return x;
  }
  // Joins the components of a and b; returns the root of the result.
  int32_t Union(int32_t a, int32_t b) {
    a = Find(a);
    b = Find(b);
    if (a == b) return a;
    if (bytes_[static_cast<size_t>(a)] < bytes_[static_cast<size_t>(b)]) std::swap(a, b);
    parent_[static_cast<size_t>(b)] = a;
    bytes_[static_cast<size_t>(a)] = SatAdd(bytes_[static_cast<size_t>(a)], bytes_[static_cast<size_t>(b)]);
    return a;
  }
  int64_t Bytes(int32_t root) const { return bytes_[static_cast<size_t>(root)]; }
  static int64_t SatAdd(int64_t a, int64_t b) {
    int64_t s;
    return __builtin_add_overflow(a, b, &s) ? std::numeric_limits<int64_t>::max() : s;
  }

 private:
  std::vector<int32_t> parent_;
  std::vector<int64_t> bytes_;
};

}  // namespace

double IntervalBound(const std::vector<double>& p, const std::vector<double>& es, const std::vector<double>& tail,
                     int num_devices, double proven_us, double max_evaluations) {
  if (!(proven_us > 0) || num_devices <= 0) return 0;
  std::vector<IntervalOp> ops;
  for (size_t o = 0; o < p.size(); ++o) {
    if (p[o] > 0) ops.push_back({es[o] + p[o], tail[o] + p[o], p[o]});
  }
  if (ops.size() <= static_cast<size_t>(num_devices)) return 0;
  // By a descending: the ops with a > x are a prefix.
  std::sort(ops.begin(), ops.end(), [](const IntervalOp& l, const IntervalOp& r) { return l.a > r.a; });
  std::vector<double> xs, ys;
  xs.reserve(2 * ops.size());
  ys.reserve(2 * ops.size());
  for (const IntervalOp& op : ops) {
    xs.push_back(op.a - op.p);
    xs.push_back(op.a);
    ys.push_back(op.b - op.p);
    ys.push_back(op.b);
  }
  // About half the grid's pairs have x + y below the bound.
  const double pairs = std::max(32.0, max_evaluations / static_cast<double>(ops.size()));
  const size_t grid = static_cast<size_t>(std::max(2.0, std::floor(std::sqrt(2 * pairs))));
  xs = Subsample(std::move(xs), grid);
  ys = Subsample(std::move(ys), grid);

  std::vector<double> top;
  top.reserve(static_cast<size_t>(num_devices));
  double best = 0, lo = -kInf, hi = proven_us;
  for (int round = 0; round < 4; ++round) {
    for (double x : xs) {
      if (x >= hi) break;
      const size_t count = static_cast<size_t>(
          std::partition_point(ops.begin(), ops.end(), [x](const IntervalOp& op) { return op.a > x; }) - ops.begin());
      if (count <= static_cast<size_t>(num_devices)) break;
      for (double y : ys) {
        const double s = x + y;
        if (s >= hi) break;
        if (s < lo) continue;
        const double length = LongestViolatedLength(ops.data(), count, x, y, num_devices, &top);
        if (length > 0) best = std::max(best, s + length);
      }
    }
    if (!(best > hi)) break;
    // Pairs with x + y in [hi, best) are now below a proven bound.
    lo = hi;
    hi = best;
  }
  return best;
}

MemoryCut MemoryCutBound(const Graph& graph, const Cluster& cluster, const std::vector<double>& p,
                         const std::vector<double>& es, const std::vector<double>& tail) {
  MemoryCut result;
  const int n = graph.num_ops();
  const int num_devices = cluster.num_devices();
  int64_t largest = 0, capacity = 0, total = 0;
  for (const Device& d : cluster.devices()) {
    largest = std::max(largest, d.memory_bytes);
    capacity = Components::SatAdd(capacity, d.memory_bytes);
  }
  std::vector<int64_t> bytes(static_cast<size_t>(n));
  for (OpId o = 0; o < n; ++o) {
    bytes[static_cast<size_t>(o)] = OpResidentBytes(graph, o);
    total = Components::SatAdd(total, bytes[static_cast<size_t>(o)]);
  }
  auto none_fits = [&result] {
    result.bound_us = kInf;
    result.no_plan_fits = true;
    return result;
  };
  if (capacity < std::numeric_limits<int64_t>::max() && total > capacity) return none_fits();
  Components comps(std::move(bytes));
  std::unordered_map<int32_t, OpId> leader;
  for (OpId o = 0; o < n; ++o) {
    const int32_t g = graph.op(o).colocation_group;
    if (g == kNoId) continue;
    const auto it = leader.emplace(g, o).first;
    if (comps.Bytes(comps.Union(it->second, o)) > largest) return none_fits();
  }
  for (OpId o = 0; o < n; ++o) {
    if (comps.Bytes(comps.Find(o)) > largest) return none_fits();
  }

  // The least transfer time of b bytes is the least of latency + b x us_per_byte over
  // the links; only the links no other beats at both terms can attain it.
  std::vector<std::pair<double, double>> links;
  for (DeviceId a = 0; a < num_devices; ++a) {
    for (DeviceId b = 0; b < num_devices; ++b) {
      if (a != b) links.emplace_back(cluster.link(a, b).latency_us, kUsPerSecond / cluster.PathBandwidth(a, b));
    }
  }
  std::sort(links.begin(), links.end());
  std::vector<std::pair<double, double>> frontier;
  for (const auto& l : links) {
    if (frontier.empty() || l.second < frontier.back().second) frontier.push_back(l);
  }
  auto least_transfer_us = [&frontier](int64_t b) {
    double best = kInf;
    for (const auto& [latency, us_per_byte] : frontier) best = std::min(best, latency + static_cast<double>(b) * us_per_byte);
    return best;
  };

  struct Edge {
    double w;
    OpId u, v;
  };
  std::vector<Edge> edges;
  std::vector<TensorId> seen;
  for (OpId v = 0; v < n; ++v) {
    const Op& op = graph.op(v);
    if (IsFree(op.kind)) continue;
    seen.clear();
    for (TensorId t : op.inputs) {
      const OpId u = graph.tensor(t).producer;
      if (u == kNoId || std::find(seen.begin(), seen.end(), t) != seen.end()) continue;
      seen.push_back(t);
      const size_t uu = static_cast<size_t>(u), uv = static_cast<size_t>(v);
      edges.push_back({es[uu] + p[uu] + least_transfer_us(graph.tensor(t).bytes()) + p[uv] + tail[uv], u, v});
    }
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.w > b.w; });
  for (const Edge& e : edges) {
    if (comps.Find(e.u) == comps.Find(e.v)) continue;
    if (comps.Bytes(comps.Union(e.u, e.v)) > largest) {
      if (std::isinf(e.w)) return none_fits();
      result.bound_us = e.w;
      return result;
    }
  }
  return result;
}

}  // namespace lower_bound_internal
}  // namespace graphopt
