#include "eval/task_effects.h"

#include <algorithm>

#include "baselines/baseline.h"
#include "core/strings.h"
#include "graph/verifier.h"

namespace graphopt {
namespace {

// The fused kernels of a plan (groups of two ops or more) and the bytes of the tensors
// that never leave one (every reader in the producer's group); `order` is the graph's
// topological order.
void CountFusion(const Graph& graph, const std::vector<OpId>& order, const Plan& plan, TaskEffects::Variant* v) {
  const size_t n = static_cast<size_t>(graph.num_ops());
  std::vector<OpId> root(n);
  std::vector<int> size(n, 0);
  for (OpId o : order) {
    const size_t i = static_cast<size_t>(o);
    const OpId p = plan.fuse_with_producer.empty() || !plan.fuse_with_producer[i] ? kNoId : FusionProducer(graph, o);
    root[i] = p == kNoId ? o : root[static_cast<size_t>(p)];
    ++size[static_cast<size_t>(root[i])];
  }
  v->fused_kernels = static_cast<int>(std::count_if(size.begin(), size.end(), [](int s) { return s > 1; }));
  v->bytes_kept = 0;
  for (TensorId t = 0; t < graph.num_tensors(); ++t) {
    const Tensor& tensor = graph.tensor(t);
    if (tensor.producer == kNoId || tensor.consumers.empty()) continue;
    const OpId r = root[static_cast<size_t>(tensor.producer)];
    if (size[static_cast<size_t>(r)] < 2) continue;
    const bool inside = std::all_of(tensor.consumers.begin(), tensor.consumers.end(),
                                    [&](OpId c) { return root[static_cast<size_t>(c)] == r; });
    if (inside) v->bytes_kept += tensor.bytes();
  }
}

StatusOr<TaskEffects::Variant> Measure(const Simulator& sim, const std::vector<OpId>& order, const Plan& plan) {
  GO_ASSIGN_OR_RETURN(const SimResult r, sim.Simulate(plan));
  TaskEffects::Variant v;
  v.step_time_us = r.step_time_us;
  v.peak_memory = r.device_peak_memory.empty() ? 0 : *std::max_element(r.device_peak_memory.begin(), r.device_peak_memory.end());
  v.kernels = r.num_kernels;
  CountFusion(sim.graph(), order, plan, &v);
  return v;
}

std::string Ms(double us) { return StrFormat("%.1f ms", us / 1e3); }

}  // namespace

StatusOr<TaskEffects> MeasureTaskEffects(const Simulator& sim, const Plan& plan) {
  Plan fusion = plan;
  ApplyDefaultFusion(sim.graph(), &fusion);
  Plan schedule = plan;
  std::fill(schedule.priority.begin(), schedule.priority.end(), 0.0);
  Plan both = fusion;
  std::fill(both.priority.begin(), both.priority.end(), 0.0);
  GO_ASSIGN_OR_RETURN(const std::vector<OpId> order, TopologicalOrder(sim.graph()));
  TaskEffects e;
  GO_ASSIGN_OR_RETURN(e.plan, Measure(sim, order, plan));
  GO_ASSIGN_OR_RETURN(e.default_fusion, Measure(sim, order, fusion));
  GO_ASSIGN_OR_RETURN(e.default_schedule, Measure(sim, order, schedule));
  GO_ASSIGN_OR_RETURN(e.defaults, Measure(sim, order, both));
  return e;
}

std::string TaskEffectsText(const TaskEffects& e) {
  const TaskEffects::Variant &p = e.plan, &f = e.default_fusion, &s = e.default_schedule, &d = e.defaults;
  return StrFormat(
      "fusion: %d fused kernels (default %d), %lld launches (default %lld), %s never written (default %s); "
      "step %s, with the default fusion %s, with ready order %s, with both %s; peak memory %s, %s, %s, %s",
      p.fused_kernels, f.fused_kernels, static_cast<long long>(p.kernels), static_cast<long long>(f.kernels),
      HumanBytes(static_cast<double>(p.bytes_kept)).c_str(), HumanBytes(static_cast<double>(f.bytes_kept)).c_str(),
      Ms(p.step_time_us).c_str(), Ms(f.step_time_us).c_str(), Ms(s.step_time_us).c_str(), Ms(d.step_time_us).c_str(),
      HumanBytes(static_cast<double>(p.peak_memory)).c_str(), HumanBytes(static_cast<double>(f.peak_memory)).c_str(),
      HumanBytes(static_cast<double>(s.peak_memory)).c_str(), HumanBytes(static_cast<double>(d.peak_memory)).c_str());
}

}  // namespace graphopt
