// The report of `graphopt bench --fidelity` (cli/fidelity_command.cc), from what the
// bench measured and simulated: the Markdown report, the JSON results file, the panels
// of the scatter chart (eval/fidelity.h) and the table of one graph's plans the bench
// prints as it goes.
//
// The report takes the figures as given (the measurement protocol that makes them is
// exec/fidelity_rounds.h) and computes only what compares them: the figures per cost
// model (ComputeFidelity), the noise floor over the plans and the real evaluation, the
// learned optimizer's plan measured against the fastest baseline's. A plan that was not
// executed (`error` set) is listed with its error and left out of every figure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "eval/fidelity.h"
#include "sim/cluster.h"

namespace graphopt {

// The cost models every plan is simulated with, in the report's column order.
constexpr int kNumFidelityModels = 3;
inline constexpr const char* kFidelityModels[kNumFidelityModels] = {"roofline", "isolation", "in-step"};

// Who made a plan: the real evaluation sets the learned optimizer's plan against the
// baselines' (a random plan is in the figures but in no comparison).
enum class PlanSource { kBaseline, kRandom, kLearned };

struct FidelityPlanRun {
  std::string name;  // the method: "expert", "heft+fusion", "random", "go"
  PlanSource source = PlanSource::kBaseline;
  std::string error;             // why it was not executed ("" if it was)
  std::vector<double> steps_us;  // its measured step of every round
  double measured_us = 0;        // the median of steps_us
  double spread = 0;             // of steps_us: (max - min) / median
  double half_gap = 0;           // |median of odd rounds - median of even rounds| / median
  double simulated_us[kNumFidelityModels] = {0, 0, 0};  // per cost model; 0: out of memory
  // The in-step model with the contention calibrated before the plans were made
  // (FidelityGraphRun::calibrated) instead of the rounds' (0: not simulated, or out of
  // memory): what the rounds' contention changes.
  double calibrated_in_step_us = 0;
  // The in-step model with the rounds' probes alone (no op kinds measured busy; 0: not
  // simulated, or out of memory): what the busy steps change.
  double probes_in_step_us = 0;
  // The in-step model without the read slowdown of received tensors (Contention::read
  // set to 1; 0: not simulated, or out of memory): what charging those reads changes.
  double no_read_in_step_us = 0;
  // The learned plan made with --go-verify: the candidate verify kept, by its name
  // ("2 (polish)", "heft (baseline)": the full optimizer's pick may be a baseline's plan).
  std::string verify_kept;
};

struct FidelityGraphRun {
  std::string model;  // as given, e.g. "rnnlm:layers=2,batch=16"
  int ops = 0;
  double isolation_sum_us = 0, in_step_sum_us = 0;  // sums of the profiles' op times
  std::vector<FidelityPlanRun> plans;
  std::vector<std::vector<double>> reference_us;  // per device: its reference GEMM, once per round
  std::vector<double> reference_spread;           // per device: the spread of reference_us
  // On a cluster of two devices or more: the devices' contention (Cluster::contention)
  // calibrated before the plans were made, and sampled after every measured round
  // (exec/concurrency.h), and each op kind's slowdown in the in-step profile taken in
  // the same rounds with every other device busy (exec/busy_profile.h; empty: none
  // taken); the in-step model runs with FidelityRoundsContention.
  Contention calibrated;
  std::vector<Contention> round_contention;
  std::map<OpKind, double> kinds;
};

// The contention the in-step model runs with: the median of the rounds' samples (the
// calibration where there are none) and the kinds measured busy.
Contention FidelityRoundsContention(const FidelityGraphRun& run);

// How the figures were made, for the report's first paragraph and the JSON file.
struct FidelitySetup {
  std::string cluster;       // the cluster's name
  int steps = 0, warmup = 0;  // measured and warm-up rounds
  std::string plan_profile;  // the op times the plans were made with (a kFidelityModels name)
  double go_seconds = 0;     // of the learned optimizer's search per graph
};

// A time in milliseconds as the report writes it ("12.34").
std::string FidelityMs(double us);

// The points of cost model `model` (an index of kFidelityModels): every executed plan.
std::vector<FidelityPoint> FidelityPoints(const std::vector<FidelityGraphRun>& runs, int model);
// One panel per cost model, for FidelityScatterSvg.
std::vector<FidelityPanel> FidelityPanels(const std::vector<FidelityGraphRun>& runs);

// What the devices took from each other, as the graph's report says it: "compute 1.00x,
// memory 1.31x in the rounds (median of 9 samples); calibrated before: compute 1.00x,
// memory 1.52x"; "" without samples.
std::string FidelityContentionText(const FidelityGraphRun& run);

// The table of one graph's plans, as the bench prints it once the graph is measured:
// executed time, spread, and per cost model the simulated time with its error.
std::string FidelityPlanTable(const FidelityGraphRun& run);

// The report's closing sections, from "## Figures per cost model": the figures per cost
// model and per graph, the noise floor, the reference GEMM's spread and the real
// evaluation. The bench prints them at its end.
std::string FidelityFiguresMarkdown(const std::vector<FidelityGraphRun>& runs);
// The whole Markdown report: how it was measured, a table per graph, then
// FidelityFiguresMarkdown.
std::string FidelityMarkdown(const std::vector<FidelityGraphRun>& runs, const FidelitySetup& setup);
// The results file: format "graphopt-fidelity", version 1, every plan's steps and
// times, the figures per cost model (NaN correlations as null); the text ends in a
// newline.
std::string FidelityResultsJson(const std::vector<FidelityGraphRun>& runs, const FidelitySetup& setup);

}  // namespace graphopt
