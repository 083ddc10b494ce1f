// `graphopt bench`: the placement suite of the GO paper (13 graphs, each on 2, 4 or 8
// accelerators) with every method, as a Markdown table on standard output and a
// results file that later runs (and later methods) add their columns to, with the
// Markdown, CSV and SVG reports regenerated next to it after every row.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "baselines/baseline.h"
#include "cli/cluster_flag.h"
#include "cli/commands.h"
#include "cli/flag_table.h"
#include "cli/suite_ranks.h"
#include "core/files.h"
#include "core/json_fields.h"
#include "core/options.h"
#include "core/strings.h"
#include "dist/world.h"
#include "eval/convergence_svg.h"
#include "eval/report.h"
#include "eval/results.h"
#include "eval/suite.h"
#include "eval/task_effects.h"
#include "rl/learned_search.h"  // kDefaultSearchSeconds (no LibTorch in it)
#ifdef GRAPHOPT_HAVE_RL
#include "rl/task_configurations.h"
#endif

namespace graphopt {
namespace {

constexpr const char* kDefaultResults = "results/placement.json";
constexpr const char* kDefaultTasksResults = "results/tasks.json";
// Between the JSON texts of a rank's message (JSON escapes it inside strings).
constexpr char kRecordSeparator = '\x1e';

// The settings every method of a run shares, bound to their flags.
struct BenchRun {
  uint64_t seed = 0;
  double time_limit_s = kDefaultSearchSeconds;
};
const OptionTable<BenchRun> kBenchFlags{
    {"seed", &BenchRun::seed, "seed of the randomized partitioners and the learned methods", InRange(0, 0x1p62)},
    {"time-limit", &BenchRun::time_limit_s,
     "seconds per row for each learned method that runs to a time limit (go, colocrl, hdp)", AtLeast(0)},
};

std::vector<FlagSpec> BenchFlags() {
  std::string methods;
  for (const std::string& m : BaselineNames()) methods += (methods.empty() ? "" : ",") + m;
  return FlagsAround({
      {"rows", true, "comma-separated suite rows to run (default: all 13; see --list)", "R1,R2"},
      {"models", true, "model files or built-in specs separated by ';': each a row of its own on --cluster "
                       "(default " + std::string(kDefaultCluster) + "), instead of the suite's rows", "M1;M2"},
      {"methods", true, "comma-separated methods (default: " + methods + "); NAME+fusion adds greedy fusion to a placement",
       "M1,M2"},
      {"cluster", true, "cluster preset or cluster .json file for every row (default: each row's preset; "
                        "use another --results file, since rows run on another cluster replace the default ones)", "C"},
      {"results", true, std::string("results file to add to (default ") + kDefaultResults + ", with --tasks " +
                            kDefaultTasksResults +
                            "); the .md, .csv and .svg reports are written next to it",
       "FILE"},
      {"fusion", false, "also score every method's placement with greedy fusion (columns NAME+fusion; tf-default "
                        "already fuses)"},
      {"decisions", true, "which decisions of each method the table keeps: placement (every column's placement with "
                          "the framework's defaults: ready order, greedy legal fusion of elementwise ops; the default; "
                          "there the learned searches take tasks=placement unless their options name the tasks), "
                          "all (learned methods' own plans against baselines with greedy legal fusion and "
                          "critical-path priorities; the default of --transfer) or as-produced (the default of --tasks)",
       "placement|all|as-produced"},
  }, kBenchFlags, {
      {"go-options", true, "options of the go method, as graphopt optimize --policy takes them", "K=V,..."},
      {"colocrl-options", true, "options of the colocrl method", "K=V,..."},
      {"hdp-options", true, "options of the hdp method", "K=V,..."},
      {"pretrained", true, "pre-trained policy of the zero-shot and finetune methods: a file, or a folder holding "
                           "no-FAMILY.pt per family (each row planned by the policy pre-trained without its family)", "P"},
      {"transfer", true, "the transfer table: --pretrained DIR with the methods single, tf-default, expert, metis, "
                         "scotch, heft, zero-shot and finetune (unless --methods is given)", "DIR"},
      {"finetune-steps", true,
       "PPO steps of the finetune method (default 50), the policy alone, on the pre-trained trunk (finetune-options "
       "frozen_start=0: the whole network learns until the imitation); each step samples at least 6 x 2^20 ops in all "
       "(more samples on small graphs; step_ops=0: 32 a step); after half of them it imitates its best sample "
       "(warm_start=0: it does not) with a learned logit per unit (unit_bias=0: without)", "N"},
      {"zero-shot-options", true, "options of the zero-shot method, as graphopt optimize --policy takes them "
                                  "(zero_shot_samples=N, zero_shot_coupled=N, zero_shot_single=N, ...)", "K=V,..."},
      {"finetune-options", true, "options of the finetune method, as graphopt optimize --policy takes them", "K=V,..."},
      {"tasks", false, "the GO paper's multi-task table: the columns are the eight configurations (tf-default, hp-only, "
                        "pl-only, pl|sch, pl+sch, sch+fu, pl|sch|fu, pl+sch+fu; --methods picks some), each learned one with "
                        "--time-limit and --go-options"},
      {"fidelity", false, "the simulator against executed plans on this machine's cores (bench --fidelity --help)"},
      {"list", false, "list the suite rows and the methods, then exit"},
  });
}

void PrintList() {
  std::printf("%-18s %-26s %-28s %7s  %s\n", "row", "graph", "model", "devices", "cluster");
  for (const SuiteRow& row : PlacementSuiteRows()) {
    std::printf("%-18s %-26s %-28s %7d  %s\n", row.name.c_str(), row.label.c_str(), row.model.c_str(), row.devices,
                row.cluster.c_str());
  }
  std::printf("\nmethods: %s (each also with stages, e.g. NAME+fusion; graphopt methods describes them)\n",
              PlannerRegistry::Global().KnownNames().c_str());
}

#ifdef GRAPHOPT_HAVE_RL
// --tasks: the configurations of the multi-task table (rl/task_configurations.h) as
// methods, --methods picking some; each learned one is GO from scratch with the
// options of --go-options and --time-limit seconds per row. The plain single-GPU and
// expert plans come first, as references (the table's speedups are over the expert).
// What the schedule and fusion of pl+sch+fu are worth on each row goes to *effects.
StatusOr<std::vector<MethodSpec>> TaskConfigurationMethods(const Args& args, const BenchRun& run,
                                                          std::vector<std::string>* effects) {
  std::vector<const TaskConfiguration*> configurations;
  if (args.Has("methods")) {
    for (const std::string& name : SplitList(args.Get("methods"), ',')) {
      auto found = FindTaskConfiguration(name);
      if (!found.ok()) return found.status().WithContext("--tasks");
      configurations.push_back(*found);
    }
  } else {
    for (const TaskConfiguration& c : TaskConfigurations()) configurations.push_back(&c);
  }
  GO_ASSIGN_OR_RETURN(LearnedSearchConfig base, DefaultSearchConfig("go"));
  base.budget.time_limit_s = run.time_limit_s;
  base.seed = run.seed;
  base.budget.threads = ThreadsPerRank();
  auto parsed = ParseLearnedSearchOptions(args.Get("go-options"), base);
  if (!parsed.ok()) return parsed.status().WithContext("--go-options");
  GO_ASSIGN_OR_RETURN(std::vector<MethodSpec> methods, ParseMethods("single,expert", false));
  for (const TaskConfiguration* configuration : configurations) {
    MethodSpec spec;
    spec.name = configuration->name;
    if (configuration->learned && parsed->budget.time_limit_s > 0 && parsed->budget.max_steps == 0) {
      spec.fixed_seconds = parsed->budget.time_limit_s;
    }
    spec.plan = [configuration, cfg = *parsed, effects](const Graph& graph, const Cluster& cluster,
                                                       const Simulator& sim) -> StatusOr<Plan> {
      GO_ASSIGN_OR_RETURN(Plan plan, PlanTaskConfiguration(configuration->name, sim, cfg));
      if (configuration->all_tasks) {
        GO_ASSIGN_OR_RETURN(const TaskEffects e, MeasureTaskEffects(sim, plan));
        effects->push_back(graph.name() + " on " + cluster.name() + ": " + TaskEffectsText(e));
      }
      return plan;
    };
    methods.push_back(std::move(spec));
  }
  return methods;
}

#endif

// A learned method's run on a row (the planners do not know the row).
struct LearnedRun {
  ConvergenceSeries series;
  SearchReport report;  // the planner's, for the summary line
};

LearnedRun LearnedRunOf(const std::string& method, const SearchReport& r) {
  LearnedRun run;
  run.series.method = method;
  run.series.reference_us = r.reference_us;
  run.series.seconds = r.seconds;
  run.series.plans = r.plans;
  run.series.best_us = r.best_us;
  run.series.end_seconds = r.end_seconds;
  run.series.end_plans = r.end_plans;
  run.report = r;
  return run;
}

// The summary's line for a learned run: when it found its final plan, and who found it.
std::string LearnedRunLine(const std::string& row, const LearnedRun& run) {
  if (run.series.best_us.empty()) {
    return StrFormat("%-16s %-8s found no plan that fits in memory", row.c_str(), run.series.method.c_str());
  }
  const double ratio = run.series.reference_us > 0 ? run.series.best_us.back() / run.series.reference_us : 0.0;
  return StrFormat("%-16s %-8s final plan after %6.1f s (%lld plans); %.3fx the best baseline; best policy sample %s; "
                   "improvements: %d policy samples, %d polish, %d polished policy samples",
                   row.c_str(), run.series.method.c_str(), run.report.seconds_to_best,
                   static_cast<long long>(run.series.plans.empty() ? 0 : run.series.plans.back()), ratio,
                   run.report.policy_best_us < 1e300 ? StrFormat("%.1f ms", run.report.policy_best_us / 1e3).c_str()
                                                     : "none fits",
                   run.report.improvements_policy, run.report.improvements_polish,
                   run.report.improvements_sample_polish);
}

// A placement table scores every plan with the framework's schedule and fusion, so
// there the learned searches that take tasks (PlannerInfo::takes_tasks: go, colocrl,
// hdp and the presets) search under those defaults:
// tasks=placement goes before their options unless these name the tasks (a go policy
// then decides placement alone; ColocRL's and HDP's plans lose their critical-path
// priorities).
StatusOr<std::string> PlacementTableOptions(const PlannerInfo& method, const std::string& options) {
  if (!method.takes_tasks) return options;
  GO_ASSIGN_OR_RETURN(const auto values, ParseKeyValues(options, "--" + method.name + "-options"));
  if (values.count("tasks") > 0) return options;
  return values.empty() ? std::string("tasks=placement") : "tasks=placement," + options;
}

// The learned methods' settings: a time limit or a number of steps per row (as their
// PlannerInfo says), their options (--NAME-options), the pre-trained policy of those
// that need one; each planner is made once here, so that bad options fail before any
// row runs; in a placement table (`placement_table`) see PlacementTableOptions. A
// learned run's report goes to *row_runs; *budgets gets "go 120 s" and the like for the
// summary.
Status ConfigureLearnedMethods(const Args& args, const BenchRun& run, bool placement_table,
                               std::vector<MethodSpec>* methods, std::vector<LearnedRun>* row_runs,
                               std::vector<std::string>* budgets) {
  const double time_limit = run.time_limit_s;
  const std::string pretrained = args.Get("pretrained", args.Get("transfer"));
  for (MethodSpec& m : *methods) {
    if (m.plan || m.pipeline.planner->kind == PlannerKind::kBaseline) continue;
    const PlannerInfo& info = *m.pipeline.planner;
    PlannerSettings& s = m.settings;
    s.seed = run.seed;
    s.budget.threads = ThreadsPerRank();
    if (info.budget == PlannerInfo::Budget::kSeconds) {
      s.budget.time_limit_s = time_limit;
      budgets->push_back(StrFormat("%s %g s", m.name.c_str(), time_limit));
    }
    if (info.budget == PlannerInfo::Budget::kSteps) {
      GO_ASSIGN_OR_RETURN(s.budget.max_steps, args.GetIntInRange(info.name + "-steps", info.default_steps, 1, int64_t{1} << 40));
      budgets->push_back(StrFormat("%s %lld steps", m.name.c_str(), static_cast<long long>(s.budget.max_steps)));
    }
    const std::string options_flag = info.name + "-options";
    std::string options = args.Get(options_flag);
    if (placement_table) {
      GO_ASSIGN_OR_RETURN(options, PlacementTableOptions(info, options));
    }
    GO_RETURN_IF_ERROR(ConfigurePlanner(info, options, &s).WithContext("--" + options_flag));
    if (info.needs_pretrained) {
      if (pretrained.empty()) return InvalidArgument("the " + info.name + " method needs --pretrained (or --transfer DIR)");
      s.pretrained = pretrained;
    }
    const auto made = info.create(s);
    if (!made.ok()) return made.status().WithContext("--" + options_flag);
    // A run to a time limit alone takes that long on any row (dealing rows to ranks).
    if (s.budget.time_limit_s > 0 && s.budget.max_steps == 0) m.fixed_seconds = s.budget.time_limit_s;
    m.on_report = [row_runs, name = m.name](const SearchReport& r) { row_runs->push_back(LearnedRunOf(name, r)); };
  }
  return Status::Ok();
}

// A finished row as the rank that ran it sends it to rank 0: its results, the
// convergence of its learned runs and its summary lines, as three JSON texts.
struct RowMessage {
  SuiteResults row;  // one row
  std::vector<ConvergenceSeries> series;
  std::vector<std::string> learned_lines, effects_lines;
};

std::string EncodeRowMessage(const RowMessage& m) {
  const nlohmann::json lines{{"learned", m.learned_lines}, {"effects", m.effects_lines}};
  return ResultsToJson(m.row) + kRecordSeparator + ConvergenceToJson(m.series) + kRecordSeparator + lines.dump();
}

StatusOr<RowMessage> DecodeRowMessage(const std::string& message) {
  const std::vector<std::string> parts = Split(message, kRecordSeparator);
  if (parts.size() != 3) return InternalError("a rank sent a malformed message");
  RowMessage m;
  GO_ASSIGN_OR_RETURN(m.row, ResultsFromJson(parts[0], "a rank's rows"));
  GO_ASSIGN_OR_RETURN(m.series, ConvergenceFromJson(parts[1], "a rank's convergence"));
  GO_ASSIGN_OR_RETURN(const nlohmann::json lines, ParseJsonText(parts[2], "a rank's summary lines"));
  if (m.row.rows.size() != 1) return InternalError("a rank's message holds other than one row");
  for (const auto& [key, out] : {std::pair{"learned", &m.learned_lines}, std::pair{"effects", &m.effects_lines}}) {
    if (!lines.is_object() || !lines.contains(key) || !lines[key].is_array()) {
      return InternalError("a rank sent malformed summary lines");
    }
    for (const nlohmann::json& line : lines[key]) {
      if (!line.is_string()) return InternalError("a rank sent malformed summary lines");
      out->push_back(line.get<std::string>());
    }
  }
  return m;
}

std::string Timings(const SuiteResults& ran, double total_seconds) {
  std::string out = StrFormat("Timings of this run (wall clock): %.1f s in total\n", total_seconds);
  for (const RowResult& row : ran.rows) {
    out += StrFormat("  %-18s %6.2f s   graph and simulator %.2f s; plans:", row.row.c_str(), row.seconds, row.setup_seconds);
    const std::vector<std::string> methods = MethodColumns(SuiteResults{{row}});
    for (size_t i = 0; i < methods.size(); ++i) {
      out += StrFormat("%s %s %.2f s", i == 0 ? "" : ",", methods[i].c_str(), row.methods.at(methods[i]).plan_seconds);
    }
    out += "\n";
  }
  return out;
}

// What a bench run decided from its flags: the rows, the methods, the table, the files.
struct BenchSetup {
  BenchRun run;
  std::vector<SuiteRow> rows;
  std::vector<SuiteRow> row_order;  // of the results file: the suite's rows, then model rows as given
  std::vector<MethodSpec> methods;
  std::vector<std::string> task_effects;  // of pl+sch+fu, per row (--tasks)
  TableDecisions decisions = TableDecisions::kPlacement;
  bool tasks = false;
  ReportPaths paths;
  std::string report_base, convergence_path;
  std::vector<std::string> learned;   // "go 120 s", "finetune 50 steps"
  std::vector<LearnedRun> row_runs;   // of the row being run
};

// The rows to run (--rows of the suite, or --models as rows of their own) and the order
// of the results file.
Status ChooseRows(const Args& args, BenchSetup* b) {
  if (args.Has("rows") && args.Has("models")) {
    return InvalidArgument("give --rows (suite rows) or --models (rows of their own), not both");
  }
  GO_ASSIGN_OR_RETURN(b->rows, args.Has("models") ? ModelRows(SplitList(args.Get("models"), ';'),
                                                              args.Get("cluster", kDefaultCluster))
                                                  : SelectRows(PlacementSuiteRows(), args.Get("rows")));
  if (b->rows.empty()) return InvalidArgument("--models names no model");
  b->row_order = PlacementSuiteRows();
  if (args.Has("models")) b->row_order.insert(b->row_order.end(), b->rows.begin(), b->rows.end());
  return Status::Ok();
}

// The methods (--methods, --transfer's, --tasks' configurations) and the table.
Status ChooseMethods(const Args& args, BenchSetup* b) {
  // --transfer DIR: the generalization table (zero-shot and fine-tuned policies, each
  // pre-trained without the row's family, against the baselines).
  if (args.Has("transfer") && args.Has("pretrained")) return InvalidArgument("give --transfer DIR or --pretrained, not both");
  const std::string default_methods =
      args.Has("transfer") ? "single,tf-default,expert,metis,scotch,heft,zero-shot,finetune" : "";
  b->tasks = args.Has("tasks");
  if (b->tasks && (args.Has("transfer") || args.Has("pretrained") || args.Has("fusion"))) {
    return InvalidArgument("--tasks has columns of its own: no --transfer, --pretrained or --fusion");
  }
  if (b->tasks) {
#ifdef GRAPHOPT_HAVE_RL
    GO_ASSIGN_OR_RETURN(b->methods, TaskConfigurationMethods(args, b->run, &b->task_effects));
#else
    return FailedPrecondition("--tasks needs the training library (LibTorch was not found)");
#endif
  } else {
    GO_ASSIGN_OR_RETURN(b->methods, ParseMethods(args.Get("methods", default_methods), args.Has("fusion")));
  }
  b->paths = ReportPathsFor(args.Get("results", b->tasks ? kDefaultTasksResults : kDefaultResults));
  b->report_base = b->paths.svg.substr(0, b->paths.svg.size() - std::string(".svg").size());
  b->convergence_path = b->report_base + ".convergence.json";
  auto decisions = TableDecisionsFromName(
      args.Get("decisions", b->tasks ? "as-produced" : args.Has("transfer") ? "all" : "placement"));
  if (!decisions.ok()) return decisions.status().WithContext("--decisions");
  b->decisions = *decisions;
  return ConfigureLearnedMethods(args, b->run, b->decisions == TableDecisions::kPlacement, &b->methods, &b->row_runs,
                                 &b->learned);
}

// A run of the suite over the ranks: every finished row merged into the results file
// and its reports, which are rewritten each time (an interrupted run keeps what it
// finished); rank 0 alone writes and prints (cli/suite_ranks.h).
class BenchJob {
 public:
  explicit BenchJob(BenchSetup* setup) : b_(*setup) {}

