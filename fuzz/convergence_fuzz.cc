// Convergence JSON (eval/convergence_svg.h), as `graphopt bench` reads the file it
// adds to: parse, then draw the chart of what loaded.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/logging.h"
#include "eval/convergence_svg.h"

using namespace graphopt;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  SetLogLevel(LogLevel::kSilent);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  StatusOr<std::vector<ConvergenceSeries>> series = ConvergenceFromJson(text, "fuzz.json");
  if (!series.ok()) return 0;
  (void)ConvergenceChartSvg(*series, ConvergenceAxis::kSeconds);
  (void)ConvergenceChartSvg(*series, ConvergenceAxis::kPlans);
  return 0;
}
