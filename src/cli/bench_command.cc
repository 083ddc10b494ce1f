// `graphopt bench`: the placement suite of the GO paper (13 graphs, each on 2, 4 or 8
// accelerators) with every method, as a Markdown table on standard output and a
// results file that later runs (and later methods) add their columns to, with the
// Markdown, CSV and SVG reports regenerated next to it after every row.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "baselines/baseline.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "core/strings.h"
#include "eval/report.h"
#include "eval/results.h"
#include "eval/suite.h"

namespace graphopt {
namespace {

constexpr const char* kDefaultResults = "results/placement.json";

int Fail(const std::string& message) {
  std::fprintf(stderr, "error: bench: %s\n", message.c_str());
  return 1;
}

std::vector<FlagSpec> BenchFlags() {
  std::string methods;
  for (const std::string& m : BaselineNames()) methods += (methods.empty() ? "" : ",") + m;
  return {
      {"rows", true, "comma-separated suite rows to run (default: all 13; see --list)"},
      {"methods", true, "comma-separated methods (default: " + methods + "); NAME+fusion adds greedy fusion to a placement"},
      {"cluster", true, "cluster preset or cluster .json file for every row (default: each row's preset; "
                        "use another --results file, since rows run on another cluster replace the default ones)"},
      {"results", true, std::string("results file to add to (default ") + kDefaultResults +
                            "); the .md, .csv and .svg reports are written next to it"},
      {"fusion", false, "also score every method's placement with greedy fusion (columns NAME+fusion; tf-default "
                        "already fuses)"},
      {"seed", true, "seed of the randomized partitioners (default 0)"},
      {"list", false, "list the suite rows and the methods, then exit"},
      {"help", false, "show this help"},
  };
}

std::string Usage() {
  return "usage: graphopt bench [--rows R1,R2] [--methods M1,M2] [--cluster C] [--results FILE] [--fusion] [--seed N]\n"
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
  std::printf("\nmethods: ");
  for (size_t i = 0; i < BaselineNames().size(); ++i) std::printf("%s%s", i == 0 ? "" : ", ", BaselineNames()[i].c_str());
  std::printf(" (each also as NAME+fusion)\n");
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
  auto args = Args::Parse("bench", argc, argv, 2, BenchFlags());
  if (!args.ok()) {
    std::fprintf(stderr, "error: %s\n%s", args.status().message().c_str(), Usage().c_str());
    return 1;
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

  auto rows = SelectRows(PlacementSuiteRows(), args->Get("rows"));
  if (!rows.ok()) return Fail(rows.status().message());
  auto methods = ParseMethods(args->Get("methods"), args->Has("fusion"));
  if (!methods.ok()) return Fail(methods.status().message());
  auto seed = args->GetInt("seed", 0);
  if (!seed.ok()) return Fail(seed.status().message());
  if (*seed < 0) return Fail("--seed must be >= 0");

  const ReportPaths paths = ReportPathsFor(args->Get("results", kDefaultResults));
  auto existing = ReadResultsFile(paths.json);
  if (!existing.ok()) {
    return Fail(existing.status().message() + " (move the file away or pass another --results to start a new one)");
  }
  SuiteResults merged = std::move(*existing);

  SuiteOptions options;
  options.rows = std::move(*rows);
  options.methods = std::move(*methods);
  options.cluster_override = args->Get("cluster");
  options.seed = static_cast<uint64_t>(*seed);
  options.show_progress = true;

  // After each row: merge it into the file's results and rewrite every output, so an
  // interrupted run keeps what it finished.
  auto on_row_done = [&](const RowResult& row) -> Status {
    for (const std::string& note : MergeResults(SuiteResults{{row}}, &merged)) {
      std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    SortRowsInSuiteOrder(PlacementSuiteRows(), &merged);
    return WriteResultsAndReports(merged, paths);
  };
  const auto start = std::chrono::steady_clock::now();
  auto ran = RunSuite(options, on_row_done);
  if (!ran.ok()) return Fail(ran.status().message());
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("%s\n%s\n", ResultsMarkdown(merged).c_str(), Timings(*ran, total).c_str());
  std::printf("Wrote %s (%zu rows), %s, %s and %s.\n", paths.json.c_str(), merged.rows.size(), paths.markdown.c_str(),
              paths.csv.c_str(), paths.svg.c_str());
  return 0;
}

}  // namespace graphopt
