// `graphopt bench --fidelity`: the simulator measured against real executions on this
// machine's cores (exec/executor.h). For each graph: its ops profiled in isolation and
// inside executed steps (exec/profiler.h), at least ten plans (the baselines, some with
// greedy fusion, a random plan and GO's plan found on the profile), every plan executed
// in the rounds of exec/fidelity_rounds.h and simulated with the roofline and with both
// profiles; then the report of eval/fidelity_report.h: per cost model the figures of
// eval/fidelity.h, the noise floor of the measurement, the real evaluation (GO's plan,
// measured, against every baseline's), as Markdown, a JSON file and an SVG scatter
// chart. A machine running another job measures that job: the bench refuses to start
// when the load average says so, unless --force.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "core/strings.h"

#ifdef GRAPHOPT_HAVE_EXEC
#include "baselines/baseline.h"
#include "cli/cluster_flag.h"
#include "cli/interrupt.h"
#include "cli/verify_found.h"
#include "core/files.h"
#include "core/rng.h"
#include "eval/fidelity.h"
#include "eval/fidelity_report.h"
#include "exec/busy_profile.h"
#include "exec/concurrency.h"
#include "exec/executor.h"
#include "exec/fidelity_rounds.h"
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

// Six built-in training graphs whose step runs in 0.05-2 s on one core of this machine,
// then four ONNX exports of the project's data folder (batch 1) that do too.
constexpr const char* kDefaultModels =
    "rnnlm:layers=2,batch=16,steps=10,hidden=256,vocab=2000;"
    "gnmt:layers=2,batch=16,steps=8,hidden=256,vocab=2000;"
    "transformer_xl:layers=2,batch=4,segment=64,memory=64,model=256,heads=4,inner=512,vocab=2000,segments=2;"
    "wavenet:stacks=1,layers=6,batch=4,length=1024,channels=32,skip=64,quantization=64;"
    "inception_v3:batch=2,image=149,classes=100;"
    "amoebanet:cells=2,filters=16,batch=2,image=96,classes=100";
constexpr const char* kDefaultOnnx[] = {"squeezenet1_1", "lstm_lm", "resnet50", "transformer_seq2seq"};

// What the fidelity bench measures: its flags bound to the fields (cli/flag_table.h).
struct FidelityRun {
  int64_t steps = 9;
  int64_t warmup = 2;
  double go_time = 30;
  int64_t go_verify = 0;
  uint64_t seed = 0;
};
const OptionTable<FidelityRun> kFidelityFlags{
    {"steps", &FidelityRun::steps, "measured rounds, two steps of every plan each, the second measured",
     InRange(2, 1000)},
    {"warmup", &FidelityRun::warmup, "rounds of one step of every plan before measuring", InRange(0, 1000)},
    {"go-time", &FidelityRun::go_time, "seconds of GO's search per graph on the planning profile, 0 for no GO plan",
     AtLeast(0)},
    {"go-verify", &FidelityRun::go_verify,
     "GO's plan as optimize --verify K picks it: the best plans of its K best placements, the baselines' and the "
     "single-device plan executed, the fastest kept (0: the simulator's pick)",
     InRange(0, 16)},
    {"seed", &FidelityRun::seed, "seed of the data, the random plan and GO", InRange(0, 0x1p62)},
};

std::vector<FlagSpec> FidelityFlags() {
  return FlagsAround(
      {
          {"fidelity", false, "the fidelity bench (this help)"},
          {"models", true,
           "models separated by ';' (default: six built-ins and four ONNX exports of the data folder, "
           "$GRAPHOPT_DATA_DIR or ../shared/data beside the checkout, each running a step in 0.05-2 s on one core)",
           "M1;M2"},
          {"cluster", true, "local (one device per core, the default) or local:N", "C"},
          {"plan-profile", true,
           "the op times the baselines and GO plan with: in-step (default), isolation or roofline", "P"},
      },
      kFidelityFlags,
      {
          {"out", true,
           "results .json (default fidelity.json); the .md report and the .svg chart are written beside it", "FILE"},
          {"force", false, "measure even when the load average of the last minute is over 0.75 (another job running)"},
      });
}

#ifdef GRAPHOPT_HAVE_EXEC

