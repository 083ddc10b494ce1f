#include "exec/profiler.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>
#include <thread>
#include <unistd.h>

#include "core/files.h"
#include "core/json_fields.h"
#include "core/median.h"
#include "core/strings.h"
#include "exec/executor.h"
#include "exec/kernels.h"
#include "exec/pin.h"
#include "graph/verifier.h"
#include "sim/plan.h"

namespace graphopt {
namespace {

using Json = nlohmann::json;

std::string AttrText(const AttrValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return StrFormat("%.17g", *d);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return ShapeToString(std::get<std::vector<int64_t>>(v));
}

// What decides an op's time: kind, phase, attributes, input and output shapes and dtypes.
std::string Signature(const Graph& graph, const Op& op) {
  std::string key = std::string(OpKindName(op.kind)) + "/" + PhaseName(op.phase) + "(";
  for (TensorId t : op.inputs) key += ShapeToString(graph.tensor(t).shape) + DTypeName(graph.tensor(t).dtype) + ",";
  key += ")->(";
  for (TensorId t : op.outputs) key += ShapeToString(graph.tensor(t).shape) + DTypeName(graph.tensor(t).dtype) + ",";
  key += ")";
  for (const auto& [k, v] : op.attrs) key += k + "=" + AttrText(v) + ";";
  return key;
}

// Bytes written between two repetitions so that an op starts with the core's own
// caches holding other data, as in a step, where other ops ran between: twice the
// per-core L2 cache (1 MiB if the system does not say).
size_t EvictionBytes() {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  return 2 * static_cast<size_t>(l2 > 0 ? l2 : 1 << 20);
}

void EvictCaches(std::vector<char>* junk) {
  for (size_t i = 0; i < junk->size(); i += 64) ++(*junk)[i];
}

Status Measure(const Graph& graph, const ProfileOptions& options, Profile* profile) {
  GO_ASSIGN_OR_RETURN(std::vector<OpId> order, TopologicalOrder(graph));
  const int n = graph.num_ops();
  std::vector<at::Tensor> value(static_cast<size_t>(graph.num_tensors()));
  std::vector<int> last_read(static_cast<size_t>(graph.num_tensors()), -1);
  for (size_t i = 0; i < order.size(); ++i) {
    for (TensorId t : graph.op(order[i]).inputs) last_read[static_cast<size_t>(t)] = static_cast<int>(i);
  }
  std::map<std::string, double> measured;
  std::vector<char> junk(options.evict_caches ? EvictionBytes() : 0);
  profile->op_time_us.assign(static_cast<size_t>(n), -1);
  using Clock = std::chrono::steady_clock;
  for (size_t i = 0; i < order.size(); ++i) {
    if (options.interrupt != nullptr && options.interrupt->load()) return Cancelled("profile interrupted");
    const OpId o = order[i];
    const Op& op = graph.op(o);
    if (CategoryOf(op.kind) == OpCategory::kSource) {
      for (TensorId t : op.outputs) {
        GO_ASSIGN_OR_RETURN(value[static_cast<size_t>(t)], MakeSourceTensor(graph, t, options.seed));
      }
      continue;
    }
    std::vector<at::Tensor> inputs;
    for (TensorId t : op.inputs) {
      at::Tensor v = value[static_cast<size_t>(t)];
      if (!v.defined()) {  // a metadata op's input: only its shape is read
        v = at::zeros(graph.tensor(t).shape, at::TensorOptions().dtype(ToScalarType(graph.tensor(t).dtype)));
      }
      inputs.push_back(v);
    }
    KernelState state;
    auto run = [&]() -> StatusOr<std::vector<at::Tensor>> { return RunKernel(graph, o, inputs, &state); };
    // An update changes its parameter in place: time it on a copy.
    if (CategoryOf(op.kind) == OpCategory::kUpdate && !inputs.empty()) inputs[0] = inputs[0].clone();
    GO_ASSIGN_OR_RETURN(std::vector<at::Tensor> outputs, run());
    for (size_t k = 0; k < outputs.size() && k < op.outputs.size(); ++k) value[static_cast<size_t>(op.outputs[k])] = outputs[k];
    if (!IsFree(op.kind)) {
      const std::string key = Signature(graph, op);
      auto it = measured.find(key);
      if (it == measured.end()) {
        for (int w = 1; w < options.warmup; ++w) GO_RETURN_IF_ERROR(run().status());
        std::vector<double> times;
        double total = 0;
        while (static_cast<int>(times.size()) < options.max_repetitions &&
               (static_cast<int>(times.size()) < options.min_repetitions || total < options.target_us)) {
          EvictCaches(&junk);
          const auto start = Clock::now();
          GO_RETURN_IF_ERROR(run().status());
          times.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
          total += times.back();
        }
        it = measured.emplace(key, UpperMedian(times)).first;
      }
      profile->op_time_us[static_cast<size_t>(o)] = it->second;
    }
    for (TensorId t : op.inputs) {
      if (last_read[static_cast<size_t>(t)] == static_cast<int>(i)) value[static_cast<size_t>(t)] = at::Tensor();
    }
    if (options.progress) options.progress(static_cast<int>(i + 1), n);
  }
  profile->signatures = static_cast<int>(measured.size());
  return Status::Ok();
}

}  // namespace

StatusOr<Profile> ProfileGraph(const Graph& graph, const Cluster& cluster, const std::vector<int>& cores,
                               const ProfileOptions& options) {
  GO_RETURN_IF_ERROR(CheckKernels(graph));
  Profile profile;
  profile.graph = graph.name();
  profile.num_ops = graph.num_ops();
  profile.cluster = cluster;
  profile.threads = at::get_num_threads();
  // On the device's cores, as the executor's worker runs (its OpenMP threads too).
  GO_RETURN_IF_ERROR(RunPinned(cores, "profile", [&] { return Measure(graph, options, &profile); }));
  return profile;
}

StatusOr<Profile> ProfileFromSteps(const Graph& graph, const Cluster& cluster, const std::vector<SimResult>& steps) {
  if (steps.empty()) return InvalidArgument("profile from steps: no steps");
  std::vector<std::vector<double>> times(static_cast<size_t>(graph.num_ops()));
  for (const SimResult& step : steps) {
    if (step.timeline.empty()) return InvalidArgument("profile from steps: a step without its timeline");
    std::vector<const TimelineEvent*> kernels;
    for (const TimelineEvent& e : step.timeline) {
      if (e.kind != TimelineEvent::Kind::kKernel) continue;
      if (e.num_ops != 1) {
        return InvalidArgument("profile from steps: op '" + graph.op(e.op).name + "' ran fused with " +
                               std::to_string(e.num_ops - 1) + " others (the plan must not fuse)");
      }
      kernels.push_back(&e);
    }
    std::stable_sort(kernels.begin(), kernels.end(), [](const TimelineEvent* a, const TimelineEvent* b) {
      return a->device != b->device ? a->device < b->device : a->start_us < b->start_us;
    });
    // From the end of the task before on the device (or its own start, the first).
    for (size_t i = 0; i < kernels.size(); ++i) {
      const TimelineEvent& e = *kernels[i];
      const bool first = i == 0 || kernels[i - 1]->device != e.device;
      const double from = first ? e.start_us : std::min(e.start_us, kernels[i - 1]->end_us);
      times[static_cast<size_t>(e.op)].push_back(e.end_us - from);
    }
  }
  Profile profile;
  profile.graph = graph.name();
  profile.num_ops = graph.num_ops();
  profile.cluster = cluster;
  profile.threads = at::get_num_threads();
  profile.op_time_us.assign(static_cast<size_t>(graph.num_ops()), -1);
  std::set<std::string> signatures;
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    const Op& op = graph.op(o);
    if (IsFree(op.kind)) continue;
    const std::vector<double>& t = times[static_cast<size_t>(o)];
    if (t.empty()) return InvalidArgument("profile from steps: op '" + op.name + "' never ran");
    profile.op_time_us[static_cast<size_t>(o)] = UpperMedian(t);
    signatures.insert(Signature(graph, op));
  }
  profile.signatures = static_cast<int>(signatures.size());
  return profile;
}

