// `graphopt bench --fidelity`: the simulator measured against real executions on this
// machine's cores (exec/executor.h). For each graph: its ops profiled in isolation and
// inside executed steps (exec/profiler.h), at least ten plans (the baselines, some with
// greedy fusion, a random plan and GO's plan found on the profile), every plan executed
// and simulated with the roofline and with both profiles; then per cost model the
// figures of eval/fidelity.h (mean absolute error, worst error, Spearman over all plans
// and within each graph, regret of the simulator's pick), the noise floor of the
// measurement, the real evaluation (GO's plan, measured, against every baseline's), a
// Markdown report, a JSON file and an SVG scatter chart.
//
// Measuring: every plan of a graph gets its executor first; then rounds, each running
// two steps of every plan (the order rotating from round to round), so that a slow
// phase of the machine falls on every plan alike; the first of the two is not
// measured (it starts on caches full of the plan before's data:
// docs/experiments/2026-11-29-fidelity.md, "How the measurement had to be made"), each
// plan's time is the median of the second ones. The noise floor is what two halves of the same rounds disagree by
// (odd rounds against even ones). A machine running another job measures that job:
// the bench refuses to start when the load average says so, unless --force.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "core/median.h"
#include "core/strings.h"

#ifdef GRAPHOPT_HAVE_EXEC
#include <nlohmann/json.hpp>

#include "baselines/baseline.h"
#include "cli/cluster_flag.h"
#include "cli/interrupt.h"
#include "core/files.h"
#include "core/rng.h"
#include "eval/fidelity.h"
#include "exec/executor.h"
#include "exec/local_cluster.h"
#include "exec/profiler.h"
#include "models/load.h"
#include "sim/cost_model.h"
#include "sim/plan.h"
#include "sim/random_graph.h"
#include "sim/simulator.h"
#ifdef GRAPHOPT_HAVE_RL
#include "rl/default_policy.h"
#include "rl/learned_search.h"
#endif
#endif

namespace graphopt {
namespace {

// Six training graphs whose step runs in 0.05-2 s on one core of this machine.
constexpr const char* kDefaultModels =
    "rnnlm:layers=2,batch=16,steps=10,hidden=256,vocab=2000;"
    "gnmt:layers=2,batch=16,steps=8,hidden=256,vocab=2000;"
    "transformer_xl:layers=2,batch=4,segment=64,memory=64,model=256,heads=4,inner=512,vocab=2000,segments=2;"
    "wavenet:stacks=1,layers=6,batch=4,length=1024,channels=32,skip=64,quantization=64;"
    "inception_v3:batch=2,image=149,classes=100;"
    "amoebanet:cells=2,filters=16,batch=2,image=96,classes=100";

// What the fidelity bench measures: its flags bound to the fields (cli/flag_table.h).
struct FidelityRun {
  int64_t steps = 9;
  int64_t warmup = 2;
  double go_time = 30;
  uint64_t seed = 0;
};
const OptionTable<FidelityRun> kFidelityFlags{
    {"steps", &FidelityRun::steps, "measured rounds, two steps of every plan each, the second measured",
     InRange(2, 1000)},
    {"warmup", &FidelityRun::warmup, "rounds of one step of every plan before measuring", InRange(0, 1000)},
    {"go-time", &FidelityRun::go_time, "seconds of GO's search per graph on the planning profile, 0 for no GO plan",
     AtLeast(0)},
    {"seed", &FidelityRun::seed, "seed of the data, the random plan and GO", InRange(0, 0x1p62)},
};

std::vector<FlagSpec> FidelityFlags() {
  return FlagsAround(
      {
          {"fidelity", false, "the fidelity bench (this help)"},
          {"models", true,
           "models separated by ';' (default: six built-ins sized to run a step in 0.05-2 s on one core)"},
          {"cluster", true, "local (one device per core, the default) or local:N"},
          {"plan-profile", true,
           "the op times the baselines and GO plan with: in-step (default), isolation or roofline"},
      },
      kFidelityFlags,
      {
          {"out", true,
           "results .json (default fidelity.json); the .md report and the .svg chart are written beside it"},
          {"force", false, "measure even when the load average of the last minute is over 0.75 (another job running)"},
          {"help", false, "show this help"},
      });
}

std::string Usage() {
  return "usage: graphopt bench --fidelity [--models M1;M2] [--steps N] [--go-time S] [--out fidelity.json] [--force]\n"
         "  executes at least ten plans of each graph on this machine's cores and simulates each with the\n"
         "  roofline and with measured op times: errors, rank correlation, regret, noise floor, and GO's\n"
         "  plan measured against every baseline's\n" +
         FlagsHelp(FidelityFlags());
}

int Fail(const std::string& message) { return CommandError("bench", message); }

#ifdef GRAPHOPT_HAVE_EXEC

using Json = nlohmann::json;

// The cost models every plan is simulated with.
const char* const kModels[] = {"roofline", "isolation", "in-step"};
constexpr int kNumModels = 3;

struct PlanRun {
  std::string name;
  Plan plan;
  std::string error;  // why it was not executed ("" if it was)
  std::unique_ptr<Executor> executor;
  std::vector<double> steps_us;
  std::vector<SimResult> steps;  // with timelines: only the run the in-step profile comes from
  bool profile_only = false;     // that run: not a plan of the table
  double simulated_us[kNumModels] = {0, 0, 0};
  double measured_us() const;
  double spread() const;
  double half_gap() const;  // |median(odd rounds) - median(even rounds)| / median
};

// (max - min) / median of a series; 0 if empty.
double Spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  return (*std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end())) / Median(v);
}

