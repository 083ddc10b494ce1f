// graphopt.optimize: the learned optimizer (the GO search, or ColocRL or HDP) or the
// pre-trained policy's zero-shot plan, as `graphopt optimize` runs them.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "exec/local_cluster.h"
#include "exec/verify_plans.h"
#include "rl/default_policy.h"
#include "rl/learned_search.h"
#include "rl/methods.h"
#include "rl/zero_shot.h"
#include "sim/simulator.h"

namespace graphopt::python {
namespace {

struct OptimizeResult {
  std::shared_ptr<BoundPlan> plan;
  PlanScore score;
  std::string best_baseline;
  double best_baseline_us = 0;
  int64_t steps = 0;
  int64_t plans_simulated = 0;
  double seconds = 0;
  std::string stop_reason;
  std::vector<ConvergencePoint> trace;
  std::vector<VerifiedPlan> verified;  // with verify=K: every plan executed, the kept one first
  int kept = -1;                       // its index in `verified`
  double noise_floor = 0;
};

// The core sets of a local cluster for verify=K, whose kernels must run one OpenMP
// thread per core of a device: ATen takes OMP_NUM_THREADS when it loads, so the
// interpreter must have been started with it (the command restarts itself instead).
std::vector<std::vector<int>> VerifyCores(const Cluster& cluster) {
  if (!IsLocalClusterName(cluster.name())) {
    Check(InvalidArgument("verify=K executes plans on this machine's cores: the cluster must be graphopt.cluster('local') "
                          "or 'local:N', not " + cluster.name()));
  }
  std::vector<std::vector<int>> sets = Value(LocalCoreSets(cluster.name()));
  const size_t threads = CoresPerDevice(sets);
  const char* have = std::getenv("OMP_NUM_THREADS");
  if (have == nullptr || std::to_string(threads) != have) {
    Check(FailedPrecondition("verify=K measures kernels on " + std::to_string(threads) +
                             " core(s) per device: start Python with OMP_NUM_THREADS=" + std::to_string(threads) +
                             " in its environment (it is " + (have == nullptr ? std::string("unset") : have) + ")"));
  }
  return sets;
}

py::dict ProgressDict(const LearnedSearchProgress& p) {
  py::dict d;
  d["step"] = p.step;
  d["seconds"] = p.seconds;
  d["best_us"] = p.best.scored() ? p.best.step_time_us : 0.0;
  d["best_fits"] = p.best.fits();
  d["best_baseline_us"] = p.best_baseline_us;
  d["plans"] = p.plans;
  return d;
}

// The policy a search starts from, by the command's rule (rl/default_policy.h): the
// checkout is the module's, <checkout>/build/python/graphopt.so.
std::string PickPretrained(const std::optional<std::string>& pretrained, const LearnedSearchConfig& config) {
  const std::string module = py::module_::import("graphopt").attr("__file__").cast<std::string>();
  const std::filesystem::path checkout = std::filesystem::path(module).parent_path().parent_path().parent_path();
  const LearnedMethod& method = *Value(FindLearnedMethod(config.method));
  return Value(ChoosePretrained(pretrained, "pretrained=", method.name, method.go_policy, config.policy.has_value(),
                                checkout.string()))
      .path;
}

OptimizeResult Optimize(std::shared_ptr<Graph> graph, std::shared_ptr<Cluster> cluster, double time_limit,
                        int64_t steps, const std::string& method, bool zero_shot,
                        const std::optional<std::string>& pretrained_arg,
                        const std::string& tasks, const std::string& options, uint64_t seed, int threads,
                        const std::string& granularity, int depth, const std::function<void(py::dict)>& progress,
                        int verify) {
  LearnedSearchConfig config = Value(DefaultSearchConfig(method));
  if (verify < 0 || verify > kMaxTopPlans) {
    Check(InvalidArgument("verify: " + std::to_string(verify) + " is out of range [0, " + std::to_string(kMaxTopPlans) + "]"));
  }
  if (verify > 0 && zero_shot) Check(InvalidArgument("verify executes the plans a search found: not with zero_shot"));
  const std::vector<std::vector<int>> cores = verify > 0 ? VerifyCores(*cluster) : std::vector<std::vector<int>>{};
  config.keep_plans = verify;
  config.budget.time_limit_s = time_limit;
  config.budget.max_steps = steps;
  config.seed = seed;
  config.budget.threads = threads;
  std::string text = options;
  if (!tasks.empty()) text += (text.empty() ? "" : ",") + std::string("tasks=") + tasks;
  config = Value(ParseLearnedSearchOptions(text, config));
  const std::string pretrained = PickPretrained(pretrained_arg, config);
  config.pretrained.file = pretrained;
  if (zero_shot && pretrained.empty()) {
    Check(InvalidArgument("zero_shot needs a pre-trained policy: pretrained=FILE (none found by default)"));
  }
  const std::shared_ptr<const Graph> planned = Granular(graph, *cluster, granularity, depth);
  auto sim = std::make_shared<Simulator>(Value(Simulator::Create(*planned, *cluster)));

  OptimizeResult out;
  out.plan = std::make_shared<BoundPlan>();
  out.plan->graph = graph;
  if (zero_shot) {
    StatusOr<ZeroShotResult> z = [&] {
      py::gil_scoped_release release;
      return ZeroShotPlan(*sim, pretrained, SearchZeroShotOptions(config));
    }();
    ZeroShotResult r = Value(std::move(z));
    out.plan->plan = std::move(r.plan);
    out.score = r.score;
    out.plans_simulated = r.num_plans;
    out.seconds = r.seconds;
    out.stop_reason = "zero-shot";
    return out;
  }
  std::unique_ptr<LearnedSearch> search = Value(LearnedSearch::Create(*sim, config));
  // Ctrl-C and the callback's exceptions stop the search after its step; the
  // exception is raised once the search has returned.
  std::atomic<bool> stop{false};
  std::optional<py::error_already_set> raised;
  auto on_step = [&](const LearnedSearchProgress& p) {
    py::gil_scoped_acquire acquire;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (progress) progress(ProgressDict(p));
    } catch (py::error_already_set& e) {
      raised.emplace(std::move(e));
      stop = true;
    }
  };
  StatusOr<LearnedSearchResult> r = [&] {
    py::gil_scoped_release release;
    return search->Run(&stop, on_step);
  }();
  if (raised) throw std::move(*raised);
  LearnedSearchResult result = Value(std::move(r));
  out.plan->plan = std::move(result.plan);
  out.score = result.score;
  out.best_baseline = result.best_baseline;
  out.best_baseline_us = result.best_baseline_score.fits() ? result.best_baseline_score.step_time_us : 0;
  out.steps = result.steps;
  out.plans_simulated = result.plans_simulated;
  out.seconds = result.seconds;
  out.stop_reason = result.stop_reason;
  out.trace = std::move(result.trace);
  if (verify == 0) return out;
  const std::vector<VerifyCandidate> candidates =
      Value(TopPlanCandidates(*sim, result.top_plans, result.baseline_plans));
  StatusOr<VerifyResult> measured = [&] {
    py::gil_scoped_release release;
    VerifyOptions options;
    options.seed = seed;
    return VerifyPlans(sim->graph(), sim->cluster(), cores, candidates, options);
  }();
  VerifyResult v = Value(std::move(measured));
  out.plan->plan = std::move(v.plan);
  out.score = PlanScore::Of(Value(sim->Simulate(out.plan->plan)));
  out.verified = std::move(v.plans);
  out.kept = v.best;
  out.noise_floor = v.noise_floor;
  return out;
}

}  // namespace

