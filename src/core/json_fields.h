// Checked reads of JSON values: the one path from a parsed nlohmann::json value to
// a C++ value for every file graphopt reads. Integers are range-checked before any
// narrowing (2^32 + 1 is an error, not 1; 1.5 is an error, not 1), floating values
// must be finite and within the caller's range, and a file's "format"/"version"
// header is checked the same way for every file kind. `where` names the file and
// field ("plan.json: device[3]") and starts every error message.
//
// Header-only so that core needs no JSON library; include it only from libraries
// that link nlohmann_json.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <vector>

#include "core/status.h"

namespace graphopt {

// The parsed text of a JSON file; `source` names the file. Syntax errors give the
// byte offset; a number beyond the range of a double ("1e999") is an error too (the
// parser reports it as out_of_range, not as a parse_error).
inline StatusOr<nlohmann::json> ParseJsonText(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return ParseError(source + ": not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
  } catch (const nlohmann::json::exception& e) {
    return ParseError(source + ": not valid JSON: " + e.what());
  }
}

// The member `name` of the object `obj`, or an error naming `where` and the member
// (`where` names the object: "state.json" or "state.json: best").
inline StatusOr<const nlohmann::json*> JsonMember(const nlohmann::json& obj, const std::string& name,
                                                  const std::string& where) {
  if (!obj.is_object()) return ParseError(where + ": must be a JSON object, got " + std::string(obj.type_name()));
  auto it = obj.find(name);
  if (it == obj.end()) return ParseError(where + ": \"" + name + "\" is missing");
  return &*it;
}

// An integer in [lo, hi]. Floats (even 2.0), strings, booleans and null are errors.
inline StatusOr<int64_t> JsonInt(const nlohmann::json& v, const std::string& where, int64_t lo = std::numeric_limits<int64_t>::min(),
                                 int64_t hi = std::numeric_limits<int64_t>::max()) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  if (!v.is_number_integer()) return ParseError(where + ": must be an integer in " + range + ", got " + v.dump());
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (hi < 0 || u > static_cast<uint64_t>(hi)) return ParseError(where + ": " + v.dump() + " is out of range " + range);
    const int64_t i = static_cast<int64_t>(u);
    if (i < lo) return ParseError(where + ": " + v.dump() + " is out of range " + range);
    return i;
  }
  const int64_t i = v.get<int64_t>();
  if (i < lo || i > hi) return ParseError(where + ": " + v.dump() + " is out of range " + range);
  return i;
}

// An integer that fits T (int32_t, ...) and lies in [lo, hi].
template <typename T>
Status JsonIntTo(const nlohmann::json& v, const std::string& where, T* out, int64_t lo = std::numeric_limits<T>::min(),
                 int64_t hi = std::numeric_limits<T>::max()) {
  static_assert(std::is_integral_v<T> && (std::is_signed_v<T> || sizeof(T) < sizeof(int64_t)));
  lo = std::max<int64_t>(lo, static_cast<int64_t>(std::numeric_limits<T>::min()));
  hi = std::min<int64_t>(hi, static_cast<int64_t>(std::numeric_limits<T>::max()));
  GO_ASSIGN_OR_RETURN(const int64_t i, JsonInt(v, where, lo, hi));
  *out = static_cast<T>(i);
  return Status::Ok();
}

// An array of integers that fit T, each in [lo, hi]; errors name the element.
template <typename T>
Status JsonIntArray(const nlohmann::json& v, const std::string& where, std::vector<T>* out,
                    int64_t lo = std::numeric_limits<T>::min(), int64_t hi = std::numeric_limits<T>::max()) {
  if (!v.is_array()) return ParseError(where + ": must be an array of integers, got " + std::string(v.type_name()));
  std::vector<T> values(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    GO_RETURN_IF_ERROR(JsonIntTo(v[i], where + "[" + std::to_string(i) + "]", &values[i], lo, hi));
  }
  *out = std::move(values);
  return Status::Ok();
}

