// SuiteResults: the results of a benchmark suite, one row per (graph, cluster), one
// column per method, kept in a JSON file that every run of the suite adds to.
//
// A run replaces the columns of the methods it ran and keeps the others
// (MergeResults), so methods that come later (the learned placers) add their columns
// without rerunning the baselines. A row whose model or cluster changed is replaced
// whole: columns measured on another setup are not comparable.
//
// A results file says which table it is and which judge measured it: "decisions"
// (eval/suite.h TableDecisions: "placement", "all" or "as-produced") and "judge" (the
// simulator's rules, sim/simulator.h kJudgeVersion). Runs of another table or judge do not
// merge into it (CheckMergeable). Version 1 files (before those fields) read as
// "as-produced" measured by judge 1.
//
// JSON ("graphopt-results", version 2):
//   {"format": "graphopt-results", "version": 2, "decisions": "placement", "judge": 2,
//    "rows": [{"row": "gnmt-4", "label": "GNMT 4-layer", "model": "gnmt:layers=4",
//              "cluster": "4xV100", "devices": 4, "ops": 24185,
//              "lower_bound_us": 105600.0, "fitting_bound_us": 131200.0,
//              "setup_seconds": 0.41, "seconds": 1.2,
//              "methods": {"expert": {"step_time_us": 408900.0, "oom": false,
//                                     "peak_memory": [9.1e9, ...], "plan_seconds": 0.02,
//                                     "error": ""}, ...}}]}
// peak_memory is in bytes per device of the cluster (host CPU included); error is
// non-empty when the method could not produce or simulate a plan (the other fields
// are then meaningless). lower_bound_us is the critical-path and work bound (no plan is
// faster); fitting_bound_us (absent in older files: 0) the tighter bound of
// sim/lower_bound.h fitting_value_us (no plan that fits in memory is faster: the
// critical path, work, the interval bound and the memory-forced cut). Rows keep their
// order in the file.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphopt {

// The suffix of a method column that adds greedy fusion to a baseline's placement
// ("metis+fusion").
inline constexpr const char* kFusionSuffix = "+fusion";

// One method on one row.
struct MethodResult {
  double step_time_us = 0;
  bool oom = false;
  std::vector<int64_t> peak_memory;  // bytes, per device of the cluster
  double plan_seconds = 0;           // wall-clock time the method took to produce its plan
  std::string error;                 // non-empty: the method failed with this message

  bool failed() const { return !error.empty(); }
  // Produced a plan that fits in memory: its step time counts.
  bool fits() const { return error.empty() && !oom; }
};

// One graph on one cluster.
struct RowResult {
  std::string row;      // suite row name, unique within a results file ("gnmt-4")
  std::string label;    // display name ("GNMT 4-layer"); the row name if empty
  std::string model;    // model spec (LoadModel)
  std::string cluster;  // preset name or cluster file
  int devices = 0;      // accelerators of the cluster
  int64_t ops = 0;      // ops of the training-step graph
  double lower_bound_us = 0;    // critical path and work: no plan is faster
  double fitting_bound_us = 0;  // the tighter bound for plans that fit (0: not measured, or none fits)
  double setup_seconds = 0;  // time to build the graph and the simulator
  double seconds = 0;        // wall-clock time of the whole row (setup and every method run)
  std::map<std::string, MethodResult> methods;

  const std::string& DisplayName() const { return label.empty() ? row : label; }
};

struct SuiteResults {
  std::vector<RowResult> rows;
  std::string decisions = "as-produced";  // which decisions each column kept
  int judge = 1;                          // the simulator's rules that measured it

  const RowResult* FindRow(const std::string& row) const;
};

// The configurations of the GO paper's multi-task table (graphopt bench --tasks,
// rl/task_configurations.h), in the paper's order: tf-default, hp-only, pl-only,
// pl|sch, pl+sch, sch+fu, pl|sch|fu, pl+sch+fu.
const std::vector<std::string>& TaskConfigurationNames();

// The method columns of the results in display order: the baselines in BaselineNames
// order, then the baselines with greedy fusion ("expert+fusion") in the same order,
// then the task configurations in their order, then every other method alphabetically.
std::vector<std::string> MethodColumns(const SuiteResults& results);
// Column order of one method name (lower first), as MethodColumns sorts.
bool MethodColumnLess(const std::string& a, const std::string& b);

// Adds `update` to `base`: each row of update replaces the columns of its methods in
// the base row of the same name and keeps the base's other columns; a row that is
// new, or whose model or cluster changed, is taken whole. A row new to base goes
// right after the row that precedes it in update (first if none), so merging a whole
// suite into a part of it gives the suite's order. Returns one note per row whose old
// columns were dropped because its setup changed.
std::vector<std::string> MergeResults(const SuiteResults& update, SuiteResults* base);
// Whether `update` may merge into `base` (`path` names base's file in the error): the
// same table and judge, or a base with no rows (which then takes update's).
Status CheckMergeable(const SuiteResults& update, const SuiteResults& base, const std::string& path);

std::string ResultsToJson(const SuiteResults& results);
// Parses a results file; `source` names the file in errors.
StatusOr<SuiteResults> ResultsFromJson(const std::string& text, const std::string& source);
// Reads path; a missing file gives empty results (the first run of a suite).
StatusOr<SuiteResults> ReadResultsFile(const std::string& path);
// Writes the JSON atomically, creating the parent folder if needed.
Status WriteResultsFile(const SuiteResults& results, const std::string& path);

}  // namespace graphopt