double PlanRun::measured_us() const { return Median(steps_us); }
double PlanRun::spread() const { return Spread(steps_us); }
double PlanRun::half_gap() const {
  std::vector<double> odd, even;
  for (size_t i = 0; i < steps_us.size(); ++i) (i % 2 == 0 ? even : odd).push_back(steps_us[i]);
  if (odd.empty() || even.empty()) return 0;
  return std::fabs(Median(odd) - Median(even)) / measured_us();
}

struct GraphRun {
  std::string model;
  int ops = 0;
  double isolation_sum_us = 0, in_step_sum_us = 0;  // sums of the profiles' op times
  std::vector<PlanRun> plans;
  std::vector<std::vector<double>> reference_us;  // per device: its reference GEMM, once per round
};


double ProfileSum(const Profile& p) {
  double sum = 0;
  for (double t : p.op_time_us) sum += t > 0 ? t : 0;
  return sum;
}

StatusOr<Graph> WithProfile(const Graph& graph, const Profile& profile) {
  Graph g = graph;
  GO_RETURN_IF_ERROR(ApplyProfile(profile, CostModelOptions().measured_reference_flops, &g));
  return g;
}

// GO's plan, as `graphopt optimize --profile` finds it: the default search (from the
// shipped pre-trained policy when there is one) for `seconds`.
StatusOr<Plan> GoPlan(const Simulator& simulator, double seconds, uint64_t seed, const std::atomic<bool>* stop) {
#ifdef GRAPHOPT_HAVE_RL
  GO_ASSIGN_OR_RETURN(LearnedSearchConfig config, DefaultSearchConfig("go"));
  GO_ASSIGN_OR_RETURN(DefaultPolicy policy, FindDefaultPolicy(ProgramCheckout()));
  config.pretrained = policy.path;
  config.time_limit_s = seconds;
  config.seed = seed;
  config.threads = 0;
  GO_ASSIGN_OR_RETURN(auto search, LearnedSearch::Create(simulator, config));
  GO_ASSIGN_OR_RETURN(LearnedSearchResult result, search->Run(stop));
  return result.plan;
#else
  (void)simulator, (void)seconds, (void)seed, (void)stop;
  return Unimplemented("this build has no training library (LibTorch was not found)");
#endif
}