StatusOr<Profile> ProfileInStep(const Graph& graph, const Cluster& cluster, const std::vector<int>& cores, int steps,
                                const ProfileOptions& options) {
  if (steps < 1) return InvalidArgument("profile in step: steps must be at least 1");
  const Cluster one = cluster.Part({0});  // the first device alone: every op on its cores
  const Plan plan = DefaultPlan(graph, 0);
  ExecOptions exec_options;
  exec_options.seed = options.seed;
  exec_options.record_timeline = true;
  GO_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::Create(graph, one, {cores}, plan, exec_options));
  std::vector<SimResult> measured;
  const int total = options.warmup + steps;
  for (int i = 0; i < total; ++i) {
    if (options.interrupt != nullptr && options.interrupt->load()) return Cancelled("profile interrupted");
    GO_ASSIGN_OR_RETURN(SimResult r, executor->RunStep());
    if (i >= options.warmup) measured.push_back(std::move(r));
    if (options.progress) options.progress(i + 1, total);
  }
  GO_ASSIGN_OR_RETURN(Profile profile, ProfileFromSteps(graph, cluster, measured));
  return profile;
}

Status ApplyProfile(const Profile& profile, double reference_flops, Graph* graph) {
  if (profile.graph != graph->name() || profile.num_ops != graph->num_ops()) {
    return InvalidArgument("the profile is of graph '" + profile.graph + "' (" + std::to_string(profile.num_ops) +
                           " ops), not of '" + graph->name() + "' (" + std::to_string(graph->num_ops()) + " ops)");
  }
  if (profile.cluster.num_devices() == 0) return InvalidArgument("the profile has no cluster");
  const double peak = profile.cluster.device(0).peak_flops;
  const double scale = reference_flops > 0 ? peak / reference_flops : 1.0;
  for (OpId o = 0; o < graph->num_ops(); ++o) {
    const double t = profile.op_time_us[static_cast<size_t>(o)];
    graph->mutable_op(o).measured_time_us = t >= 0 ? t * scale : -1;
  }
  return Status::Ok();
}

