#include "eval/report.h"

#include <algorithm>
#include <cmath>

#include "core/files.h"
#include "core/strings.h"
#include "eval/svg_chart.h"

namespace graphopt {
namespace {

constexpr const char* kMissing = "–";

std::string Ms(double us) { return StrFormat("%.1f", us / 1e3); }
std::string Times(double ratio) { return StrFormat("%.2fx", ratio); }
// A time to plan: two significant digits under 10 s, whole seconds above.
std::string PlanSeconds(double s) { return s < 10 ? StrFormat("%.2g s", s) : StrFormat("%.0f s", s); }

// Makes free text safe inside a Markdown table cell.
std::string MarkdownCellText(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string CsvNumber(double value) { return StrFormat("%.6g", value); }

double BestStepTime(const RowResult& row) {
  double best = -1;
  for (const auto& [name, m] : row.methods) {
    if (m.fits() && (best < 0 || m.step_time_us < best)) best = m.step_time_us;
  }
  return best;
}

}  // namespace

std::optional<double> SpeedupOverExpert(const RowResult& row, const std::string& method) {
  const auto expert = row.methods.find(kExpertMethod);
  const auto it = row.methods.find(method);
  if (expert == row.methods.end() || it == row.methods.end()) return std::nullopt;
  if (!expert->second.fits() || !it->second.fits() || it->second.step_time_us <= 0) return std::nullopt;
  return expert->second.step_time_us / it->second.step_time_us;
}

std::vector<std::string> BestMethods(const RowResult& row) {
  const double best = BestStepTime(row);
  std::vector<std::string> names;
  if (best < 0) return names;
  for (const auto& [name, m] : row.methods) {
    if (m.fits() && m.step_time_us == best) names.push_back(name);
  }
  std::sort(names.begin(), names.end(), MethodColumnLess);
  return names;
}

std::vector<MethodSummary> SummarizeMethods(const SuiteResults& results) {
  std::vector<MethodSummary> summaries;
  for (const std::string& method : MethodColumns(results)) {
    MethodSummary s;
    s.method = method;
    double log_sum = 0;
    for (const RowResult& row : results.rows) {
      const auto it = row.methods.find(method);
      if (it == row.methods.end()) continue;
      ++s.rows_run;
      if (it->second.fits()) ++s.rows_fit;
      const std::optional<double> speedup = SpeedupOverExpert(row, method);
      if (!speedup) continue;
      ++s.rows_compared;
      log_sum += std::log(*speedup);
    }
    if (s.rows_compared > 0) s.geomean_speedup = std::exp(log_sum / s.rows_compared);
    summaries.push_back(s);
  }
  return summaries;
}

std::string TableCaption(const SuiteResults& results) {
  std::string what;
  if (results.decisions == "placement") {
    what = "**Placement table**: every column's placement runs with the same scheduling and fusion, the framework's "
           "defaults (ready order; greedy fusion of elementwise ops into their producers under the kernel rules), "
           "the learned placers' included.";
  } else if (results.decisions == "all") {
    what = "**Full-optimizer table**: the learned methods' own placement, schedule and fusion; every baseline's "
           "placement with greedy legal fusion of every kind and critical-path priorities.";
  } else {
    what = "Each column's plan as its method made it (the column's name says what it decided).";
  }
  const std::string judge =
      results.judge >= 2 ? StrFormat(" Judge %d: fused kernels as compilers emit them, shared ports and switches.", results.judge)
                         : StrFormat(" Judge %d: the old lenient simulator (any ops fused, every pair of devices on "
                                     "its own link).", results.judge);
  return what + judge;
}

std::string ResultsMarkdown(const SuiteResults& results) {
  const std::vector<std::string> columns = MethodColumns(results);
  std::string out = TableCaption(results) +
      " Simulated time of one training step in ms, with the speedup over the human expert placement in parentheses "
      "(higher is better). **Bold**: the fastest plan of the row. OOM: the plan does not fit in device memory. "
      "Lower bound: no plan can be faster on that cluster (critical path, work); best / bound: the fastest plan's "
      "step time over the lower bound.";
  const bool fitting = std::any_of(results.rows.begin(), results.rows.end(),
                                   [](const RowResult& r) { return r.fitting_bound_us > 0; });
  if (fitting) {
    out += " Tighter bound: no plan that fits in memory can be faster (the interval bound and the memory-forced cut "
           "as well, sim/lower_bound.h).";
  }
  out += " Geometric means run over the rows where both the method and the expert fit.\n\n";
  out += "| graph (devices) | cluster |";
  for (const std::string& c : columns) out += " " + MarkdownCellText(c) + " |";
  out += " lower bound | best / bound |";
  if (fitting) out += " tighter bound | best / tighter |";
  out += "\n|---|---|";
  for (size_t i = 0; i < columns.size(); ++i) out += "---:|";
  out += fitting ? "---:|---:|---:|---:|\n" : "---:|---:|\n";

  std::vector<std::string> footnotes;
  for (const RowResult& row : results.rows) {
    out += "| " + MarkdownCellText(row.DisplayName()) + StrFormat(" (%d) | ", row.devices) + MarkdownCellText(row.cluster) + " |";
    const double best = BestStepTime(row);
    for (const std::string& method : columns) {
      const auto it = row.methods.find(method);
      std::string cell;
      if (it == row.methods.end()) {
        cell = kMissing;
      } else if (it->second.failed()) {
        footnotes.push_back(method + " on " + row.row + ": " + it->second.error);
        cell = StrFormat("error [%zu]", footnotes.size());
      } else if (it->second.oom) {
        cell = "OOM";
      } else {
        cell = Ms(it->second.step_time_us);
        if (it->second.step_time_us == best) cell = "**" + cell + "**";
        const std::optional<double> speedup = SpeedupOverExpert(row, method);
        if (speedup) cell += " (" + Times(*speedup) + ")";
      }
      out += " " + cell + " |";
    }
    out += " " + (row.lower_bound_us > 0 ? Ms(row.lower_bound_us) : std::string(kMissing)) + " |";
    out += " " + (best > 0 && row.lower_bound_us > 0 ? Times(best / row.lower_bound_us) : std::string(kMissing)) + " |";
    if (fitting) {
      out += " " + (row.fitting_bound_us > 0 ? Ms(row.fitting_bound_us) : std::string(kMissing)) + " |";
      out += " " + (best > 0 && row.fitting_bound_us > 0 ? Times(best / row.fitting_bound_us) : std::string(kMissing)) + " |";
    }
    out += "\n";
  }

  const std::vector<MethodSummary> summaries = SummarizeMethods(results);
  out += "| geometric mean of speedups | |";
  for (const MethodSummary& s : summaries) {
    out += " " + (s.rows_compared > 0 ? Times(s.geomean_speedup) : std::string(kMissing)) + " |";
  }
  const std::string trailing = fitting ? " | | | |\n" : " | |\n";
  out += trailing + "| plans that fit in memory | |";
  for (const MethodSummary& s : summaries) out += StrFormat(" %d/%d |", s.rows_fit, s.rows_run);
  // Time to plan: the longest of the method's rows (a failed plan's time included).
  out += trailing + "| time to plan, longest row | |";
  for (const std::string& method : columns) {
    double longest = -1;
    for (const RowResult& row : results.rows) {
      const auto it = row.methods.find(method);
      if (it != row.methods.end()) longest = std::max(longest, it->second.plan_seconds);
    }
    out += " " + (longest < 0 ? std::string(kMissing) : PlanSeconds(longest)) + " |";
  }
  out += trailing;

  if (!footnotes.empty()) {
    out += "\n";
    for (size_t i = 0; i < footnotes.size(); ++i) out += StrFormat("[%zu] ", i + 1) + MarkdownCellText(footnotes[i]) + "\n";
  }
  return out;
}

std::string ResultsCsv(const SuiteResults& results) {
  std::string out =
      "row,label,model,cluster,devices,ops,method,status,step_time_us,speedup_vs_expert,lower_bound_us,step_over_bound,"
      "plan_seconds,max_peak_memory_bytes,error,fitting_bound_us\n";
  const std::vector<std::string> columns = MethodColumns(results);
  for (const RowResult& row : results.rows) {
    for (const std::string& method : columns) {
      const auto it = row.methods.find(method);
      if (it == row.methods.end()) continue;
      const MethodResult& m = it->second;
      const std::string status = m.failed() ? "error" : m.oom ? "oom" : "ok";
      const std::optional<double> speedup = SpeedupOverExpert(row, method);
      int64_t max_peak = 0;
      for (int64_t p : m.peak_memory) max_peak = std::max(max_peak, p);
      std::vector<std::string> fields = {
          CsvField(row.row),
          CsvField(row.label),
          CsvField(row.model),
          CsvField(row.cluster),
          std::to_string(row.devices),
          std::to_string(row.ops),
          CsvField(method),
          status,
          m.failed() ? "" : CsvNumber(m.step_time_us),
          speedup ? CsvNumber(*speedup) : "",
          CsvNumber(row.lower_bound_us),
          !m.failed() && row.lower_bound_us > 0 ? CsvNumber(m.step_time_us / row.lower_bound_us) : "",
          StrFormat("%.6f", m.plan_seconds),
          m.failed() ? "" : std::to_string(max_peak),
          CsvField(m.error),
          row.fitting_bound_us > 0 ? CsvNumber(row.fitting_bound_us) : "",
      };
      for (size_t i = 0; i < fields.size(); ++i) out += (i == 0 ? "" : ",") + fields[i];
      out += "\n";
    }
  }
  return out;
}

ReportPaths ReportPathsFor(const std::string& json_path) {
  std::string stem = json_path;
  if (FileExtension(json_path) == "json") stem = json_path.substr(0, json_path.size() - 5);
  ReportPaths paths;
  paths.json = json_path;
  paths.markdown = stem + ".md";
  paths.csv = stem + ".csv";
  paths.svg = stem + ".svg";
  return paths;
}

Status WriteResultsAndReports(const SuiteResults& results, const ReportPaths& paths) {
  GO_RETURN_IF_ERROR(WriteResultsFile(results, paths.json));
  GO_RETURN_IF_ERROR(WriteFileAtomic(paths.markdown, ResultsMarkdown(results)));
  GO_RETURN_IF_ERROR(WriteFileAtomic(paths.csv, ResultsCsv(results)));
  return WriteFileAtomic(paths.svg, SpeedupChartSvg(results));
}

}  // namespace graphopt