  Status Open() {
    header_.decisions = TableDecisionsName(b_.decisions);
    header_.judge = kJudgeVersion;
    GO_ASSIGN_OR_RETURN(convergence_, ReadConvergenceFile(b_.convergence_path));
    auto existing = ReadResultsFile(b_.paths.json);
    if (!existing.ok()) {
      return InvalidArgument(existing.status().message() +
                             " (move the file away or pass another --results to start a new one)");
    }
    GO_RETURN_IF_ERROR(CheckMergeable(header_, *existing, b_.paths.json));
    merged_ = std::move(*existing);
    if (merged_.rows.empty()) {
      merged_.decisions = header_.decisions;
      merged_.judge = header_.judge;
    }
    return Status::Ok();
  }

  Status Run() {
    World& world = World::Get();
    SuiteOptions options;
    options.rows = b_.rows;
    options.methods = b_.methods;
    options.cluster_override = cluster_override_;
    options.seed = b_.run.seed;
    options.decisions = b_.decisions;
    options.show_progress = world.root();
    const std::vector<double> costs = world.distributed() && world.root()
                                          ? EstimateRowSeconds(options.rows, options.methods)
                                          : std::vector<double>(b_.rows.size(), 0.0);
    if (world.distributed() && world.root()) {
      std::printf("%d ranks: the %zu rows go to the ranks as they become free, the costliest first by estimate\n",
                  world.size(), b_.rows.size());
    }
    const auto start = std::chrono::steady_clock::now();
    const Status status = RunSuiteOverRanks(
        options, costs, [this](const RowResult& row) { return RowMessageOf(row); },
        [this](const std::string& message) { return OnMessage(message); });
    if (!status.ok()) {
      if (world.distributed()) world.Abort(StrFormat("error: bench: rank %d: ", world.rank()) + status.message());
      return status;
    }
    seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return Status::Ok();
  }

