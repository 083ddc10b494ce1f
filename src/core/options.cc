#include "core/options.h"

#include <algorithm>
#include <cmath>

namespace graphopt {

bool OptionRange::Contains(double v) const {
  if (lo_open ? !(v > lo) : !(v >= lo)) return false;
  if (hi_open ? !(v < hi) : !(v <= hi)) return false;
  return true;
}

std::string OptionRange::ToString() const {
  const bool open_lo = lo_open || std::isinf(lo), open_hi = hi_open || std::isinf(hi);
  return std::string(open_lo ? "(" : "[") + (std::isinf(lo) ? "-inf" : FormatDouble(lo)) + ", " +
         (std::isinf(hi) ? "inf" : FormatDouble(hi)) + (open_hi ? ")" : "]");
}

Status OutOfRangeError(const std::string& where, const std::string& value, const std::string& range) {
  return InvalidArgument(where + ": " + value + " is out of range " + range);
}

std::string IntRangeText(int64_t lo, int64_t hi) { return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]"; }

std::string UintRangeText(uint64_t lo, uint64_t hi) {
  return "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

std::string IntDomain(int64_t lo, int64_t hi, int64_t type_lo, int64_t type_hi) {
  if (lo == type_lo && hi == type_hi) return "integer";
  if (hi == type_hi) return "integer >= " + std::to_string(lo);
  if (lo == type_lo) return "integer <= " + std::to_string(hi);
  return "integer in " + IntRangeText(lo, hi);
}

std::string NumberDomain(const OptionRange& range) {
  const bool no_lo = std::isinf(range.lo), no_hi = std::isinf(range.hi);
  if (no_lo && no_hi) return "number";
  if (no_hi) return std::string("number ") + (range.lo_open ? "> " : ">= ") + FormatDouble(range.lo);
  if (no_lo) return std::string("number ") + (range.hi_open ? "< " : "<= ") + FormatDouble(range.hi);
  return "number in " + range.ToString();
}

std::pair<int64_t, int64_t> IntegerBounds(const OptionRange& range, int64_t type_lo, int64_t type_hi) {
  // Doubles at or beyond +-2^63 do not convert; the type's bound is the tighter one there.
  constexpr double kTwo63 = 9223372036854775808.0;
  int64_t lo = type_lo, hi = type_hi;
  if (range.lo > -kTwo63) {
    double l = std::ceil(range.lo);
    if (range.lo_open && l == range.lo) l += 1;
    if (l >= kTwo63) return {type_hi, type_lo};  // empty
    lo = std::max(lo, static_cast<int64_t>(l));
  }
  if (range.hi < kTwo63) {
    double h = std::floor(range.hi);
    if (range.hi_open && h == range.hi) h -= 1;
    if (h < -kTwo63) return {type_hi, type_lo};
    hi = std::min(hi, static_cast<int64_t>(h));
  }
  return {lo, hi};
}

std::pair<uint64_t, uint64_t> UnsignedBounds(const OptionRange& range) {
  constexpr double kTwo64 = 18446744073709551616.0;
  uint64_t lo = 0, hi = UINT64_MAX;
  if (range.lo > 0) {
    double l = std::ceil(range.lo);
    if (range.lo_open && l == range.lo) l += 1;
    if (l >= kTwo64) return {1, 0};
    lo = static_cast<uint64_t>(l);
  } else if (range.lo == 0 && range.lo_open) {
    lo = 1;
  }
  if (range.hi < kTwo64) {
    double h = std::floor(range.hi);
    if (range.hi_open && h == range.hi) h -= 1;
    if (h < 0) return {1, 0};
    hi = static_cast<uint64_t>(h);
  }
  return {lo, hi};
}

StatusOr<int64_t> ParseIntInRange(const std::string& text, const std::string& where, int64_t lo, int64_t hi) {
  GO_ASSIGN_OR_RETURN(const int64_t v, ParseInt(text, where));
  if (v < lo || v > hi) return OutOfRangeError(where, text, IntRangeText(lo, hi));
  return v;
}

StatusOr<uint64_t> ParseUintInRange(const std::string& text, const std::string& where, uint64_t lo, uint64_t hi) {
  GO_ASSIGN_OR_RETURN(const uint64_t v, ParseUint(text, where));
  if (v < lo || v > hi) return OutOfRangeError(where, text, UintRangeText(lo, hi));
  return v;
}

StatusOr<double> ParseNumberInRange(const std::string& text, const std::string& where, const OptionRange& range) {
  GO_ASSIGN_OR_RETURN(const double v, ParseDouble(text, where));
  if (!range.Contains(v)) return OutOfRangeError(where, text, range.ToString());
  return v;
}

StatusOr<std::string> ParseWord(const std::string& text, const std::string& where,
                                const std::vector<std::string>& words) {
  std::string list;
  for (const std::string& w : words) {
    if (w == text) return text;
    list += (list.empty() ? "" : ", ") + w;
  }
  return InvalidArgument(where + ": \"" + text + "\" is not one of " + list);
}

}  // namespace graphopt
