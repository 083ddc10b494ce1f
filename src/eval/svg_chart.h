// A bar chart of suite results as a self-contained SVG file (no dependencies; any
// browser or image viewer shows it).
//
// One group of bars per row, one bar per method: its speedup over the human expert
// placement on a log axis, drawn from the 1.0 line (up: faster than the expert,
// down: slower). A plan that runs out of memory is a hatched stub at the bottom of
// the plot marked "OOM" (a failed method: "error"); a dashed line across each group
// marks the lower bound (expert time / lower bound: no plan can reach above it). A
// row whose expert plan does not fit has no speedups and says so. Every bar has a
// tooltip with the step time and the speedup.
#pragma once

#include <string>

#include "eval/results.h"

namespace graphopt {

struct ChartOptions {
  std::string title = "Placement suite: speedup over the human expert placement (simulated step time)";
  int plot_width = 1260;  // pixels of the plot area; bars shrink to fit
  int plot_height = 380;
};

std::string SpeedupChartSvg(const SuiteResults& results, const ChartOptions& options = {});

}  // namespace graphopt