  void set_cluster_override(std::string cluster) { cluster_override_ = std::move(cluster); }
  void Print();

 private:
  SuiteResults OneRow(const RowResult& row) const {
    SuiteResults s = header_;
    s.rows = {row};
    return s;
  }

  // Merges a finished row (and the convergence of its learned runs) into the outputs.
  Status MergeRow(const RowResult& row, const std::vector<ConvergenceSeries>& series) {
    for (const std::string& note : MergeResults(OneRow(row), &merged_)) std::fprintf(stderr, "note: %s\n", note.c_str());
    SortRowsInSuiteOrder(b_.row_order, &merged_);
    GO_RETURN_IF_ERROR(WriteResultsAndReports(merged_, b_.paths));
    if (series.empty()) return Status::Ok();
    for (const ConvergenceSeries& s : series) MergeConvergence(s, &convergence_);
    GO_RETURN_IF_ERROR(WriteConvergenceFile(convergence_, b_.convergence_path));
    GO_RETURN_IF_ERROR(WriteFileAtomic(b_.report_base + ".convergence.svg",
                                       ConvergenceChartSvg(convergence_, ConvergenceAxis::kSeconds)));
    return WriteFileAtomic(b_.report_base + ".convergence-plans.svg",
                           ConvergenceChartSvg(convergence_, ConvergenceAxis::kPlans));
  }