// The bench's settings from its flags and the machine it measures, checked before any
// graph runs.
struct FidelitySettings {
  FidelityRun bench;
  std::string plan_profile;  // a name of kFidelityModels
  int planner_model = -1;    // its index
  std::string out, stem;     // the .json file, and its path without ".json"
  std::vector<std::vector<int>> core_sets;  // each device's cores
  Cluster cluster;
};

// Fails unless the last minute's load average leaves the machine to the bench.
Status CheckIdle(const Args& args) {
  double load[1] = {0};
  if (!args.Has("force") && getloadavg(load, 1) == 1 && load[0] > 0.75) {
    return FailedPrecondition(StrFormat(
        "the load average is %.2f: another job seems to be running, and it would be measured too; "
        "wait for it to end (or pass --force)",
        load[0]));
  }
  return Status::Ok();
}

StatusOr<FidelitySettings> SettingsFromFlags(const Args& args) {
  FidelitySettings s;
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kFidelityFlags, &s.bench));
  s.plan_profile = args.Get("plan-profile", "in-step");
  for (int m = 0; m < kNumFidelityModels; ++m) {
    if (s.plan_profile == kFidelityModels[m]) s.planner_model = m;
  }
  if (s.planner_model < 0) return InvalidArgument("--plan-profile " + s.plan_profile + ": in-step, isolation or roofline");
  s.out = args.Get("out", "fidelity.json");
  if (s.out.size() < 6 || s.out.substr(s.out.size() - 5) != ".json") {
    return InvalidArgument("--out " + s.out + ": a .json file");
  }
  s.stem = s.out.substr(0, s.out.size() - 5);
  for (const std::string& path : {s.out, s.stem + ".md", s.stem + ".svg"}) {
    GO_RETURN_IF_ERROR(CheckOutputWritable(path, "--out"));
  }
  GO_RETURN_IF_ERROR(CheckIdle(args));
  const std::string cluster_name = args.Get("cluster", "local");
  GO_ASSIGN_OR_RETURN(s.core_sets, LocalCoresWithThreads(cluster_name, args.argv()));
  GO_ASSIGN_OR_RETURN(s.cluster, LoadClusterFlag(cluster_name));
  return s;
}

// `value`, or its error in the context of `model`.
template <class T>
StatusOr<T> ForModel(const std::string& model, StatusOr<T> value) {
  if (!value.ok()) return value.status().WithContext(model);
  return value;
}

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

// A graph under the cost models of kFidelityModels: the graph with each one's op times
// (the first: the graph as loaded) and its simulator. The graphs live on the heap,
// where the simulators point.
struct CostModels {
  std::unique_ptr<Graph> graphs[kNumFidelityModels];
  std::vector<Simulator> sims;
};

// Loads `model`, profiles its ops in isolation and in executed steps, and makes its
// simulator under each cost model; `run` gets its size and the isolation profile's sum.
StatusOr<CostModels> ProfiledModels(const std::string& model, const FidelitySettings& s, const std::atomic<bool>* stop,
                                    FidelityGraphRun* run) {
  CostModels models;
  GO_ASSIGN_OR_RETURN(Graph graph, LoadModel(model));
  std::printf("\n== %s: %d ops\n", model.c_str(), graph.num_ops());
  std::fflush(stdout);
  ProfileOptions profile_options;
  profile_options.seed = s.bench.seed;
  profile_options.interrupt = stop;
  GO_ASSIGN_OR_RETURN(const Profile isolation,
                      ForModel(model, ProfileGraph(graph, s.cluster, s.core_sets.front(), profile_options)));
  GO_ASSIGN_OR_RETURN(const Profile in_step,
                      ForModel(model, ProfileInStep(graph, s.cluster, s.core_sets.front(), 5, profile_options)));
  run->ops = graph.num_ops();
  run->isolation_sum_us = ProfileSum(isolation);
  std::printf("profiles     op times sum to %s ms in isolation, %s ms in executed steps\n",
              FidelityMs(run->isolation_sum_us).c_str(), FidelityMs(ProfileSum(in_step)).c_str());
  GO_ASSIGN_OR_RETURN(Graph g_isolation, WithProfile(graph, isolation));
  GO_ASSIGN_OR_RETURN(Graph g_in_step, WithProfile(graph, in_step));
  models.graphs[0] = std::make_unique<Graph>(std::move(graph));
  models.graphs[1] = std::make_unique<Graph>(std::move(g_isolation));
  models.graphs[2] = std::make_unique<Graph>(std::move(g_in_step));
  for (const std::unique_ptr<Graph>& g : models.graphs) {
    GO_ASSIGN_OR_RETURN(Simulator sim, ForModel(model, Simulator::Create(*g, s.cluster)));
    models.sims.push_back(std::move(sim));
  }
  return models;
}