// Makes the plans of one graph: the baselines, some with greedy fusion, a random plan
// and GO's.
std::vector<PlanRun> MakePlans(const Graph& graph, const Cluster& cluster, const Simulator& planner, double go_seconds,
                               uint64_t seed, const std::atomic<bool>* stop) {
  std::vector<PlanRun> plans;
  auto add = [&](const std::string& name, StatusOr<Plan> plan) {
    PlanRun run;
    run.name = name;
    if (plan.ok()) {
      run.plan = std::move(*plan);
    } else {
      run.error = plan.status().message();
    }
    plans.push_back(std::move(run));
  };
  for (const std::string& method : BaselineNames()) add(method, RunBaseline(method, graph, cluster, planner.cost_model()));
  for (const char* method : {"expert", "metis", "heft"}) {
    BaselineOptions options;
    options.fusion = true;
    add(std::string(method) + "+fusion", RunBaseline(method, graph, cluster, planner.cost_model(), options));
  }
  Rng rng(seed);
  add("random", RandomPlan(graph, cluster, RandomPlanOptions(), rng));
  if (go_seconds > 0) add("go", GoPlan(planner, go_seconds, seed, stop));
  return plans;
}

std::string Ms(double us) { return StrFormat("%.2f", us / 1e3); }

std::string ErrorCell(double simulated, double measured) {
  if (simulated <= 0 || measured <= 0) return "-";
  return StrFormat("%s (%+.1f%%)", Ms(simulated).c_str(), 100 * (simulated - measured) / measured);
}

std::vector<FidelityPoint> Points(const std::vector<GraphRun>& runs, int model) {
  std::vector<FidelityPoint> points;
  for (const GraphRun& g : runs) {
    for (const PlanRun& p : g.plans) {
      if (!p.error.empty()) continue;
      points.push_back({g.model, p.name, p.measured_us(), p.spread(), p.simulated_us[model]});
    }
  }
  return points;
}

std::string NanText(double v) { return std::isnan(v) ? "-" : StrFormat("%.3f", v); }

