// Convergence of the learned optimizers over the suite: for each (row, method), the
// best step time found so far against wall-clock seconds and against plans
// simulated. Kept in a JSON file beside the results that every `graphopt bench` run
// adds to (a run replaces the traces of the (row, method) pairs it ran), and drawn
// as small multiples: one panel per row, one line per method, step times relative to
// the row's best baseline (1.0: as fast as the best baseline; lower is better), a
// marker where each method found its final plan. Plain numbers only, so eval does
// not depend on the training library.
//
// JSON ("graphopt-convergence-suite", version 1):
//   {"format": "graphopt-convergence-suite", "version": 1,
//    "runs": [{"row": "gnmt-4", "label": "GNMT 4-layer", "method": "go",
//              "reference_us": 399000.0, "end_seconds": 60.0, "end_plans": 5200,
//              "points": [[seconds, plans, best_step_time_us], ...]}]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphopt {

struct ConvergenceSeries {
  std::string row;                // suite row name ("gnmt-4")
  std::string label;              // display name ("GNMT 4-layer")
  std::string method;             // "go", "colocrl", "hdp"
  double reference_us = 0;        // the row's best baseline step time (> 0 to be drawn)
  std::vector<double> seconds;    // when the best plan that fits improved (plans that
                                  // do not fit are left out: their step time is no result)
  std::vector<int64_t> plans;     // plans simulated by then
  std::vector<double> best_us;    // its step time then (same length)
  double end_seconds = 0;         // when the run stopped (the line runs flat to here)
  int64_t end_plans = 0;
};

// Parses a convergence file's text; `source` names the file in errors. Times, step
// times and plan counts must be non-negative numbers (plan counts integers).
StatusOr<std::vector<ConvergenceSeries>> ConvergenceFromJson(const std::string& text, const std::string& source);
// Reads a convergence file; a missing file is an empty list.
StatusOr<std::vector<ConvergenceSeries>> ReadConvergenceFile(const std::string& path);
// The convergence file's text (ConvergenceFromJson reads it back).
std::string ConvergenceToJson(const std::vector<ConvergenceSeries>& series);
// Writes atomically.
Status WriteConvergenceFile(const std::vector<ConvergenceSeries>& series, const std::string& path);
// Replaces the series of the same (row, method) in *all, or appends.
void MergeConvergence(const ConvergenceSeries& series, std::vector<ConvergenceSeries>* all);

enum class ConvergenceAxis { kSeconds, kPlans };

// Small multiples: one panel per row (in the order rows first appear), one line per
// method, x on a log scale.
std::string ConvergenceChartSvg(const std::vector<ConvergenceSeries>& series, ConvergenceAxis axis);

}  // namespace graphopt