// GO's plan, as `graphopt optimize --profile` finds it: the default search (from the
// shipped pre-trained policy when there is one) for `seconds`; with `verify` > 0, as
// optimize --verify picks it (its top plans executed on `core_sets`, the fastest kept).
struct GoPick {
  Plan plan;
  std::string kept;  // with verify: the name of the candidate kept ("2 (polish)", "heft (baseline)")
};
StatusOr<GoPick> GoPlan(const Simulator& simulator, double seconds, int verify, uint64_t seed,
                        const std::vector<std::vector<int>>& core_sets, const std::atomic<bool>* stop) {
#ifdef GRAPHOPT_HAVE_RL
  GO_ASSIGN_OR_RETURN(LearnedSearchConfig config, DefaultSearchConfig("go"));
  GO_ASSIGN_OR_RETURN(DefaultPolicy policy, FindDefaultPolicy(ProgramCheckout()));
  config.pretrained.file = policy.path;
  config.budget.time_limit_s = seconds;
  config.seed = seed;
  config.budget.threads = 0;
  config.keep_plans = verify;
  GO_ASSIGN_OR_RETURN(auto search, LearnedSearch::Create(simulator, config));
  GO_ASSIGN_OR_RETURN(LearnedSearchResult result, search->Run(stop));
  if (verify == 0) return GoPick{std::move(result.plan), ""};
  GO_ASSIGN_OR_RETURN(VerifyResult verified,
                      VerifyFoundPlans(simulator, core_sets, result.top_plans, result.baseline_plans, seed, stop));
  return GoPick{std::move(verified.plan), verified.plans[static_cast<size_t>(verified.best)].name};
#else
  (void)simulator, (void)seconds, (void)verify, (void)seed, (void)core_sets, (void)stop;
  return FailedPrecondition("this build has no training library (LibTorch was not found)");
#endif
}

// A plan of the table as the driver carries it: what the report says of it, and the
// plan itself.
struct CandidatePlan {
  FidelityPlanRun record;
  Plan plan;
};

// The plans of one graph: the baselines, some with greedy fusion, a random plan and
// GO's, each made on `planner`'s cost model; a plan that could not be made has its
// error.
std::vector<CandidatePlan> MakePlans(const Graph& graph, const FidelitySettings& s, const Simulator& planner,
                                     const std::atomic<bool>* stop) {
  const Cluster& cluster = s.cluster;
  const uint64_t seed = s.bench.seed;
  std::vector<CandidatePlan> plans;
  auto add = [&](const std::string& name, PlanSource source, StatusOr<Plan> plan) {
    CandidatePlan c;
    c.record.name = name;
    c.record.source = source;
    if (plan.ok()) {
      c.plan = std::move(*plan);
    } else {
      c.record.error = plan.status().message();
    }
    plans.push_back(std::move(c));
  };
  for (const std::string& method : BaselineNames()) {
    add(method, PlanSource::kBaseline, RunBaseline(method, graph, cluster, planner.cost_model()));
  }
  for (const char* method : {"expert", "metis", "heft"}) {
    BaselineOptions options;
    options.fusion = true;
    add(std::string(method) + "+fusion", PlanSource::kBaseline,
        RunBaseline(method, graph, cluster, planner.cost_model(), options));
  }
  Rng rng(seed);
  add("random", PlanSource::kRandom, RandomPlan(graph, cluster, RandomPlanOptions(), rng));
  if (s.bench.go_time > 0) {
    StatusOr<GoPick> go =
        GoPlan(planner, s.bench.go_time, static_cast<int>(s.bench.go_verify), seed, s.core_sets, stop);
    add("go", PlanSource::kLearned, go.ok() ? StatusOr<Plan>(go->plan) : StatusOr<Plan>(go.status()));
    if (go.ok()) plans.back().record.verify_kept = go->kept;
  }
  return plans;
}

// An executor's steps for the rounds (which own it from then on).
std::function<StatusOr<SimResult>()> StepsOf(std::unique_ptr<Executor> executor) {
  return [e = std::shared_ptr<Executor>(std::move(executor))] { return e->RunStep(); };
}