// The Markdown report: per graph the plans, then the figures per cost model, the noise
// floor and the real evaluation.
std::string Report(const std::vector<GraphRun>& runs, const std::string& cluster, int steps, int warmup,
                   const std::string& plan_profile, double go_seconds) {
  std::string md = "# Fidelity of the simulator on " + cluster + "\n\n";
  md += StrFormat(
      "Executed: the median of %d rounds after %d warm-up rounds (ms), every plan once per round. Simulated with the "
      "roofline, with op times measured in isolation (`graphopt profile`) and inside executed one-device steps "
      "(in-step: every op on the first device, unfused, a run of its own in the same rounds; `graphopt profile "
      "--in-step` measures the same at another time). Baselines and GO planned with the %s op times (in-step: "
      "`graphopt profile --in-step` before the rounds); GO: `optimize` for %.0f s.\n\n",
      steps, warmup, plan_profile.c_str(), go_seconds);
  for (const GraphRun& g : runs) {
    md += StrFormat("## %s (%d ops; op times sum to %s ms in isolation, %s ms in the rounds' steps)\n\n", g.model.c_str(), g.ops,
                    Ms(g.isolation_sum_us).c_str(), Ms(g.in_step_sum_us).c_str());
    md += "| plan | executed | spread | roofline | isolation | in-step |\n|---|---:|---:|---:|---:|---:|\n";
    for (const PlanRun& p : g.plans) {
      if (!p.error.empty()) {
        md += "| " + p.name + " | not run: " + p.error + " | | | | |\n";
        continue;
      }
      md += StrFormat("| %s | %s | %.1f%% | %s | %s | %s |\n", p.name.c_str(), Ms(p.measured_us()).c_str(),
                      100 * p.spread(), ErrorCell(p.simulated_us[0], p.measured_us()).c_str(),
                      ErrorCell(p.simulated_us[1], p.measured_us()).c_str(),
                      ErrorCell(p.simulated_us[2], p.measured_us()).c_str());
    }
    md += "\n";
  }
  std::vector<FidelityStats> stats;
  for (int m = 0; m < kNumModels; ++m) stats.push_back(ComputeFidelity(Points(runs, m)));
  md += "## Figures per cost model\n\n";
  md += "| cost model | plans | mean abs error | worst error | Spearman (all) | lowest Spearman in a graph | mean regret | "
        "worst regret |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (int m = 0; m < kNumModels; ++m) {
    const FidelityStats& s = stats[static_cast<size_t>(m)];
    md += StrFormat("| %s | %d | %.1f%% | %+.1f%% (%s) | %s | %s | %.1f%% | %.1f%% |\n", kModels[m], s.points,
                    100 * s.mean_abs_error, 100 * s.worst_error, s.worst.c_str(), NanText(s.spearman).c_str(),
                    NanText(s.min_spearman).c_str(), 100 * s.mean_regret, 100 * s.max_regret);
  }
  md += "\nPer graph (Spearman; the simulator's pick, measured best, regret):\n\n| graph |";
  for (const char* m : kModels) md += std::string(" ") + m + " |";
  md += "\n|---|---|---|---|\n";
  for (size_t g = 0; g < stats[0].graphs.size(); ++g) {
    md += "| " + stats[0].graphs[g].graph + " |";
    for (int m = 0; m < kNumModels; ++m) {
      const GraphFidelity& f = stats[static_cast<size_t>(m)].graphs[g];
      md += StrFormat(" %s; %s / %s, %.1f%% |", NanText(f.spearman).c_str(), f.picked.c_str(), f.best.c_str(),
                      100 * f.regret);
    }
    md += "\n";
  }
  std::vector<double> spreads, gaps;
  for (const GraphRun& g : runs) {
    for (const PlanRun& p : g.plans) {
      if (!p.error.empty()) continue;
      spreads.push_back(p.spread());
      gaps.push_back(p.half_gap());
    }
  }
  md += StrFormat(
      "\nNoise floor: the medians of the odd and the even rounds of one plan differ by %.1f%% (median over the plans; "
      "at most %.1f%%); the steps of one plan spread over %.1f%% of their median (max - min, median over the plans).\n",
      100 * Median(gaps), gaps.empty() ? 0.0 : 100 * *std::max_element(gaps.begin(), gaps.end()), 100 * Median(spreads));
  md += "The machine apart from any plan: one 512^3 GEMM per device and round (median of 5), its spread over the "
        "rounds (max - min over the median) per graph:";
  for (const GraphRun& g : runs) {
    md += " " + g.model.substr(0, g.model.find(':')) + " ";
    for (size_t d = 0; d < g.reference_us.size(); ++d) {
      md += StrFormat("%s%.1f%%", d == 0 ? "" : " / ", 100 * Spread(g.reference_us[d]));
    }
    md += ";";
  }
  md += "\n";
  md += "\n## Real evaluation: GO's plan, measured, against every baseline's\n\n| graph | go | best other plan | go "
        "vs it |\n|---|---:|---|---:|\n";
  int wins = 0, graphs = 0;
  for (const GraphRun& g : runs) {
    const PlanRun* go = nullptr;
    const PlanRun* best = nullptr;
    for (const PlanRun& p : g.plans) {
      if (!p.error.empty()) continue;
      if (p.name == "go") {
        go = &p;
      } else if (p.name != "random" && (best == nullptr || p.measured_us() < best->measured_us())) {
        best = &p;
      }
    }
    if (go == nullptr || best == nullptr) continue;
    ++graphs;
    if (go->measured_us() < best->measured_us()) ++wins;
    md += StrFormat("| %s | %s | %s %s | %.3fx |\n", g.model.c_str(), Ms(go->measured_us()).c_str(), best->name.c_str(),
                    Ms(best->measured_us()).c_str(), best->measured_us() / go->measured_us());
  }
  md += StrFormat("\nGO's plan measured fastest on %d of %d graphs.\n", wins, graphs);
  return md;
}

