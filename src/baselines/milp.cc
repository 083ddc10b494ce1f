// The exact program of placement and order on a graph (baselines/milp.h): its problem,
// the coarsening's labels, the warm starts, and the plan of the solution.
#include "baselines/milp.h"

#include <algorithm>
#include <numeric>

#include "baselines/baseline.h"
#include "baselines/contiguous_split.h"
#include "core/logging.h"
#include "core/strings.h"

namespace graphopt {

StatusOr<MilpPlanResult> MilpPlan(const Graph& graph, const Cluster& cluster, const CostModel& cost_model,
                                  const MilpOptions& options) {
  const std::string context = "milp on graph " + graph.name();
  std::vector<DeviceId> devices;
  StatusOr<BaechiProblem> problem = BaechiProblemFromGraph(graph, cluster, cost_model, &devices);
  if (!problem.ok()) return problem.status().WithContext(context);
  const int np = problem->num_procs;
  StatusOr<BaechiSchedule> etf = ScheduleBaechi(*problem, BaechiMethod::kEtf);
  if (!etf.ok()) return etf.status().WithContext(context);

  // Labels: the layers (built-in graphs), else the m-ETF processor, else none.
  const int n = graph.num_ops();
  std::vector<std::vector<int32_t>> label_sets;
  std::vector<int32_t> layer(static_cast<size_t>(n));
  std::vector<uint8_t> layer_seen(graph.layer_names().size() + 1, 0);
  int layers = 0;
  for (OpId o = 0; o < n; ++o) {
    layer[static_cast<size_t>(o)] = graph.op(o).layer >= 0 ? graph.op(o).layer + 1 : 0;
    uint8_t& seen = layer_seen[static_cast<size_t>(layer[static_cast<size_t>(o)])];
    if (layer[static_cast<size_t>(o)] > 0 && !seen) ++layers;
    seen = 1;
  }
  // Then runs of consecutive layers, halving their number: a recurrent model's layers
  // feed each other back (attention, input feeding), so per-layer groups that keep
  // acyclic can be too many for max_groups.
  const int num_layer_tags = static_cast<int>(graph.layer_names().size());
  for (int buckets = num_layer_tags; layers >= 2 && buckets >= 2; buckets /= 2) {
    std::vector<int32_t> bucket(static_cast<size_t>(n));
    for (OpId o = 0; o < n; ++o) {
      const int32_t l = layer[static_cast<size_t>(o)];
      bucket[static_cast<size_t>(o)] = l == 0 ? 0 : 1 + (l - 1) * buckets / num_layer_tags;
    }
    label_sets.push_back(std::move(bucket));
  }
  label_sets.push_back(etf->proc);
  StatusOr<MilpCoarsening> coarse = CoarsenForMilp(*problem, label_sets, options.max_groups);
  if (!coarse.ok()) return coarse.status().WithContext(context);
  const BaechiProblem& cp = coarse->problem;
  const size_t m = static_cast<size_t>(cp.num_tasks);

  // Warm starts: the placements of m-ETF, the expert (where the family has one) and the
  // optimal contiguous split, each group on the processor that holds most of its ops'
  // cost there (a colocation class: its first group's), and everything on each
  // processor.
  std::vector<int32_t> proc_of_device(static_cast<size_t>(cluster.num_devices()), -1);
  for (int q = 0; q < np; ++q) proc_of_device[static_cast<size_t>(devices[static_cast<size_t>(q)])] = q;
  auto project = [&](const std::vector<int32_t>& op_proc) {
    std::vector<double> weight(m * static_cast<size_t>(np), 0);
    for (OpId o = 0; o < n; ++o) {
      const int32_t q = op_proc[static_cast<size_t>(o)];
      if (q < 0) continue;
      const size_t g = static_cast<size_t>(coarse->group_of_task[static_cast<size_t>(o)]);
      weight[g * static_cast<size_t>(np) + static_cast<size_t>(q)] += problem->Cost(o, q) + 1e-9;
    }
    std::vector<int32_t> group_proc(m, 0), class_proc(m, -1);
    for (size_t g = 0; g < m; ++g) {
      const auto row = weight.begin() + static_cast<std::ptrdiff_t>(g * static_cast<size_t>(np));
      group_proc[g] = static_cast<int32_t>(std::max_element(row, row + np) - row);
      const int32_t c = cp.group[g];
      if (c < 0) continue;
      if (class_proc[static_cast<size_t>(c)] < 0) class_proc[static_cast<size_t>(c)] = group_proc[g];
      group_proc[g] = class_proc[static_cast<size_t>(c)];
    }
    return group_proc;
  };
  std::vector<std::vector<int32_t>> starts{project(etf->proc)};
  for (int which = 0; which < 2; ++which) {
    StatusOr<Plan> plan = which == 0 ? ExpertPlan(graph, cluster, cost_model)
                                     : ContiguousSplitPlan(graph, cluster, cost_model, SplitObjective::kMax);
    if (!plan.ok()) continue;  // no expert for this family, or no split
    std::vector<int32_t> op_proc(static_cast<size_t>(n));
    for (OpId o = 0; o < n; ++o) op_proc[static_cast<size_t>(o)] = proc_of_device[static_cast<size_t>(plan->device[static_cast<size_t>(o)])];
    starts.push_back(project(op_proc));
  }
  for (int q = 0; q < np; ++q) starts.emplace_back(m, q);
  StatusOr<MilpResult> solved = SolveMilp(cp, starts, options);
  if (!solved.ok()) return solved.status().WithContext(context);

  MilpPlanResult out;
  out.result = std::move(*solved);
  out.num_groups = static_cast<int>(m);
  out.num_bands = coarse->num_bands;
  const MilpResult& r = out.result;
  const std::string size = StrFormat("%d ops in %d groups (%d bands), %d columns, %d rows", n, out.num_groups,
                                     out.num_bands, r.num_columns, r.num_rows);
  if (!r.schedule.fits) {
    LogWarning(context + ": " + size + ": no placement found fits every device by the model's memory count" +
               (r.infeasible ? " (proved: none exists)" : "") + "; returning the one that overflows least");
  } else if (r.optimal) {
    LogInfo(context + ": " + size + StrFormat(": proved optimal within the model, %.4g ms (%.1f s, %lld nodes)",
                                              r.schedule.makespan_us / 1e3, r.seconds, static_cast<long long>(r.nodes)));
  } else {
    LogInfo(context + ": " + size +
            StrFormat(": %.4g ms within the model, bound %.4g ms, gap %.1f%% (%s; best from %s, %.1f s, %lld nodes)",
                      r.schedule.makespan_us / 1e3, r.lower_bound_us / 1e3, 100 * r.gap,
                      r.limit_reached ? "stopped at its limit" : "not proved", r.source.c_str(), r.seconds,
                      static_cast<long long>(r.nodes)));
  }
  // The groups' order of start as priorities (earlier: higher).
  std::vector<int32_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  if (r.schedule.start.size() == m) {
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      return r.schedule.start[static_cast<size_t>(a)] < r.schedule.start[static_cast<size_t>(b)];
    });
  }
  std::vector<double> priority(m, 0);
  for (size_t k = 0; k < m; ++k) priority[static_cast<size_t>(order[k])] = static_cast<double>(m - k);
  Plan plan = DefaultPlan(graph, devices[0]);
  for (OpId o = 0; o < n; ++o) {
    const size_t g = static_cast<size_t>(coarse->group_of_task[static_cast<size_t>(o)]);
    const int32_t q = r.schedule.proc.size() == m ? r.schedule.proc[g] : starts[0][g];
    plan.device[static_cast<size_t>(o)] = devices[static_cast<size_t>(q)];
    plan.priority[static_cast<size_t>(o)] = priority[g];
  }
  RespectColocation(graph, &plan);
  out.plan = std::move(plan);
  return out;
}

}  // namespace graphopt
