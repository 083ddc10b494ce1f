// Reports of suite results: the Markdown table (the docs' suite tables and the paper's),
// the CSV for spreadsheets and scripts, and the numbers they share: each method's
// speedup over the human expert placement, the best method of a row and the
// geometric mean of the speedups.
//
// Speedups compare plans that fit in memory only: a method whose plan runs out of
// memory, or fails, on a row has no speedup there; the geometric mean of a method
// runs over the rows where both it and the expert fit.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "eval/results.h"

namespace graphopt {

// The reference method of every speedup.
inline constexpr const char* kExpertMethod = "expert";

// expert step time / method step time on a row, if both ran and fit in memory.
std::optional<double> SpeedupOverExpert(const RowResult& row, const std::string& method);
// The methods of a row whose plan fits and has the least step time (all of them on a
// tie); empty if none fits.
std::vector<std::string> BestMethods(const RowResult& row);

struct MethodSummary {
  std::string method;
  int rows_run = 0;       // rows with a result of this method
  int rows_fit = 0;       // of those, rows where its plan fits in memory
  int rows_compared = 0;  // rows where it and the expert fit
  double geomean_speedup = 0;  // over the compared rows (0 if none)
};
// One summary per method column, in MethodColumns order.
std::vector<MethodSummary> SummarizeMethods(const SuiteResults& results);

// The Markdown table: a row per suite row with each method's step time in ms and
// its speedup over the expert ("OOM" if it does not fit, "error" with a footnote if
// it failed, "–" if it did not run), the best of the row in bold, the lower bound and
// the best plan's distance to it (and the tighter bound for plans that fit, with the
// best plan's distance to it, where the rows have one); then the geometric mean of the
// speedups and the number of plans that fit. A legend line precedes the table; footnotes follow it.
std::string ResultsMarkdown(const SuiteResults& results);
// The first sentences of a table: which decisions its columns kept and which judge
// (the simulator's rules) measured it.
std::string TableCaption(const SuiteResults& results);

// CSV, one line per (row, method) with a header:
//   row,label,model,cluster,devices,ops,method,status,step_time_us,speedup_vs_expert,
//   lower_bound_us,step_over_bound,plan_seconds,max_peak_memory_bytes,error,
//   fitting_bound_us
// status is ok, oom or error; numbers a method does not have are empty.
std::string ResultsCsv(const SuiteResults& results);

// The files of one results set: the JSON and the reports generated from it next to
// it, with the same name and the extensions .md, .csv and .svg.
struct ReportPaths {
  std::string json, markdown, csv, svg;
};
// For "results/placement.json": results/placement.{md,csv,svg}. A path without the
// .json extension gets the extensions appended.
ReportPaths ReportPathsFor(const std::string& json_path);
// Writes the JSON and the three reports, each atomically (the JSON first), creating
// the folder if needed.
Status WriteResultsAndReports(const SuiteResults& results, const ReportPaths& paths);

}  // namespace graphopt