Json ResultsJson(const std::vector<GraphRun>& runs, const std::string& cluster, int steps, int warmup) {
  Json j;
  j["format"] = "graphopt-fidelity";
  j["version"] = 1;
  j["cluster"] = cluster;
  j["steps"] = steps;
  j["warmup"] = warmup;
  Json graphs = Json::array();
  for (const GraphRun& g : runs) {
    Json plans = Json::array();
    for (const PlanRun& p : g.plans) {
      Json e = {{"plan", p.name}};
      if (!p.error.empty()) {
        e["error"] = p.error;
      } else {
        e["steps_us"] = p.steps_us;
        e["measured_us"] = p.measured_us();
        for (int m = 0; m < kNumModels; ++m) e[std::string("simulated_") + kModels[m] + "_us"] = p.simulated_us[m];
      }
      plans.push_back(e);
    }
    graphs.push_back({{"model", g.model}, {"ops", g.ops}, {"plans", plans}, {"reference_gemm_us", g.reference_us}});
  }
  j["graphs"] = graphs;
  Json stats = Json::object();
  for (int m = 0; m < kNumModels; ++m) {
    const FidelityStats s = ComputeFidelity(Points(runs, m));
    auto num = [](double v) { return std::isnan(v) ? Json(nullptr) : Json(v); };
    stats[kModels[m]] = {{"points", s.points},           {"mean_abs_error", s.mean_abs_error},
                         {"worst_error", s.worst_error}, {"worst", s.worst},
                         {"spearman", num(s.spearman)},  {"min_spearman", num(s.min_spearman)},
                         {"mean_regret", s.mean_regret}, {"max_regret", s.max_regret}};
  }
  j["stats"] = stats;
  return j;
}

// Runs the rounds: every executable plan one step per round, the order rotating.
// After every measured round, each device's reference GEMM (exec/local_cluster.h) joins
// `reference_us`: the machine's own drift over the rounds.
Status Measure(std::vector<PlanRun>* plans, int warmup, int steps, const std::vector<std::vector<int>>& core_sets,
               std::vector<std::vector<double>>* reference_us, const std::atomic<bool>* stop) {
  reference_us->assign(core_sets.size(), {});
  std::vector<PlanRun*> live;
  for (PlanRun& p : *plans) {
    if (p.executor) live.push_back(&p);
  }
  for (int round = 0; round < warmup + steps; ++round) {
    for (size_t k = 0; k < live.size(); ++k) {
      if (stop->load()) return Cancelled("interrupted");
      PlanRun* p = live[(k + static_cast<size_t>(round)) % live.size()];
      if (!p->executor) continue;
      // A step right after another plan's finds the caches full of that plan's data:
      // one step first, unmeasured, as in training, where steps follow each other.
      for (int k = 0; k < (round >= warmup ? 2 : 1) && p->executor; ++k) {
        StatusOr<SimResult> r = p->executor->RunStep();
        if (!r.ok() && p->profile_only) return r.status().WithContext(p->name);
        if (!r.ok()) {  // the plan is reported as not run; the others go on
          p->error = r.status().message();
          p->executor.reset();
          p->steps_us.clear();
          break;
        }
        if (k == 1) p->steps_us.push_back(r->step_time_us);
        if (k == 1 && !r->timeline.empty()) p->steps.push_back(std::move(*r));
      }
    }
    for (size_t d = 0; d < core_sets.size() && round >= warmup; ++d) {
      (*reference_us)[d].push_back(ReferenceGemmUs(core_sets[d]));
    }
    std::fprintf(stderr, "\r  round %d/%d", round + 1, warmup + steps);
  }
  std::fprintf(stderr, "\n");
  return Status::Ok();
}

#endif  // GRAPHOPT_HAVE_EXEC

}  // namespace

