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
#include "cli/args.h"
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

int Fail(const std::string& message) { return CommandError("bench", message); }

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
      {"rows", true, "comma-separated suite rows to run (default: all 13; see --list)"},
      {"models", true, "model files or built-in specs separated by ';': each a row of its own on --cluster "
                       "(default " + std::string(kDefaultCluster) + "), instead of the suite's rows"},
      {"methods", true, "comma-separated methods (default: " + methods + "); NAME+fusion adds greedy fusion to a placement"},
      {"cluster", true, "cluster preset or cluster .json file for every row (default: each row's preset; "
                        "use another --results file, since rows run on another cluster replace the default ones)"},
      {"results", true, std::string("results file to add to (default ") + kDefaultResults + ", with --tasks " +
                            kDefaultTasksResults +
                            "); the .md, .csv and .svg reports are written next to it"},
      {"fusion", false, "also score every method's placement with greedy fusion (columns NAME+fusion; tf-default "
                        "already fuses)"},
      {"decisions", true, "which decisions of each method the table keeps: placement (every column's placement with "
                          "the framework's defaults: ready order, greedy legal fusion of elementwise ops; the default; "
                          "there the learned searches take tasks=placement unless their options name the tasks), "
                          "all (learned methods' own plans against baselines with greedy legal fusion and "
                          "critical-path priorities; the default of --transfer) or as-produced (the default of --tasks)"},
  }, kBenchFlags, {
      {"go-options", true, "options of the go method, as graphopt optimize --policy takes them"},
      {"colocrl-options", true, "options of the colocrl method"},
      {"hdp-options", true, "options of the hdp method"},
      {"pretrained", true, "pre-trained policy of the zero-shot and finetune methods: a file, or a folder holding "
                           "no-FAMILY.pt per family (each row planned by the policy pre-trained without its family)"},
      {"transfer", true, "the transfer table: --pretrained DIR with the methods single, tf-default, expert, metis, "
                         "scotch, heft, zero-shot and finetune (unless --methods is given)"},
      {"finetune-steps", true,
       "PPO steps of the finetune method (default 50), the policy alone, on the pre-trained trunk (finetune-options "
       "frozen_start=0: the whole network learns until the imitation); each step samples at least 6 x 2^20 ops in all "
       "(more samples on small graphs; step_ops=0: 32 a step); after half of them it imitates its best sample "
       "(warm_start=0: it does not) with a learned logit per unit (unit_bias=0: without)"},
      {"zero-shot-options", true, "options of the zero-shot method, as graphopt optimize --policy takes them "
                                  "(zero_shot_samples=N, zero_shot_coupled=N, zero_shot_single=N, ...)"},
      {"finetune-options", true, "options of the finetune method, as graphopt optimize --policy takes them"},
      {"tasks", false, "the GO paper's multi-task table: the columns are the eight configurations (tf-default, hp-only, "
                        "pl-only, pl|sch, pl+sch, sch+fu, pl|sch|fu, pl+sch+fu; --methods picks some), each learned one with "
                        "--time-limit and --go-options"},
      {"fidelity", false, "the simulator against executed plans on this machine's cores (bench --fidelity --help)"},
      {"list", false, "list the suite rows and the methods, then exit"},
      {"help", false, "show this help"},
  });
}