// Simulates every plan that was made under each cost model and gives it an executor;
// the rounds, one per plan in their order, then the run of the in-step profile taken in
// the same rounds (every op on the first device, unfused, each step's timeline kept):
// the machine's speed drifts by 10-30% from minute to minute here, which a profile taken
// before the rounds would count as the simulator's error; with two devices or more, then
// the same profile's run with every other device busy (exec/busy_profile.h), for the op
// kinds' slowdowns. Fails if the in-step profile's run cannot be made.
StatusOr<std::vector<RoundsPlan>> PrepareRounds(const CostModels& models, const FidelitySettings& s,
                                                std::vector<CandidatePlan>* plans) {
  const Graph& graph = *models.graphs[0];
  ExecOptions exec_options;
  exec_options.seed = s.bench.seed;
  std::vector<RoundsPlan> rounds(plans->size());
  for (size_t i = 0; i < plans->size(); ++i) {
    FidelityPlanRun& p = (*plans)[i].record;
    rounds[i].name = p.name;
    if (!p.error.empty()) continue;
    for (int m = 0; m < kNumFidelityModels; ++m) {
      auto r = models.sims[static_cast<size_t>(m)].Simulate((*plans)[i].plan);
      if (r.ok() && !r->oom) p.simulated_us[m] = r->step_time_us;
    }
    auto executor = Executor::Create(graph, s.cluster, s.core_sets, (*plans)[i].plan, exec_options);
    if (!executor.ok()) {
      p.error = executor.status().message();
      continue;
    }
    rounds[i].step = StepsOf(std::move(*executor));
  }
  RoundsPlan profiler;
  profiler.name = "in-step profile";
  profiler.required = true;
  ExecOptions timed = exec_options;
  timed.record_timeline = true;
  GO_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor,
                      Executor::Create(graph, s.cluster, s.core_sets, DefaultPlan(graph, 0), timed));
  profiler.step = StepsOf(std::move(executor));
  rounds.push_back(std::move(profiler));
  if (s.core_sets.size() >= 2) {
    RoundsPlan busy;
    busy.name = "in-step profile, others busy";
    auto steps = BusySteps::Create(graph, s.cluster, s.core_sets, exec_options);
    if (steps.ok()) {
      busy.step = [b = std::shared_ptr<BusySteps>(std::move(*steps))] { return b->RunStep(); };
    } else {
      busy.error = steps.status().message();
    }
    rounds.push_back(std::move(busy));
  }
  return rounds;
}

// The rounds; with two devices or more, one sample of their contention after every
// measured round (the machine's share moves from minute to minute: the calibration
// made before the plans is not what the rounds ran with).
Status RunGraphRounds(const FidelitySettings& s, const std::atomic<bool>* stop, std::vector<RoundsPlan>* rounds,
                      FidelityGraphRun* run) {
  RoundsOptions options;
  options.warmup = static_cast<int>(s.bench.warmup);
  options.steps = static_cast<int>(s.bench.steps);
  options.reference_cores = s.core_sets;
  options.stop = stop;
  options.on_round = [](int done, int all) { std::fprintf(stderr, "\r  round %d/%d", done, all); };
  run->calibrated = s.cluster.contention();
  if (s.core_sets.size() >= 2) {
    options.after_measured_round = [&s, run]() -> Status {
      GO_ASSIGN_OR_RETURN(const Contention c, MeasureContention(s.core_sets, 1));
      run->round_contention.push_back(c);
      return Status::Ok();
    };
  }
  GO_RETURN_IF_ERROR(RunRounds(options, rounds, &run->reference_us));
  std::fprintf(stderr, "\n");
  return Status::Ok();
}