// A finite number in [lo, hi].
inline StatusOr<double> JsonNumber(const nlohmann::json& v, const std::string& where,
                                   double lo = -std::numeric_limits<double>::max(),
                                   double hi = std::numeric_limits<double>::max()) {
  if (!v.is_number()) return ParseError(where + ": must be a number, got " + v.dump());
  const double d = v.get<double>();
  if (!std::isfinite(d)) return ParseError(where + ": must be finite, got " + v.dump());
  if (d < lo || d > hi) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), " is out of range [%g, %g]", lo, hi);
    return ParseError(where + ": " + v.dump() + buf);
  }
  return d;
}

// A boolean (true/false only: "yes", 1 and null are errors).
inline StatusOr<bool> JsonBool(const nlohmann::json& v, const std::string& where) {
  if (!v.is_boolean()) return ParseError(where + ": must be true or false, got " + v.dump());
  return v.get<bool>();
}

// A string.
inline StatusOr<std::string> JsonString(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) return ParseError(where + ": must be a string, got " + v.dump());
  return v.get<std::string>();
}

// The member `name` of `obj` read by the readers above; errors name "WHERE: NAME"
// (`where` names the object: "state.json").
inline StatusOr<int64_t> JsonMemberInt(const nlohmann::json& obj, const std::string& name, const std::string& where,
                                       int64_t lo = std::numeric_limits<int64_t>::min(),
                                       int64_t hi = std::numeric_limits<int64_t>::max()) {
  GO_ASSIGN_OR_RETURN(const nlohmann::json* v, JsonMember(obj, name, where));
  return JsonInt(*v, where + ": " + name, lo, hi);
}
inline StatusOr<double> JsonMemberNumber(const nlohmann::json& obj, const std::string& name, const std::string& where,
                                         double lo = -std::numeric_limits<double>::max(),
                                         double hi = std::numeric_limits<double>::max()) {
  GO_ASSIGN_OR_RETURN(const nlohmann::json* v, JsonMember(obj, name, where));
  return JsonNumber(*v, where + ": " + name, lo, hi);
}
inline StatusOr<bool> JsonMemberBool(const nlohmann::json& obj, const std::string& name, const std::string& where) {
  GO_ASSIGN_OR_RETURN(const nlohmann::json* v, JsonMember(obj, name, where));
  return JsonBool(*v, where + ": " + name);
}
inline StatusOr<std::string> JsonMemberString(const nlohmann::json& obj, const std::string& name,
                                              const std::string& where) {
  GO_ASSIGN_OR_RETURN(const nlohmann::json* v, JsonMember(obj, name, where));
  return JsonString(*v, where + ": " + name);
}

// The header of a graphopt file: "format" must be present and equal `format`,
// "version" must be present and equal `version`. `source` names the file.
inline Status CheckJsonHeader(const nlohmann::json& root, const std::string& source, const std::string& format,
                              int64_t version) {
  if (!root.is_object()) return ParseError(source + ": expected a JSON object (a \"" + format + "\" file)");
  auto f = root.find("format");
  if (f == root.end()) return ParseError(source + ": \"format\" is missing, expected \"" + format + "\"");
  if (!f->is_string() || f->get<std::string>() != format) {
    return ParseError(source + ": \"format\" is " + f->dump() + ", expected \"" + format + "\"");
  }
  auto v = root.find("version");
  if (v == root.end()) return ParseError(source + ": \"version\" is missing (this build reads version " + std::to_string(version) + ")");
  if (!v->is_number_integer() || v->get<int64_t>() != version || (v->is_number_unsigned() && v->get<uint64_t>() != static_cast<uint64_t>(version))) {
    return ParseError(source + ": unsupported " + format + " version " + v->dump() + " (this build reads version " +
                      std::to_string(version) + ")");
  }
  return Status::Ok();
}

}  // namespace graphopt
