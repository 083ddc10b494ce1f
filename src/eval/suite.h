// The placement benchmark suite: the 13 (graph, number of devices) rows of the
// placement table of the GO paper (MISSION.md), each on a cluster preset that has
// that many accelerators, and the runner that scores every method on every row.
//
// A method is a pipeline of the planner registry (baselines/planner.h): a planner's
// name, optionally with stages ("metis+fusion": the same placement with greedy fusion
// applied). A plan function of one's own joins through MethodSpec::plan.
// For each row, RunSuite builds the training-step graph and the simulator once, then
// for each method produces a plan, simulates it and records the step time, the OOM
// verdict, the peak memory per device and the wall-clock time the method took. A
// method that fails is recorded with its error message; the suite goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "eval/results.h"
#include "graph/graph.h"
#include "baselines/planner.h"
#include "sim/cluster.h"
#include "sim/plan.h"
#include "sim/simulator.h"

namespace graphopt {

struct SuiteRow {
  std::string name;     // unique, for --rows and the results file: "gnmt-4"
  std::string label;    // display name: "GNMT 4-layer"
  std::string model;    // model spec for LoadModel: "gnmt:layers=4"
  int devices = 0;      // accelerators the row is defined on
  std::string cluster;  // cluster preset (or cluster file) with that many accelerators
};

// The 13 rows of the placement table, in the paper's order.
const std::vector<SuiteRow>& PlacementSuiteRows();
// The preset used for a row on n accelerators: 2xP100 for 2, 4xV100 for 4, 8xV100 for
// 8; NotFound for other counts.
StatusOr<std::string> PresetForDevices(int devices);

// Rows of model files or built-in specs (bench --models), each on `cluster`: named by
// the file's name ("resnet50.onnx", "gnmt.txt") or by the spec itself; a repeated name
// or a cluster that cannot be loaded is an error.
StatusOr<std::vector<SuiteRow>> ModelRows(const std::vector<std::string>& models, const std::string& cluster);

// Orders results rows as the suite lists them; rows the suite does not have go last,
// in their current order.
void SortRowsInSuiteOrder(const std::vector<SuiteRow>& suite, SuiteResults* results);

// Picks rows by name from a comma-separated list ("gnmt-4,wavenet-2"), in the order
// given; an empty list picks all. Unknown or repeated names are errors that list the
// known names.
StatusOr<std::vector<SuiteRow>> SelectRows(const std::vector<SuiteRow>& rows, const std::string& names);

// Produces a method's plan for a row (the graph, its cluster and its simulator).
using PlanFunction = std::function<StatusOr<Plan>(const Graph& graph, const Cluster& cluster, const Simulator& simulator)>;

// A method of the suite: its column name and how to run it: a pipeline of the planner
// registry made with `settings` (the suite's seed replaces settings.seed), or a plan
// function of one's own through `plan`, which then takes precedence.
struct MethodSpec {
  std::string name;  // column name: "metis" or "metis+fusion"
  Pipeline pipeline;
  PlannerSettings settings;
  PlanFunction plan;  // if set, produces the plan instead of the pipeline
  // Called with a searching planner's report after each of its runs (its convergence).
  std::function<void(const SearchReport&)> on_report;
  // The wall time it takes on any row (a learned method's time limit); 0: it grows
  // with the graph. Only an estimate for dealing rows to ranks (EstimateRowSeconds).
  double fixed_seconds = 0;
};

// Parses a method name: a planner of the registry with optional stages. Unknown names
// are an error listing the known ones.
StatusOr<MethodSpec> ParseMethod(const std::string& name);
// Parses a comma-separated list of methods (empty: every standard baseline). With
// add_fusion, each baseline is followed by its "+fusion" variant, except those that
// decide their own fusion (tf-default: the variant would be the same plan).
StatusOr<std::vector<MethodSpec>> ParseMethods(const std::string& names, bool add_fusion);

// Which of each method's decisions a table keeps: the rest take the same defaults for
// every column, so that a table compares like with like (its caption says which).
enum class TableDecisions : uint8_t {
  // Placement only: every column's plan keeps its devices and runs with the
  // framework's defaults, ready order and TensorFlow's greedy fusion of elementwise
  // ops under the kernel rules (ApplyFrameworkDefaults), the learned placers' too.
  kPlacement,
  // Every decision: a learned method's own schedule and fusion against each baseline
  // given greedy legal fusion of every kind and critical-path priorities.
  kAll,
  // Each plan as its method made it (tables whose columns say what they decided:
  // the multi-task configurations, the transfer table's zero-shot and fine-tuned plans).
  kAsProduced,
};
// "placement", "all", "as-produced".
const char* TableDecisionsName(TableDecisions decisions);
StatusOr<TableDecisions> TableDecisionsFromName(const std::string& name);

// Puts the table's defaults into a method's plan (complete and valid; it stays valid).
// `baseline`: the plan is a baseline's (kAll gives baselines the defaults only).
void ApplyTableDecisions(TableDecisions decisions, bool baseline, const Simulator& simulator, Plan* plan);

struct SuiteOptions {
  std::vector<SuiteRow> rows = PlacementSuiteRows();
  TableDecisions decisions = TableDecisions::kPlacement;
  std::vector<MethodSpec> methods;  // empty: every baseline
  // Cluster preset or file for every row instead of each row's own; "" keeps them.
  std::string cluster_override;
  uint64_t seed = 0;           // BaselineOptions.seed of the randomized partitioners
  bool show_progress = false;  // a progress line on stderr (rows x methods)
};

// Each row's estimated wall time with these methods (empty: every baseline), to deal
// the rows of a distributed run by cost (dist/deal.h): a method with fixed_seconds
// costs that much; any other 0.5 ms per op of the row's graph (measured: HDP's 20
// steps 0.43 ms per op, 50 fine-tuning steps 0.9, a heuristic far less). Builds each
// row's model to count its ops; a model that cannot be built costs 0 here (RunSuite
// reports it).
std::vector<double> EstimateRowSeconds(const std::vector<SuiteRow>& rows, const std::vector<MethodSpec>& methods);

// Called after each row with its results; a non-OK status stops the suite and is
// returned (e.g. the results file could not be written).
using RowDoneCallback = std::function<Status(const RowResult&)>;

// Runs every method on every row. Fails before running anything if a cluster cannot
// be loaded, and on a row whose model cannot be built or simulated (with the row's
// name); a failing method is not an error of the suite (see MethodResult::error).
StatusOr<SuiteResults> RunSuite(const SuiteOptions& options, const RowDoneCallback& on_row_done = nullptr);

}  // namespace graphopt