// What the rounds measured of each plan, into its record; then the in-step cost model
// again, from the profile of the rounds' own run (the one after the plans in `rounds`),
// the contention sampled in the rounds and the op kinds' slowdowns from the busy run
// after it, where it ran (and, where there are samples, once more with the
// calibration's, once with the rounds' probes alone and once without the read
// slowdown of received tensors, apart).
Status TakeMeasurements(const std::string& model, const CostModels& models, const FidelitySettings& s,
                        const std::vector<RoundsPlan>& rounds, std::vector<CandidatePlan>* plans,
                        FidelityGraphRun* run) {
  for (size_t i = 0; i < plans->size(); ++i) {
    FidelityPlanRun& p = (*plans)[i].record;
    if (!rounds[i].error.empty()) p.error = rounds[i].error;
    p.steps_us = rounds[i].steps_us;
    p.measured_us = MeasuredUs(p.steps_us);
    p.spread = Spread(p.steps_us);
    p.half_gap = HalfGap(p.steps_us);
  }
  const Graph& graph = *models.graphs[0];
  const RoundsPlan& profiler = rounds[plans->size()];
  GO_ASSIGN_OR_RETURN(const Profile co_profile,
                      ForModel(model, ProfileFromSteps(graph, s.cluster, profiler.timelines)));
  run->in_step_sum_us = ProfileSum(co_profile);
  if (rounds.size() > plans->size() + 1) {
    const RoundsPlan& busy = rounds[plans->size() + 1];
    const StatusOr<Profile> busy_profile = busy.error.empty() ? ProfileFromSteps(graph, s.cluster, busy.timelines)
                                                              : StatusOr<Profile>(InternalError(busy.error));
    if (busy_profile.ok()) {
      run->kinds = KindSlowdowns(graph, co_profile, *busy_profile);
    } else {
      std::fprintf(stderr, "%s: no op kinds measured busy (%s); the probes alone\n", model.c_str(),
                   busy_profile.status().message().c_str());
    }
  }
  GO_ASSIGN_OR_RETURN(const Graph g_co, WithProfile(graph, co_profile));
  Cluster in_rounds = s.cluster;
  in_rounds.set_contention(FidelityRoundsContention(*run));
  GO_ASSIGN_OR_RETURN(const Simulator sim_co, ForModel(model, Simulator::Create(g_co, in_rounds)));
  // The in-step model once more with the rounds' contention changed by `change`.
  const auto with_contention = [&](const auto& change) -> StatusOr<Simulator> {
    Cluster changed = in_rounds;
    Contention c = changed.contention();
    change(&c);
    changed.set_contention(c);
    return ForModel(model, Simulator::Create(g_co, changed));
  };
  std::optional<Simulator> sim_calibrated, sim_probes, sim_no_read;
  if (!run->round_contention.empty()) {
    GO_ASSIGN_OR_RETURN(Simulator calibrated, ForModel(model, Simulator::Create(g_co, s.cluster)));
    sim_calibrated.emplace(std::move(calibrated));
  }
  if (!run->kinds.empty()) {
    GO_ASSIGN_OR_RETURN(Simulator probes_only, with_contention([](Contention* c) { c->kinds.clear(); }));
    sim_probes.emplace(std::move(probes_only));
  }
  if (in_rounds.contention().read != 1) {
    GO_ASSIGN_OR_RETURN(Simulator without, with_contention([](Contention* c) { c->read = 1; }));
    sim_no_read.emplace(std::move(without));
  }
  const auto step_us = [](const Simulator& sim, const Plan& plan) {
    auto r = sim.Simulate(plan);
    return r.ok() && !r->oom ? r->step_time_us : 0;
  };
  for (CandidatePlan& c : *plans) {
    if (!c.record.error.empty()) continue;
    c.record.simulated_us[2] = step_us(sim_co, c.plan);
    if (sim_calibrated) c.record.calibrated_in_step_us = step_us(*sim_calibrated, c.plan);
    if (sim_probes) c.record.probes_in_step_us = step_us(*sim_probes, c.plan);
    if (sim_no_read) c.record.no_read_in_step_us = step_us(*sim_no_read, c.plan);
  }
  for (const std::vector<double>& reference : run->reference_us) run->reference_spread.push_back(Spread(reference));
  return Status::Ok();
}

