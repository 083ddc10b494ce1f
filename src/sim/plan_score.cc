#include "sim/plan_score.h"

#include "core/strings.h"

namespace graphopt {

PlanScore PlanScore::Of(const SimResult& result) {
  PlanScore s;
  s.step_time_us = result.step_time_us;
  s.oom = result.oom;
  s.overflow_bytes = result.oom ? result.oom_overflow_bytes : 0;
  return s;
}

bool PlanScore::BetterThan(const PlanScore& other, double margin) const {
  if (!scored()) return false;
  if (!other.scored()) return true;
  if (fits() != other.fits()) return fits();
  if (!fits() && overflow_bytes != other.overflow_bytes) return overflow_bytes < other.overflow_bytes;
  return step_time_us < other.step_time_us * (1 - margin);
}

std::string PlanScore::ToString() const {
  if (!scored()) return "none";
  if (fits()) return StrFormat("%.4f s", step_time_us / 1e6);
  return StrFormat("OOM by %s (%.4f s)", HumanBytes(static_cast<double>(overflow_bytes)).c_str(), step_time_us / 1e6);
}

}  // namespace graphopt
