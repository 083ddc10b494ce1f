#include "sim/lower_bound.h"

#include <cmath>
#include <limits>

#include "sim/lower_bound_parts.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

// Devices with identical cost columns: same kind, peak, bandwidth and launch overhead.
bool SameClass(const Device& a, const Device& b) {
  return a.kind == b.kind && a.peak_flops == b.peak_flops && a.memory_bandwidth == b.memory_bandwidth &&
         a.launch_overhead_us == b.launch_overhead_us;
}

// sum over ops of min over classes of (w_c / n_c) lb(o, c).
double WeightedWork(const std::vector<double>& lb_by_class, int num_classes, const std::vector<double>& w,
                    const std::vector<int>& class_size) {
  double total = 0;
  const size_t n = lb_by_class.size() / static_cast<size_t>(num_classes);
  for (size_t o = 0; o < n; ++o) {
    double best = std::numeric_limits<double>::infinity();
    for (int c = 0; c < num_classes; ++c) {
      best = std::min(best, w[static_cast<size_t>(c)] / class_size[static_cast<size_t>(c)] *
                                lb_by_class[o * static_cast<size_t>(num_classes) + static_cast<size_t>(c)]);
    }
    total += best;
  }
  return total;
}

// Maximizes the concave WeightedWork over the simplex of class weights: golden-
// section search along the segment that moves weight between two classes, over all
// pairs, for a few sweeps. Every point evaluated is a valid bound; we keep the best.
double BestWeightedWork(const std::vector<double>& lb_by_class, const std::vector<int>& class_size) {
  const int k = static_cast<int>(class_size.size());
  std::vector<double> w(static_cast<size_t>(k));
  int total_devices = 0;
  for (int s : class_size) total_devices += s;
  for (int c = 0; c < k; ++c)
    w[static_cast<size_t>(c)] = static_cast<double>(class_size[static_cast<size_t>(c)]) / total_devices;
  double best = WeightedWork(lb_by_class, k, w, class_size);
  if (k == 1) return best;
  const double kPhi = (std::sqrt(5.0) - 1) / 2;
  for (int sweep = 0; sweep < (k == 2 ? 1 : 4); ++sweep) {
    for (int a = 0; a < k; ++a) {
      for (int b = a + 1; b < k; ++b) {
        const double pool = w[static_cast<size_t>(a)] + w[static_cast<size_t>(b)];
        auto eval = [&](double share) {
          std::vector<double> v = w;
          v[static_cast<size_t>(a)] = pool * share;
          v[static_cast<size_t>(b)] = pool * (1 - share);
          return WeightedWork(lb_by_class, k, v, class_size);
        };
        double lo = 0, hi = 1;
        double x1 = hi - kPhi * (hi - lo), x2 = lo + kPhi * (hi - lo);
        double f1 = eval(x1), f2 = eval(x2);
        for (int it = 0; it < 40; ++it) {
          if (f1 < f2) {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + kPhi * (hi - lo);
            f2 = eval(x2);
          } else {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - kPhi * (hi - lo);
            f1 = eval(x1);
          }
        }
        const double share = f1 > f2 ? x1 : x2;
        const double f = std::max(f1, f2);
        if (f > best) {
          best = f;
          w[static_cast<size_t>(a)] = pool * share;
          w[static_cast<size_t>(b)] = pool * (1 - share);
        }
      }
    }
  }
  return best;
}

}  // namespace

std::vector<double> LeastOpContributions(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  const int n = graph.num_ops();
  const int num_devices = cluster.num_devices();
  // Which ops could be the root of a fused group: some consumer could fuse into them.
  std::vector<bool> can_be_root(static_cast<size_t>(n), false);
  std::vector<bool> can_be_member(static_cast<size_t>(n), false);
  for (OpId o = 0; o < n; ++o) {
    if (!CanFuseKind(graph.op(o).kind)) continue;
    const OpId p = FusionProducer(graph, o);
    if (p == kNoId) continue;
    can_be_member[static_cast<size_t>(o)] = true;
    can_be_root[static_cast<size_t>(p)] = true;
  }
  std::vector<double> lb(static_cast<size_t>(n) * static_cast<size_t>(num_devices));
  for (OpId o = 0; o < n; ++o) {
    const Op& op = graph.op(o);
    for (DeviceId d = 0; d < num_devices; ++d) {
      const Device& device = cluster.device(d);
      double best = cost_model.OpTimeUs(op, device);
      if (!cost_model.IsInstant(op) && (can_be_root[static_cast<size_t>(o)] || can_be_member[static_cast<size_t>(o)])) {
        const double measured = cost_model.MeasuredTimeUs(op, device);
        const double part =
            measured >= 0 ? CostModel::MeasuredBodyUs(measured, device) : cost_model.ComputeTimeUs(op, device);
        if (can_be_member[static_cast<size_t>(o)]) best = std::min(best, part);
        if (can_be_root[static_cast<size_t>(o)]) best = std::min(best, device.launch_overhead_us + part);
      }
      lb[static_cast<size_t>(o) * static_cast<size_t>(num_devices) + static_cast<size_t>(d)] = best;
    }
  }
  return lb;
}

