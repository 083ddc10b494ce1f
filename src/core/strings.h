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
// The items joined with `sep`: Join({"a", "b"}, ", ") is "a, b".
std::string Join(const std::vector<std::string>& items, const std::string& sep);
// The non-empty items of a list, trimmed: SplitList(" a, ,b", ',') is {"a", "b"}.
std::vector<std::string> SplitList(const std::string& s, char sep);
bool StartsWith(const std::string& s, const std::string& prefix);
// "1.50 GB" style (powers of 1000 for FLOPs/counts: "4.09 G").
std::string HumanBytes(double bytes);
std::string HumanCount(double count);
// A duration given in microseconds: "812.5 us", "43.187 ms", "1.250 s".
std::string HumanTime(double us);
std::string StrFormat(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
// The shortest decimal form of v that parses back to v ("0.001", "1e-05", "0.1").
std::string FormatDouble(double v);

// Parses "a=1,b=2" into a map; context names the argument in errors. Keys and values
// are trimmed; a key given twice fails. For a config struct use core/options.h,
// which adds typed fields, ranges and the list of known keys on top.
StatusOr<std::map<std::string, std::string>> ParseKeyValues(const std::string& text, const std::string& context);
// A decimal integer: "1.5", "1e9", "0x10" and trailing junk fail; so does a value
// beyond int64 ("... is out of range").
StatusOr<int64_t> ParseInt(const std::string& text, const std::string& context);
// A decimal integer in [0, 2^64 - 1]; a negative value is out of range.
StatusOr<uint64_t> ParseUint(const std::string& text, const std::string& context);
// A finite number ("nan", "inf" and "1e999" fail).
StatusOr<double> ParseDouble(const std::string& text, const std::string& context);
// 1/true or 0/false; anything else fails, naming `context`.
StatusOr<bool> ParseBool(const std::string& text, const std::string& context);

}  // namespace graphopt
