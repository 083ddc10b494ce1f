#include "exec/busy_profile.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "sim/plan.h"

namespace graphopt {

StatusOr<std::unique_ptr<BusySteps>> BusySteps::Create(const Graph& graph, const Cluster& cluster,
                                                       const std::vector<std::vector<int>>& core_sets,
                                                       const ExecOptions& options) {
  if (cluster.num_devices() < 2) return InvalidArgument("busy steps need a cluster of two devices or more");
  if (core_sets.size() != static_cast<size_t>(cluster.num_devices())) {
    return InvalidArgument("busy steps need one core set per device");
  }
  const Plan plan = DefaultPlan(graph, 0);
  std::unique_ptr<BusySteps> steps(new BusySteps());
  ExecOptions timed = options;
  timed.record_timeline = true;
  GO_ASSIGN_OR_RETURN(steps->measured_, Executor::Create(graph, cluster.Part({0}), {core_sets[0]}, plan, timed));
  ExecOptions untimed = options;
  untimed.record_timeline = false;
  for (DeviceId d = 1; d < cluster.num_devices(); ++d) {
    GO_ASSIGN_OR_RETURN(std::unique_ptr<Executor> load,
                        Executor::Create(graph, cluster.Part({d}), {core_sets[static_cast<size_t>(d)]}, plan, untimed));
    steps->load_.push_back(std::move(load));
  }
  return steps;
}

StatusOr<SimResult> BusySteps::RunStep() {
  std::atomic<bool> stop{false};
  std::vector<Status> load_status(load_.size(), Status::Ok());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < load_.size(); ++i) {
    threads.emplace_back([this, i, &stop, &load_status] {
      while (!stop.load(std::memory_order_acquire)) {
        auto r = load_[i]->RunStep();
        if (!r.ok()) {
          load_status[i] = r.status();
          return;
        }
      }
    });
  }
  StatusOr<SimResult> result = measured_->RunStep();
  stop.store(true, std::memory_order_release);
  for (std::thread& t : threads) t.join();
  for (const Status& s : load_status) {
    if (!s.ok()) return s.WithContext("a busy device's step");
  }
  return result;
}

std::map<OpKind, double> KindSlowdowns(const Graph& graph, const Profile& idle, const Profile& busy, double min_share) {
  std::map<OpKind, std::pair<double, double>> sums;  // kind -> (idle, busy)
  double total = 0;
  const size_t n = std::min({static_cast<size_t>(graph.num_ops()), idle.op_time_us.size(), busy.op_time_us.size()});
  for (size_t o = 0; o < n; ++o) {
    const double ti = idle.op_time_us[o], tb = busy.op_time_us[o];
    if (ti < 0 || tb < 0) continue;
    auto& [i, b] = sums[graph.op(static_cast<OpId>(o)).kind];
    i += ti;
    b += tb;
    total += ti;
  }
  std::map<OpKind, double> kinds;
  for (const auto& [kind, sum] : sums) {
    if (sum.first <= 0 || sum.first < min_share * total) continue;
    kinds[kind] = std::clamp(sum.second / sum.first, 1.0, kMaxSlowdown);
  }
  return kinds;
}

StatusOr<BusyProfile> ProfileInStepBusy(const Graph& graph, const Cluster& cluster,
                                        const std::vector<std::vector<int>>& core_sets, int steps,
                                        const ProfileOptions& options) {
  if (steps < 1) return InvalidArgument("busy profile: steps must be at least 1");
  if (cluster.num_devices() < 2)
    return InvalidArgument("busy profile: the cluster has one device; it needs two or more");
  if (core_sets.size() != static_cast<size_t>(cluster.num_devices())) {
    return InvalidArgument("busy profile: one core set per device is needed");
  }
  ExecOptions exec_options;
  exec_options.seed = options.seed;
  exec_options.record_timeline = true;
  GO_ASSIGN_OR_RETURN(std::unique_ptr<Executor> idle,
                      Executor::Create(graph, cluster.Part({0}), {core_sets[0]}, DefaultPlan(graph, 0), exec_options));
  GO_ASSIGN_OR_RETURN(std::unique_ptr<BusySteps> busy, BusySteps::Create(graph, cluster, core_sets, exec_options));
  std::vector<SimResult> idle_steps, busy_steps;
  const int total = options.warmup + steps;
  for (int i = 0; i < total; ++i) {
    for (int half = 0; half < 2; ++half) {
      if (options.interrupt != nullptr && options.interrupt->load()) return Cancelled("profile interrupted");
      const bool loaded = (half + i) % 2 == 1;
      GO_ASSIGN_OR_RETURN(SimResult r, loaded ? busy->RunStep() : idle->RunStep());
      if (i >= options.warmup) (loaded ? busy_steps : idle_steps).push_back(std::move(r));
    }
    if (options.progress) options.progress(i + 1, total);
  }
  BusyProfile out;
  GO_ASSIGN_OR_RETURN(out.idle, ProfileFromSteps(graph, cluster, idle_steps));
  GO_ASSIGN_OR_RETURN(out.busy, ProfileFromSteps(graph, cluster, busy_steps));
  out.kinds = KindSlowdowns(graph, out.idle, out.busy);
  return out;
}

}  // namespace graphopt