StatusOr<LowerBound> ComputeLowerBound(const Graph& graph, const Cluster& cluster, const CostModel& cost_model) {
  const int n = graph.num_ops();
  const int num_devices = cluster.num_devices();
  if (num_devices == 0) return InvalidArgument("lower bound: cluster " + cluster.name() + " has no devices");
  const std::vector<double> lb = LeastOpContributions(graph, cluster, cost_model);
  std::vector<double> lb_min(static_cast<size_t>(n), 0);
  for (OpId o = 0; o < n; ++o) {
    double m = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < num_devices; ++d)
      m = std::min(m, lb[static_cast<size_t>(o) * static_cast<size_t>(num_devices) + static_cast<size_t>(d)]);
    lb_min[static_cast<size_t>(o)] = m;
  }

  // Critical path by Kahn's algorithm over the simulator's dependencies.
  std::vector<int> indegree(static_cast<size_t>(n), 0);
  for (OpId v = 0; v < n; ++v) {
    if (IsFree(graph.op(v).kind)) continue;
    for (TensorId t : graph.op(v).inputs) {
      if (graph.tensor(t).producer != kNoId) ++indegree[static_cast<size_t>(v)];
    }
  }
  std::vector<double> finish(static_cast<size_t>(n), 0);
  std::vector<double> start(static_cast<size_t>(n), 0);
  std::vector<OpId> queue;
  for (OpId o = 0; o < n; ++o) {
    if (indegree[static_cast<size_t>(o)] == 0) queue.push_back(o);
  }
  LowerBound bound;
  size_t processed = 0;
  while (processed < queue.size()) {
    const OpId u = queue[processed++];
    finish[static_cast<size_t>(u)] = start[static_cast<size_t>(u)] + lb_min[static_cast<size_t>(u)];
    bound.critical_path_us = std::max(bound.critical_path_us, finish[static_cast<size_t>(u)]);
    for (TensorId t : graph.op(u).outputs) {
      for (OpId v : graph.tensor(t).consumers) {
        if (IsFree(graph.op(v).kind)) continue;
        start[static_cast<size_t>(v)] = std::max(start[static_cast<size_t>(v)], finish[static_cast<size_t>(u)]);
        if (--indegree[static_cast<size_t>(v)] == 0) queue.push_back(v);
      }
    }
  }
  if (static_cast<int>(processed) != n) {
    for (OpId o = 0; o < n; ++o) {
      if (indegree[static_cast<size_t>(o)] > 0)
        return InvalidArgument("graph " + graph.name() + " has a cycle through op '" + graph.op(o).name + "'");
    }
  }

  // Work bound over classes of identical devices.
  std::vector<int> class_of(static_cast<size_t>(num_devices), -1);
  std::vector<int> class_size;
  std::vector<DeviceId> representative;
  for (DeviceId d = 0; d < num_devices; ++d) {
    for (size_t c = 0; c < representative.size(); ++c) {
      if (SameClass(cluster.device(d), cluster.device(representative[c]))) {
        class_of[static_cast<size_t>(d)] = static_cast<int>(c);
        ++class_size[c];
        break;
      }
    }
    if (class_of[static_cast<size_t>(d)] < 0) {
      class_of[static_cast<size_t>(d)] = static_cast<int>(representative.size());
      representative.push_back(d);
      class_size.push_back(1);
    }
  }
  const size_t k = representative.size();
  std::vector<double> lb_by_class(static_cast<size_t>(n) * k);
  for (OpId o = 0; o < n; ++o) {
    for (size_t c = 0; c < k; ++c) {
      lb_by_class[static_cast<size_t>(o) * k + c] =
          lb[static_cast<size_t>(o) * static_cast<size_t>(num_devices) + static_cast<size_t>(representative[c])];
    }
  }
  bound.work_us = BestWeightedWork(lb_by_class, class_size);

  // tail(o): the longest path out of o, in reverse topological order.
  std::vector<double> tail(static_cast<size_t>(n), 0);
  for (size_t i = queue.size(); i-- > 0;) {
    const OpId u = queue[i];
    double t_u = 0;
    for (TensorId t : graph.op(u).outputs) {
      for (OpId v : graph.tensor(t).consumers) {
        if (IsFree(graph.op(v).kind)) continue;
        t_u = std::max(t_u, lb_min[static_cast<size_t>(v)] + tail[static_cast<size_t>(v)]);
      }
    }
    tail[static_cast<size_t>(u)] = t_u;
  }
  bound.interval_us = lower_bound_internal::IntervalBound(lb_min, start, tail, num_devices,
                                                          std::max(bound.critical_path_us, bound.work_us));
  const lower_bound_internal::MemoryCut cut = lower_bound_internal::MemoryCutBound(graph, cluster, lb_min, start, tail);
  bound.memory_cut_us = cut.bound_us;
  bound.no_plan_fits = cut.no_plan_fits;
  return bound;
}

}  // namespace graphopt
