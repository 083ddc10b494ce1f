// The local search's state in checkpoint JSON: a PlanScore as {"step_time_us", "oom",
// "overflow_bytes"}, with step_time_us = -1 for a score that was never set, and a
// LocalSearch::Cursor as {"scale", "failed_scales"}.
#pragma once

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "rl/local_search.h"

namespace graphopt {

inline nlohmann::json PlanScoreToJson(const PlanScore& s) {
  return nlohmann::json{{"step_time_us", s.scored() ? s.step_time_us : -1.0},
                        {"oom", s.oom},
                        {"overflow_bytes", s.scored() ? s.overflow_bytes : int64_t{-1}}};
}

// A checked read: step_time_us -1 (never scored) or a positive finite time,
// overflow_bytes a non-negative integer; `where` names the file and field.
inline StatusOr<PlanScore> PlanScoreFromJson(const nlohmann::json& j, const std::string& where) {
  PlanScore s;
  auto get = [&](const char* name) { return JsonMember(j, name, where); };
  GO_ASSIGN_OR_RETURN(const nlohmann::json* t, get("step_time_us"));
  GO_ASSIGN_OR_RETURN(const double step_us, JsonNumber(*t, where + ".step_time_us", -1));
  if (step_us < 0) {
    if (step_us != -1) return ParseError(where + ".step_time_us: " + t->dump() + " (-1 for no plan, or a positive time)");
    return s;
  }
  if (step_us == 0) return ParseError(where + ".step_time_us: 0 (no plan runs in no time)");
  s.step_time_us = step_us;
  GO_ASSIGN_OR_RETURN(const nlohmann::json* oom, get("oom"));
  GO_ASSIGN_OR_RETURN(s.oom, JsonBool(*oom, where + ".oom"));
  GO_ASSIGN_OR_RETURN(const nlohmann::json* over, get("overflow_bytes"));
  GO_ASSIGN_OR_RETURN(s.overflow_bytes, JsonInt(*over, where + ".overflow_bytes", 0));
  return s;
}

inline nlohmann::json CursorToJson(const LocalSearch::Cursor& c) {
  return nlohmann::json{{"scale", c.scale}, {"failed_scales", c.failed_scales}};
}

// A checked read of CursorToJson's fields in `j` (other members are ignored).
inline StatusOr<LocalSearch::Cursor> CursorFromJson(const nlohmann::json& j, const std::string& where) {
  GO_ASSIGN_OR_RETURN(const nlohmann::json* scale, JsonMember(j, "scale", where));
  GO_ASSIGN_OR_RETURN(const nlohmann::json* failed, JsonMember(j, "failed_scales", where));
  LocalSearch::Cursor c{0, 0, 0};
  GO_RETURN_IF_ERROR(JsonIntTo(*scale, where + ".scale", &c.scale, 0, 64));
  GO_RETURN_IF_ERROR(JsonIntTo(*failed, where + ".failed_scales", &c.failed_scales, 0, 64));
  return c;
}

}  // namespace graphopt
