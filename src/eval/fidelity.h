// Fidelity of the simulator: its step times against measured ones (exec/executor.h),
// plan by plan over several graphs, in the figures `graphopt bench --fidelity` reports.
//
// - Error of a plan: (simulated - measured) / measured; the mean of its absolute value
//   over the points, and the worst (the largest in magnitude, with its sign).
// - Spearman rank correlation of simulated against measured step times (ties take
//   their mean rank): over all points (graphs of different sizes make that one easy)
//   and within each graph (whether the simulator orders a graph's plans as the machine
//   does: what an optimizer relies on).
// - Regret within a graph: how much slower, measured, the plan the simulator ranks
//   fastest is than the plan measured fastest (0: the simulator picks the best plan).
//
// And the scatter chart of simulated against measured time, one panel per cost model
// (roofline, profile, ...), as a self-contained SVG.
#pragma once

#include <string>
#include <vector>

namespace graphopt {

struct FidelityPoint {
  std::string graph;        // the graph's row name
  std::string plan;         // the plan's name (a method)
  double measured_us = 0;   // median executed step time (> 0)
  double spread = 0;        // of the executed steps: (max - min) / median
  double simulated_us = 0;  // > 0
};

struct GraphFidelity {
  std::string graph;
  int plans = 0;
  double mean_abs_error = 0;
  double spearman = 0;  // NaN with fewer than 2 plans or all times equal
  std::string picked;   // the plan simulated fastest
  std::string best;     // the plan measured fastest
  double regret = 0;    // measured(picked) / measured(best) - 1
};

struct FidelityStats {
  int points = 0;
  double mean_abs_error = 0;
  double worst_error = 0;  // signed
  std::string worst;       // "graph / plan" of the worst error
  double spearman = 0;     // over every point
  double min_spearman = 0; // the lowest within a graph
  double mean_regret = 0;  // over the graphs
  double max_regret = 0;
  std::vector<GraphFidelity> graphs;  // in the order they first appear
};

// Spearman's rank correlation of x and y (same length); NaN for fewer than 2 values or
// a constant side.
double SpearmanCorrelation(const std::vector<double>& x, const std::vector<double>& y);

// Points with a non-positive measured or simulated time are left out (callers report
// them apart: a plan that did not run has no error).
FidelityStats ComputeFidelity(const std::vector<FidelityPoint>& points);

struct FidelityPanel {
  std::string title;  // "profile (in step)"
  std::vector<FidelityPoint> points;
};

// Log-log scatter, one panel per cost model: measured step time across, simulated up,
// the line of equality and a band of +-10% around it, a colour per graph, a tooltip
// per point (graph, plan, both times, error); each panel's title gives its mean
// absolute error and Spearman correlation.
std::string FidelityScatterSvg(const std::vector<FidelityPanel>& panels, const std::string& title);

}  // namespace graphopt