  // A finished row's message, on the rank that ran it.
  std::string RowMessageOf(const RowResult& row) {
    std::vector<ConvergenceSeries> series;
    std::vector<std::string> learned_here;
    for (LearnedRun& run : b_.row_runs) {
      run.series.row = row.row;
      run.series.label = row.DisplayName();
      series.push_back(run.series);
      learned_here.push_back(LearnedRunLine(row.row, run));
    }
    b_.row_runs.clear();
    const std::string message = EncodeRowMessage(RowMessage{OneRow(row), series, learned_here, b_.task_effects});
    b_.task_effects.clear();
    return message;
  }

  // Rank 0: merges a finished row, from whichever rank ran it.
  Status OnMessage(const std::string& message) {
    GO_ASSIGN_OR_RETURN(const RowMessage m, DecodeRowMessage(message));
    const std::string& name = m.row.rows[0].row;
    for (const std::string& line : m.learned_lines) learned_lines_[name].push_back(line);
    for (const std::string& line : m.effects_lines) effects_lines_[name].push_back(line);
    GO_RETURN_IF_ERROR(MergeRow(m.row.rows[0], m.series));
    ran_.rows.push_back(m.row.rows[0]);
    return Status::Ok();
  }

  BenchSetup& b_;
  std::string cluster_override_;
  SuiteResults header_;  // the table and judge of this run: every results text it writes says them
  SuiteResults merged_;
  std::vector<ConvergenceSeries> convergence_;
  SuiteResults ran_;  // the rows of this run (their timings)
  double seconds_ = 0;
  // What the summary after the table says of each row, by row name: a line per learned
  // run, and what pl+sch+fu's schedule and fusion are worth (--tasks).
  std::map<std::string, std::vector<std::string>> learned_lines_, effects_lines_;
};

void BenchJob::Print() {
  SortRowsInSuiteOrder(b_.row_order, &ran_);
  std::printf("%s\n%s\n", ResultsMarkdown(merged_).c_str(), Timings(ran_, seconds_).c_str());
  if (!learned_lines_.empty()) {
    std::printf("Learned methods (per row: %s): when each found its final plan\n", Join(b_.learned, ", ").c_str());
    for (const RowResult& row : ran_.rows) {
      for (const std::string& line : learned_lines_[row.row]) std::printf("  %s\n", line.c_str());
    }
    std::printf("Convergence: %s, %s.convergence.svg and %s.convergence-plans.svg\n", b_.convergence_path.c_str(),
                b_.report_base.c_str(), b_.report_base.c_str());
  }
  if (!effects_lines_.empty()) {
    std::printf("What the learned schedule and fusion of pl+sch+fu are worth against the defaults on its placement:\n");
    for (const RowResult& row : ran_.rows) {
      for (const std::string& line : effects_lines_[row.row]) std::printf("  %s\n", line.c_str());
    }
  }
  std::printf("Wrote %s (%zu rows), %s, %s and %s.\n", b_.paths.json.c_str(), merged_.rows.size(),
              b_.paths.markdown.c_str(), b_.paths.csv.c_str(), b_.paths.svg.c_str());
}

Status Bench(const Args& args) {
  if (args.Has("list")) {
    PrintList();
    return Status::Ok();
  }
  BenchSetup setup;
  GO_RETURN_IF_ERROR(ApplyBoundFlags(args, kBenchFlags, &setup.run));
  GO_RETURN_IF_ERROR(ChooseRows(args, &setup));
  GO_RETURN_IF_ERROR(ChooseMethods(args, &setup));
  BenchJob job(&setup);
  job.set_cluster_override(args.Get("cluster"));
  GO_RETURN_IF_ERROR(job.Open());
  GO_RETURN_IF_ERROR(job.Run());
  if (World::Get().root()) job.Print();
  return Status::Ok();
}

}  // namespace

Command BenchCommand() {
  Command c;
  c.name = "bench";
  c.summary = "the 13-row placement suite of the GO paper (or model files), every method side by side";
  c.flags = BenchFlags;
  c.notes = "Runs the placement suite (the 13 rows of the GO paper's placement table) with every method and prints\n"
            "the step times, the speedups over the human expert and the lower bounds as a Markdown table.";
  c.run = Bench;
  return c;
}

}  // namespace graphopt
