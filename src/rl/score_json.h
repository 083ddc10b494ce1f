// PlanScore in checkpoint JSON: {"step_time_us", "oom", "overflow_bytes"}, with
// step_time_us = -1 for a score that was never set.
#pragma once

#include <nlohmann/json.hpp>

#include "rl/local_search.h"

namespace graphopt {

inline nlohmann::json PlanScoreToJson(const PlanScore& s) {
  return nlohmann::json{{"step_time_us", s.scored() ? s.step_time_us : -1.0},
                        {"oom", s.oom},
                        {"overflow_bytes", s.scored() ? s.overflow_bytes : int64_t{-1}}};
}

// Throws nlohmann::json::exception on a missing or mistyped field.
inline PlanScore PlanScoreFromJson(const nlohmann::json& j) {
  PlanScore s;
  const double t = j.at("step_time_us").get<double>();
  if (t < 0) return s;
  s.step_time_us = t;
  s.oom = j.at("oom").get<bool>();
  s.overflow_bytes = j.at("overflow_bytes").get<int64_t>();
  return s;
}

}  // namespace graphopt
