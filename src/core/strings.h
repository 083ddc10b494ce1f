// Small string utilities: human-readable sizes and counts, splitting, and
// parsing of "key=value,key=value" parameter lists with clear errors.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace graphopt {

std::vector<std::string> Split(const std::string& s, char sep);
std::string Trim(const std::string& s);
bool StartsWith(const std::string& s, const std::string& prefix);
// "1.50 GB" style (powers of 1000 for FLOPs/counts: "4.09 G").
std::string HumanBytes(double bytes);
std::string HumanCount(double count);
std::string StrFormat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Parses "a=1,b=2" into a map; context names the argument in errors.
StatusOr<std::map<std::string, std::string>> ParseKeyValues(const std::string& text, const std::string& context);
StatusOr<int64_t> ParseInt(const std::string& text, const std::string& context);
StatusOr<double> ParseDouble(const std::string& text, const std::string& context);
// 1/true or 0/false; anything else fails, naming `context`.
StatusOr<bool> ParseBool(const std::string& text, const std::string& context);

}  // namespace graphopt