// One graph's part of the bench: profiles, plans, rounds, and the table of its plans.
StatusOr<FidelityGraphRun> MeasureGraph(const std::string& model, const FidelitySettings& s,
                                        const std::atomic<bool>* stop) {
  FidelityGraphRun run;
  run.model = model;
  GO_ASSIGN_OR_RETURN(const CostModels models, ProfiledModels(model, s, stop, &run));
  if (s.bench.go_time > 0) {
    std::printf("planning     GO searches for %.0f s on the %s op times%s\n", s.bench.go_time, s.plan_profile.c_str(),
                s.bench.go_verify > 0 ? StrFormat(", its %lld best placements executed and the fastest kept",
                                                  static_cast<long long>(s.bench.go_verify)).c_str()
                                      : "");
  }
  std::fflush(stdout);
  const size_t planner = static_cast<size_t>(s.planner_model);
  std::vector<CandidatePlan> plans =
      MakePlans(*models.graphs[planner], s, models.sims[planner], stop);
  if (stop->load()) return Cancelled("interrupted");
  GO_ASSIGN_OR_RETURN(std::vector<RoundsPlan> rounds, ForModel(model, PrepareRounds(models, s, &plans)));
  GO_RETURN_IF_ERROR(RunGraphRounds(s, stop, &rounds, &run).WithContext(model));
  GO_RETURN_IF_ERROR(TakeMeasurements(model, models, s, rounds, &plans, &run));
  for (CandidatePlan& c : plans) run.plans.push_back(std::move(c.record));
  std::printf("in step      op times sum to %s ms in the rounds\n", FidelityMs(run.in_step_sum_us).c_str());
  if (!run.round_contention.empty()) std::printf("contention   %s\n", FidelityContentionText(run).c_str());
  std::printf("%s", FidelityPlanTable(run).c_str());
  std::fflush(stdout);
  return run;
}

// The default set: the built-ins, then the ONNX exports found in the data folder (a
// note on stderr for those not found).
std::string DefaultModels() {
  std::string models = kDefaultModels;
  std::string data;
  if (const char* dir = std::getenv("GRAPHOPT_DATA_DIR"); dir != nullptr && *dir != 0) data = dir;
#ifdef GRAPHOPT_HAVE_RL
  if (data.empty()) data = ProgramCheckout() + "/../shared/data";
#endif
  for (const char* name : kDefaultOnnx) {
    const std::string path = data + "/onnx/" + name + ".onnx";
    if (!data.empty() && FileExists(path)) {
      models += ";" + path;
    } else {
      std::fprintf(stderr, "note: %s not found (set GRAPHOPT_DATA_DIR to the data folder): left out\n", path.c_str());
    }
  }
  return models;
}

Status WriteReports(const std::vector<FidelityGraphRun>& runs, const FidelitySettings& s) {
  const FidelitySetup setup{s.cluster.name(), static_cast<int>(s.bench.steps), static_cast<int>(s.bench.warmup),
                            s.plan_profile, s.bench.go_time};
  std::printf("\n%s", FidelityFiguresMarkdown(runs).c_str());
  GO_RETURN_IF_ERROR(WriteFileAtomic(s.out, FidelityResultsJson(runs, setup)));
  GO_RETURN_IF_ERROR(WriteFileAtomic(s.stem + ".md", FidelityMarkdown(runs, setup)));
  GO_RETURN_IF_ERROR(WriteFileAtomic(
      s.stem + ".svg", FidelityScatterSvg(FidelityPanels(runs), "Simulated against executed step time on " + s.cluster.name())));
  std::printf("\nwrote        %s, %s.md, %s.svg\n", s.out.c_str(), s.stem.c_str(), s.stem.c_str());
  return Status::Ok();
}

#endif  // GRAPHOPT_HAVE_EXEC

Status FidelityBench(const Args& args) {
#ifndef GRAPHOPT_HAVE_EXEC
  (void)args;
  return FailedPrecondition("--fidelity: this build has no executor (LibTorch was not found)");
#else
  GO_ASSIGN_OR_RETURN(const FidelitySettings s, SettingsFromFlags(args));
  std::printf("cluster      %s\n", s.cluster.Summary().c_str());
  ScopedInterrupt interrupt;
  std::vector<FidelityGraphRun> runs;
  for (const std::string& model : SplitList(args.Has("models") ? args.Get("models") : DefaultModels(), ';')) {
    GO_ASSIGN_OR_RETURN(FidelityGraphRun run, MeasureGraph(model, s, interrupt.flag()));
    runs.push_back(std::move(run));
  }
  return WriteReports(runs, s);
#endif
}

}  // namespace

Command FidelityCommand() {
  Command c;
  c.name = "bench";
  c.selector = "fidelity";
  c.summary = "the simulator against executed plans on this machine's cores";
  c.flags = FidelityFlags;
  c.notes =
      "Executes at least ten plans of each graph on this machine's cores and simulates each with the\n"
      "roofline and with measured op times: errors, rank correlation, regret, noise floor, and GO's\n"
      "plan measured against every baseline's.";
  c.run = FidelityBench;
  return c;
}

}  // namespace graphopt