std::string Usage() {
  return "usage: graphopt bench [--rows R1,R2 | --models M1;M2] [--methods M1,M2] [--cluster C] [--results FILE] [--fusion]\n"
         "                      [--seed N]\n"
         "  Runs the placement suite (the 13 rows of the GO paper's placement table) with every method and prints\n"
         "  the step times, the speedups over the human expert and the lower bounds as a Markdown table.\n" +
         FlagsHelp(BenchFlags());
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
  base.time_limit_s = run.time_limit_s;
  base.seed = run.seed;
  base.threads = ThreadsPerRank();
  auto parsed = ParseLearnedSearchOptions(args.Get("go-options"), base);
  if (!parsed.ok()) return parsed.status().WithContext("--go-options");
  GO_ASSIGN_OR_RETURN(std::vector<MethodSpec> methods, ParseMethods("single,expert", false));
  for (const TaskConfiguration* configuration : configurations) {
    MethodSpec spec;
    spec.name = configuration->name;
    if (configuration->learned && parsed->time_limit_s > 0 && parsed->max_steps == 0) {
      spec.fixed_seconds = parsed->time_limit_s;
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
                   "improvements: %d policy, %d local search, %d polished samples",
                   row.c_str(), run.series.method.c_str(), run.report.seconds_to_best,
                   static_cast<long long>(run.series.plans.empty() ? 0 : run.series.plans.back()), ratio,
                   run.report.policy_best_us < 1e300 ? StrFormat("%.1f ms", run.report.policy_best_us / 1e3).c_str()
                                                     : "none fits",
                   run.report.improvements_policy, run.report.improvements_polish,
                   run.report.improvements_sample_polish);
}


// A placement table scores every plan with the framework's schedule and fusion, so
// there the learned searches (go, finetune, colocrl, hdp) search under those defaults:
// tasks=placement goes before their options unless these name the tasks (a go policy
// then decides placement alone; ColocRL's and HDP's plans lose their critical-path
// priorities).
StatusOr<std::string> PlacementTableOptions(const std::string& method, const std::string& options) {
  if (method != "go" && method != "finetune" && method != "colocrl" && method != "hdp") return options;
  GO_ASSIGN_OR_RETURN(const auto values, ParseKeyValues(options, "--" + method + "-options"));
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
    if (m.plan || m.pipeline.planner->kind != PlannerKind::kLearned) continue;
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
      GO_ASSIGN_OR_RETURN(options, PlacementTableOptions(info.name, options));
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

}  // namespace

int RunBenchCommand(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--fidelity") return RunFidelityBench(argc, argv);
  }
  auto args = Args::Parse("bench", argc, argv, 2, BenchFlags());
  if (!args.ok()) {
    return Fail(args.status().message() + "\n" + Usage());
  }
  if (args->Has("help")) {
    std::printf("%s", Usage().c_str());
    return 0;
  }
  if (args->Has("list")) {
    PrintList();
    return 0;
  }
  if (!args->positional().empty()) return Fail("unexpected argument '" + args->positional()[0] + "'\n" + Usage());
  BenchRun run;
  if (Status flags = ApplyBoundFlags(*args, kBenchFlags, &run); !flags.ok()) return Fail(flags.message());

  if (args->Has("rows") && args->Has("models")) return Fail("give --rows (suite rows) or --models (rows of their own), not both");
  auto rows = args->Has("models") ? ModelRows(SplitList(args->Get("models"), ';'), args->Get("cluster", kDefaultCluster))
                                  : SelectRows(PlacementSuiteRows(), args->Get("rows"));
  if (!rows.ok()) return Fail(rows.status().message());
  if (rows->empty()) return Fail("--models names no model");
  // The order of the results file: the suite's rows, then model rows as given.
  std::vector<SuiteRow> row_order = PlacementSuiteRows();
  if (args->Has("models")) row_order.insert(row_order.end(), rows->begin(), rows->end());
  // --transfer DIR: the generalization table (zero-shot and fine-tuned policies, each
  // pre-trained without the row's family, against the baselines).
  if (args->Has("transfer") && args->Has("pretrained")) return Fail("give --transfer DIR or --pretrained, not both");
  const std::string default_methods =
      args->Has("transfer") ? "single,tf-default,expert,metis,scotch,heft,zero-shot,finetune" : "";
  const bool tasks = args->Has("tasks");
  std::vector<std::string> task_effects;  // of pl+sch+fu, per row (--tasks)
  if (tasks && (args->Has("transfer") || args->Has("pretrained") || args->Has("fusion"))) {
    return Fail("--tasks has columns of its own: no --transfer, --pretrained or --fusion");
  }
  StatusOr<std::vector<MethodSpec>> methods = std::vector<MethodSpec>{};
  if (tasks) {
#ifdef GRAPHOPT_HAVE_RL
    methods = TaskConfigurationMethods(*args, run, &task_effects);
#else
    return Fail("--tasks needs the training library (LibTorch was not found)");
#endif
  } else {
    methods = ParseMethods(args->Get("methods", default_methods), args->Has("fusion"));
  }
  if (!methods.ok()) return Fail(methods.status().message());

  const ReportPaths paths = ReportPathsFor(args->Get("results", tasks ? kDefaultTasksResults : kDefaultResults));
  const std::string report_base = paths.svg.substr(0, paths.svg.size() - std::string(".svg").size());
  const std::string convergence_path = report_base + ".convergence.json";
  std::vector<std::string> learned;  // "go 120 s", "finetune 50 steps"
  std::vector<LearnedRun> row_runs;  // of the row being run
  auto decisions = TableDecisionsFromName(
      args->Get("decisions", tasks ? "as-produced" : args->Has("transfer") ? "all" : "placement"));
  if (!decisions.ok()) return Fail("--decisions: " + decisions.status().message());
  const Status configured = ConfigureLearnedMethods(*args, run, *decisions == TableDecisions::kPlacement, &*methods,
                                                    &row_runs, &learned);
  if (!configured.ok()) return Fail(configured.message());
  auto convergence = ReadConvergenceFile(convergence_path);
  if (!convergence.ok()) return Fail(convergence.status().message());
  // The table and judge of this run: every results text it writes says them.
  SuiteResults header;
  header.decisions = TableDecisionsName(*decisions);
  header.judge = kJudge;
  auto one_row = [&header](const RowResult& row) {
    SuiteResults s = header;
    s.rows = {row};
    return s;
  };
  auto existing = ReadResultsFile(paths.json);
  if (!existing.ok()) {
    return Fail(existing.status().message() + " (move the file away or pass another --results to start a new one)");
  }
  {
    const Status mergeable = CheckMergeable(header, *existing, paths.json);
    if (!mergeable.ok()) return Fail(mergeable.message());
  }
  SuiteResults merged = std::move(*existing);
  if (merged.rows.empty()) {
    merged.decisions = header.decisions;
    merged.judge = header.judge;
  }

  // Under mpirun, rank 0 hands the rows out to the ranks as they become free, the
  // costliest first by estimate, gathers every finished row and alone writes and
  // prints (cli/suite_ranks.h).
  World& world = World::Get();
  SuiteOptions options;
  options.rows = *rows;
  options.methods = std::move(*methods);
  options.cluster_override = args->Get("cluster");
  options.seed = run.seed;
  options.decisions = *decisions;
  options.show_progress = world.root();
  const std::vector<double> costs = world.distributed() && world.root() ? EstimateRowSeconds(options.rows, options.methods)
                                                                        : std::vector<double>(rows->size(), 0.0);
  if (world.distributed() && world.root()) {
    std::printf("%d ranks: the %zu rows go to the ranks as they become free, the costliest first by estimate\n",
                world.size(), rows->size());
  }

  // What the summary after the table says of each row, from whichever rank ran it: a
  // line per learned run, and what pl+sch+fu's schedule and fusion are worth (--tasks);
  // by row name, printed in the order of the rows run (SortRowsInSuiteOrder).
  std::map<std::string, std::vector<std::string>> learned_lines;
  std::map<std::string, std::vector<std::string>> effects_lines;
  // Merges a finished row (and the convergence of its learned runs) into the outputs
  // and rewrites them all, so an interrupted run keeps what it finished.
  auto merge_row = [&](const RowResult& row, const std::vector<ConvergenceSeries>& series) -> Status {
    for (const std::string& note : MergeResults(one_row(row), &merged)) {
      std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    SortRowsInSuiteOrder(row_order, &merged);
    GO_RETURN_IF_ERROR(WriteResultsAndReports(merged, paths));
    if (!series.empty()) {
      for (const ConvergenceSeries& s : series) MergeConvergence(s, &*convergence);
      GO_RETURN_IF_ERROR(WriteConvergenceFile(*convergence, convergence_path));
      GO_RETURN_IF_ERROR(WriteFileAtomic(report_base + ".convergence.svg",
                                         ConvergenceChartSvg(*convergence, ConvergenceAxis::kSeconds)));
      GO_RETURN_IF_ERROR(WriteFileAtomic(report_base + ".convergence-plans.svg",
                                         ConvergenceChartSvg(*convergence, ConvergenceAxis::kPlans)));
    }
    return Status::Ok();
  };
  // A finished row's message, on the rank that ran it: its results text, the
  // convergence of its learned runs, and its summary lines (a JSON object of two lists
  // of lines).
  auto row_message = [&](const RowResult& row) -> std::string {
    std::vector<ConvergenceSeries> series;
    std::vector<std::string> learned_here;
    for (LearnedRun& run : row_runs) {
      run.series.row = row.row;
      run.series.label = row.DisplayName();
      series.push_back(run.series);
      learned_here.push_back(LearnedRunLine(row.row, run));
    }
    row_runs.clear();
    const std::string message = EncodeRowMessage(RowMessage{one_row(row), series, learned_here, task_effects});
    task_effects.clear();
    return message;
  };
  // Rank 0: merges a finished row, from whichever rank ran it.
  SuiteResults ran;  // the rows of this run (their timings)
  auto on_message = [&](const std::string& message) -> Status {
    GO_ASSIGN_OR_RETURN(const RowMessage m, DecodeRowMessage(message));
    const std::string& name = m.row.rows[0].row;
    for (const std::string& line : m.learned_lines) learned_lines[name].push_back(line);
    for (const std::string& line : m.effects_lines) effects_lines[name].push_back(line);
    GO_RETURN_IF_ERROR(merge_row(m.row.rows[0], m.series));
    ran.rows.push_back(m.row.rows[0]);
    return Status::Ok();
  };
  const auto start = std::chrono::steady_clock::now();
  const Status status = RunSuiteOverRanks(options, costs, row_message, on_message);
  if (!status.ok()) {
    if (world.distributed()) world.Abort(StrFormat("error: bench: rank %d: ", world.rank()) + status.message());
    return Fail(status.message());
  }
  if (!world.root()) return 0;
  SortRowsInSuiteOrder(row_order, &ran);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("%s\n%s\n", ResultsMarkdown(merged).c_str(), Timings(ran, total).c_str());
  if (!learned_lines.empty()) {
    std::printf("Learned methods (per row: %s): when each found its final plan\n", Join(learned, ", ").c_str());
    for (const RowResult& row : ran.rows) {
      for (const std::string& line : learned_lines[row.row]) std::printf("  %s\n", line.c_str());
    }
    std::printf("Convergence: %s, %s.convergence.svg and %s.convergence-plans.svg\n", convergence_path.c_str(),
                report_base.c_str(), report_base.c_str());
  }
  if (!effects_lines.empty()) {
    std::printf("What the learned schedule and fusion of pl+sch+fu are worth against the defaults on its placement:\n");
    for (const RowResult& row : ran.rows) {
      for (const std::string& line : effects_lines[row.row]) std::printf("  %s\n", line.c_str());
    }
  }
  std::printf("Wrote %s (%zu rows), %s, %s and %s.\n", paths.json.c_str(), merged.rows.size(), paths.markdown.c_str(),
              paths.csv.c_str(), paths.svg.c_str());
  return 0;
}

}  // namespace graphopt