std::string ProfileToJson(const Graph& graph, const Profile& profile) {
  Json j;
  j["format"] = "graphopt-profile";
  j["version"] = 1;
  j["graph"] = profile.graph;
  j["num_ops"] = profile.num_ops;
  j["threads"] = profile.threads;
  j["signatures"] = profile.signatures;
  j["cluster"] = Json::parse(ClusterToJson(profile.cluster));
  Json ops = Json::array();
  for (OpId o = 0; o < graph.num_ops(); ++o) {
    ops.push_back({{"name", graph.op(o).name}, {"time_us", profile.op_time_us[static_cast<size_t>(o)]}});
  }
  j["ops"] = ops;
  return j.dump(1) + "\n";
}

Status WriteProfileJson(const Graph& graph, const Profile& profile, const std::string& path) {
  return WriteFileAtomic(path, ProfileToJson(graph, profile));
}

StatusOr<Profile> ReadProfileJson(const std::string& path, const Graph& graph) {
  GO_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  GO_ASSIGN_OR_RETURN(Json j, ParseJsonText(text, path));
  GO_RETURN_IF_ERROR(CheckJsonHeader(j, path, "graphopt-profile", 1));
  Profile p;
  GO_ASSIGN_OR_RETURN(p.graph, JsonMemberString(j, "graph", path));
  GO_ASSIGN_OR_RETURN(int64_t n, JsonMemberInt(j, "num_ops", path, 0, int64_t{1} << 31));
  p.num_ops = static_cast<int>(n);
  if (p.graph != graph.name() || p.num_ops != graph.num_ops()) {
    return InvalidArgument(path + ": a profile of graph '" + p.graph + "' (" + std::to_string(p.num_ops) +
                           " ops), not of '" + graph.name() + "' (" + std::to_string(graph.num_ops()) + " ops)");
  }
  GO_ASSIGN_OR_RETURN(int64_t th, JsonMemberInt(j, "threads", path, 1, 4096));
  p.threads = static_cast<int>(th);
  GO_ASSIGN_OR_RETURN(int64_t sg, JsonMemberInt(j, "signatures", path, 0, int64_t{1} << 31));
  p.signatures = static_cast<int>(sg);
  GO_ASSIGN_OR_RETURN(const Json* cluster, JsonMember(j, "cluster", path));
  GO_ASSIGN_OR_RETURN(p.cluster, ClusterFromJson(cluster->dump(), path + ": cluster"));
  GO_ASSIGN_OR_RETURN(const Json* ops, JsonMember(j, "ops", path));
  if (!ops->is_array() || static_cast<int>(ops->size()) != p.num_ops) {
    return ParseError(path + ": \"ops\" must be an array of " + std::to_string(p.num_ops) + " entries");
  }
  p.op_time_us.resize(static_cast<size_t>(p.num_ops));
  for (int o = 0; o < p.num_ops; ++o) {
    const std::string where = path + ": ops[" + std::to_string(o) + "]";
    GO_ASSIGN_OR_RETURN(std::string name, JsonMemberString((*ops)[static_cast<size_t>(o)], "name", where));
    if (name != graph.op(o).name) {
      return InvalidArgument(where + ": op '" + name + "', but op " + std::to_string(o) + " of the graph is '" +
                             graph.op(o).name + "'");
    }
    GO_ASSIGN_OR_RETURN(p.op_time_us[static_cast<size_t>(o)],
                        JsonMemberNumber((*ops)[static_cast<size_t>(o)], "time_us", where, -1.0, 1e12));
  }
  return p;
}

}  // namespace graphopt