void BindOptimize(py::module_& m) {
  py::class_<OptimizeResult>(m, "OptimizeResult", "What graphopt.optimize found.")
      .def_readonly("plan", &OptimizeResult::plan, "The best plan found.")
      .def_property_readonly("step_time_us", [](const OptimizeResult& r) { return r.score.step_time_us; },
                             "Its simulated step time in microseconds.")
      .def_property_readonly("fits", [](const OptimizeResult& r) { return r.score.fits(); }, "It fits in memory.")
      .def_readonly("best_baseline", &OptimizeResult::best_baseline, "The fastest plain baseline that fits ('' if none ran).")
      .def_readonly("best_baseline_us", &OptimizeResult::best_baseline_us, "Its step time (0: none).")
      .def_readonly("steps", &OptimizeResult::steps, "Training steps taken.")
      .def_readonly("plans_simulated", &OptimizeResult::plans_simulated, "Plans scored in all.")
      .def_readonly("seconds", &OptimizeResult::seconds, "Wall-clock seconds.")
      .def_readonly("stop_reason", &OptimizeResult::stop_reason, "'steps', 'time limit', 'converged' or 'zero-shot'.")
      .def_property_readonly(
          "trace",
          [](const OptimizeResult& r) {
            py::list points;
            for (const ConvergencePoint& p : r.trace) {
              py::dict d;
              d["seconds"] = p.seconds;
              d["plans"] = p.plans;
              d["step"] = p.step;
              d["best_us"] = p.best_step_us;
              d["fits"] = p.fits;
              d["source"] = p.source;
              points.append(d);
            }
            return points;
          },
          "The best step time over the run: one dict per improvement (seconds, plans, step, best_us, fits,\n"
          "source: what found it).")
      .def_property_readonly(
          "verified",
          [](const OptimizeResult& r) {
            py::list rows;
            for (size_t i = 0; i < r.verified.size(); ++i) {
              const VerifiedPlan& p = r.verified[i];
              py::dict d;
              d["name"] = p.name;
              d["simulated_us"] = p.simulated_us;
              d["measured_us"] = p.measured_us;
              d["noise"] = p.half_gap;
              d["error"] = p.error;
              d["kept"] = static_cast<int>(i) == r.kept;
              rows.append(d);
            }
            return rows;
          },
          "With verify=K: one dict per plan executed (name, simulated_us, measured_us, noise: its\n"
          "odd-against-even rounds gap, error, kept), the top plans best first, then the single-device\n"
          "plan; `plan` is the kept one, measured fastest. Empty without verify.")
      .def_readonly("noise_floor", &OptimizeResult::noise_floor,
                    "With verify=K: the median of the plans' noise (0 without).")
      .def("__repr__", [](const OptimizeResult& r) {
        return "<graphopt.OptimizeResult " + r.score.ToString() + " after " + std::to_string(r.steps) + " steps>";
      });

  m.def("optimize", &Optimize, py::arg("graph"), py::arg("cluster"), py::arg("time_limit") = kDefaultSearchSeconds,
        py::arg("steps") = 0, py::arg("method") = "go", py::arg("zero_shot") = false, py::arg("pretrained") = py::none(),
        py::arg("tasks") = "", py::arg("options") = "", py::arg("seed") = 0, py::arg("threads") = 0,
        py::arg("granularity") = "op", py::arg("depth") = 0, py::arg("progress") = nullptr, py::arg("verify") = 0,
        "Plans `graph` on `cluster` with the learned optimizer, as `graphopt optimize` does: `method`\n"
        "'go' (the default), 'colocrl' or 'hdp', for `time_limit` seconds (0: none) or `steps` steps\n"
        "(0: none). `pretrained`: a GO policy file to start from ('none' trains a new policy; not\n"
        "given: as graphopt optimize, $GRAPHOPT_POLICY or the checkout's policies/default.pt, unless\n"
        "`options` set the network); with zero_shot=True its one-pass plan, no training. `tasks`: what GO decides\n"
        "('placement+scheduling+fusion', the default, or a part). `options`: the 'key=value,...' of\n"
        "graphopt optimize --policy. granularity='module' keeps every module of `depth` on one device\n"
        "(the plan's device_map; depth 0: two modules holding parameters per accelerator at least).\n"
        "`progress(dict)` is called after every step (step, seconds,\n"
        "best_us, best_fits, best_baseline_us, plans). Ctrl-C, or an exception in `progress`, stops\n"
        "the search after its step and is raised. verify=K (cluster 'local' or 'local:N', Python\n"
        "started with OMP_NUM_THREADS=1 for one core per device): the best plans of the K best\n"
        "placements found and the single-device plan are executed on this machine's cores and the\n"
        "fastest measured is kept (`verified` lists them), as graphopt optimize --verify K does.\n"
        "The GIL is released while it runs.");
}

}  // namespace graphopt::python