int RunFidelityBench(int argc, char** argv) {
  auto args = Args::Parse("bench", argc, argv, 2, FidelityFlags());
  if (!args.ok()) return Fail(args.status().message() + "\n" + Usage());
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
#ifndef GRAPHOPT_HAVE_EXEC
  return Fail("--fidelity: this build has no executor (LibTorch was not found)");
#else
  if (!args->positional().empty()) return Fail("unexpected argument '" + args->positional()[0] + "'\n" + Usage());
  FidelityRun bench;
  if (Status flags = ApplyBoundFlags(*args, kFidelityFlags, &bench); !flags.ok()) return Fail(flags.message());
  const std::string plan_profile = args->Get("plan-profile", "in-step");
  int planner_model = -1;
  for (int m = 0; m < kNumModels; ++m) {
    if (plan_profile == kModels[m]) planner_model = m;
  }
  if (planner_model < 0) return Fail("--plan-profile " + plan_profile + ": in-step, isolation or roofline");
  const std::string out = args->Get("out", "fidelity.json");
  if (out.size() < 6 || out.substr(out.size() - 5) != ".json") return Fail("--out " + out + ": a .json file");
  const std::string stem = out.substr(0, out.size() - 5);
  for (const std::string& path : {out, stem + ".md", stem + ".svg"}) {
    Status writable = CheckOutputWritable(path, "--out");
    if (!writable.ok()) return Fail(writable.message());
  }
  double load[1] = {0};
  if (!args->Has("force") && getloadavg(load, 1) == 1 && load[0] > 0.75) {
    return Fail(StrFormat("the load average is %.2f: another job seems to be running, and it would be measured too; "
                          "wait for it to end (or pass --force)",
                          load[0]));
  }
  const std::string cluster_name = args->Get("cluster", "local");
  auto core_sets = LocalCoresWithThreads(cluster_name, argv);
  if (!core_sets.ok()) return Fail(core_sets.status().message());
  auto cluster = LoadClusterFlag(cluster_name);
  if (!cluster.ok()) return Fail(cluster.status().message());
  std::printf("cluster      %s\n", cluster->Summary().c_str());
  ScopedInterrupt interrupt;

  std::vector<GraphRun> runs;
  for (const std::string& spec : SplitList(args->Get("models", kDefaultModels), ';')) {
    const std::string& model = spec;
    auto graph = LoadModel(model);
    if (!graph.ok()) return Fail(graph.status().message());
    std::printf("\n== %s: %d ops\n", model.c_str(), graph->num_ops());
    std::fflush(stdout);
    ProfileOptions profile_options;
    profile_options.seed = bench.seed;
    profile_options.interrupt = interrupt.flag();
    auto isolation = ProfileGraph(*graph, *cluster, core_sets->front(), profile_options);
    if (!isolation.ok()) return Fail(model + ": " + isolation.status().message());
    auto in_step = ProfileInStep(*graph, *cluster, core_sets->front(), 5, profile_options);
    if (!in_step.ok()) return Fail(model + ": " + in_step.status().message());
    GraphRun run;
    run.model = model;
    run.ops = graph->num_ops();
    run.isolation_sum_us = ProfileSum(*isolation);
    std::printf("profiles     op times sum to %s ms in isolation, %s ms in executed steps\n",
                Ms(run.isolation_sum_us).c_str(), Ms(ProfileSum(*in_step)).c_str());
    auto g_isolation = WithProfile(*graph, *isolation);
    if (!g_isolation.ok()) return Fail(g_isolation.status().message());
    auto g_in_step = WithProfile(*graph, *in_step);
    if (!g_in_step.ok()) return Fail(g_in_step.status().message());
    const Graph* graphs[kNumModels] = {&*graph, &*g_isolation, &*g_in_step};
    std::vector<Simulator> sims;
    for (const Graph* g : graphs) {
      auto sim = Simulator::Create(*g, *cluster);
      if (!sim.ok()) return Fail(model + ": " + sim.status().message());
      sims.push_back(std::move(*sim));
    }
    if (bench.go_time > 0) std::printf("planning     GO searches for %.0f s on the %s op times\n", bench.go_time, plan_profile.c_str());
    std::fflush(stdout);
    run.plans = MakePlans(*graphs[planner_model], *cluster, sims[static_cast<size_t>(planner_model)], bench.go_time,
                          bench.seed, interrupt.flag());
    if (interrupt.flag()->load()) return Fail("interrupted");
    ExecOptions exec_options;
    exec_options.seed = bench.seed;
    for (PlanRun& p : run.plans) {
      if (!p.error.empty()) continue;
      for (int m = 0; m < kNumModels; ++m) {
        auto r = sims[static_cast<size_t>(m)].Simulate(p.plan);
        if (r.ok() && !r->oom) p.simulated_us[m] = r->step_time_us;
      }
      auto executor = Executor::Create(*graph, *cluster, *core_sets, p.plan, exec_options);
      if (!executor.ok()) {
        p.error = executor.status().message();
        continue;
      }
      p.executor = std::move(*executor);
    }
    // The in-step profile the errors are measured with is taken in the same rounds,
    // from a run of its own (every op on the first device, unfused, each step's
    // timeline kept): the machine's speed drifts by 10-30% from minute to minute here,
    // which a profile taken before the rounds would count as the simulator's error.
    PlanRun profiler;
    profiler.name = "in-step profile";
    profiler.profile_only = true;
    {
      profiler.plan = DefaultPlan(*graph, 0);
      ExecOptions timed = exec_options;
      timed.record_timeline = true;
      auto executor = Executor::Create(*graph, *cluster, *core_sets, profiler.plan, timed);
      if (!executor.ok()) return Fail(model + ": " + executor.status().message());
      profiler.executor = std::move(*executor);
    }
    run.plans.push_back(std::move(profiler));
    Status measured = Measure(&run.plans, static_cast<int>(bench.warmup), static_cast<int>(bench.steps), *core_sets,
                              &run.reference_us, interrupt.flag());
    if (!measured.ok()) return Fail(model + ": " + measured.message());
    profiler = std::move(run.plans.back());
    run.plans.pop_back();
    auto co_profile = ProfileFromSteps(*graph, *cluster, profiler.steps);
    if (!co_profile.ok()) return Fail(model + ": " + co_profile.status().message());
    run.in_step_sum_us = ProfileSum(*co_profile);
    auto g_co = WithProfile(*graph, *co_profile);
    if (!g_co.ok()) return Fail(g_co.status().message());
    auto sim_co = Simulator::Create(*g_co, *cluster);
    if (!sim_co.ok()) return Fail(model + ": " + sim_co.status().message());
    for (PlanRun& p : run.plans) {
      if (!p.error.empty()) continue;
      auto r = sim_co->Simulate(p.plan);
      p.simulated_us[2] = r.ok() && !r->oom ? r->step_time_us : 0;
    }
    std::printf("in step      op times sum to %s ms in the rounds\n", Ms(run.in_step_sum_us).c_str());
    std::printf("%-16s %10s %7s %18s %18s %18s\n", "plan", "executed", "spread", "roofline", "isolation", "in-step");
    for (PlanRun& p : run.plans) {
      p.executor.reset();
      if (!p.error.empty()) {
        std::printf("%-16s not run: %s\n", p.name.c_str(), p.error.c_str());
        continue;
      }
      std::printf("%-16s %10s %6.1f%% %18s %18s %18s\n", p.name.c_str(), Ms(p.measured_us()).c_str(), 100 * p.spread(),
                  ErrorCell(p.simulated_us[0], p.measured_us()).c_str(),
                  ErrorCell(p.simulated_us[1], p.measured_us()).c_str(),
                  ErrorCell(p.simulated_us[2], p.measured_us()).c_str());
    }
    std::fflush(stdout);
    runs.push_back(std::move(run));
  }

  const std::string report =
      Report(runs, cluster->name(), static_cast<int>(bench.steps), static_cast<int>(bench.warmup), plan_profile, bench.go_time);
  const size_t figures = report.find("## Figures per cost model");
  std::printf("\n%s", report.substr(figures).c_str());
  std::vector<FidelityPanel> panels;
  for (int m = 0; m < kNumModels; ++m) panels.push_back({kModels[m], Points(runs, m)});
  Status written = WriteFileAtomic(out, ResultsJson(runs, cluster->name(), static_cast<int>(bench.steps),
                                                    static_cast<int>(bench.warmup)).dump(1) + "\n");
  if (written.ok()) written = WriteFileAtomic(stem + ".md", report);
  if (written.ok()) {
    written = WriteFileAtomic(stem + ".svg", FidelityScatterSvg(panels, "Simulated against executed step time on " +
                                                                            cluster->name()));
  }
  if (!written.ok()) return Fail(written.message());
  std::printf("\nwrote        %s, %s.md, %s.svg\n", out.c_str(), stem.c_str(), stem.c_str());
  return 0;
#endif
}

}  // namespace graphopt
