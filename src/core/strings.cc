#include "core/strings.h"

#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cctype>
#include <cstdlib>

namespace graphopt {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(sep, start);
    out.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : sep) + items[i];
  return out;
}

std::vector<std::string> SplitList(const std::string& s, char sep) {
  std::vector<std::string> out;
  for (const std::string& item : Split(s, sep)) {
    if (!Trim(item).empty()) out.push_back(Trim(item));
  }
  return out;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string StrFormat(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  va_end(ap);
  std::string out(static_cast<size_t>(n > 0 ? n : 0), '\0');
  std::vsnprintf(out.data(), out.size() + 1, fmt, ap2);
  va_end(ap2);
  return out;
}

std::string FormatDouble(double v) {
  char buf[64];
  for (int precision = 6; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string HumanBytes(double bytes) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (std::fabs(bytes) >= 1000.0 && u < 5) {
    bytes /= 1000.0;
    ++u;
  }
  return u == 0 ? StrFormat("%.0f B", bytes) : StrFormat("%.2f %s", bytes, units[u]);
}

std::string HumanTime(double us) {
  if (std::fabs(us) < 1e3) return StrFormat("%.1f us", us);
  if (std::fabs(us) < 1e6) return StrFormat("%.3f ms", us / 1e3);
  return StrFormat("%.3f s", us / 1e6);
}

std::string HumanCount(double count) {
  const char* units[] = {"", "K", "M", "G", "T", "P", "E"};
  int u = 0;
  while (std::fabs(count) >= 1000.0 && u < 6) {
    count /= 1000.0;
    ++u;
  }
  return u == 0 ? StrFormat("%.0f", count) : StrFormat("%.3f %s", count, units[u]);
}

StatusOr<std::map<std::string, std::string>> ParseKeyValues(const std::string& text, const std::string& context) {
  std::map<std::string, std::string> out;
  if (Trim(text).empty()) return out;
  for (const std::string& part : Split(text, ',')) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument(context + ": expected key=value, got '" + part + "'");
    }
    const std::string key = Trim(part.substr(0, eq));
    if (out.count(key)) return InvalidArgument(context + ": '" + key + "' given twice");
    out[key] = Trim(part.substr(eq + 1));
  }
  return out;
}

StatusOr<int64_t> ParseInt(const std::string& text, const std::string& context) {
  if (text.empty()) return InvalidArgument(context + ": expected an integer, got nothing");
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') {
    return InvalidArgument(context + ": expected an integer, got '" + text + "'");
  }
  if (errno == ERANGE) {
    return InvalidArgument(context + ": " + text + " is out of range [-9223372036854775808, 9223372036854775807]");
  }
  return static_cast<int64_t>(v);
}

StatusOr<uint64_t> ParseUint(const std::string& text, const std::string& context) {
  const std::string digits = Trim(text);
  if (!digits.empty() && digits[0] == '-') {
    GO_RETURN_IF_ERROR(ParseInt(text, context).status());
    return InvalidArgument(context + ": " + text + " is out of range [0, 18446744073709551615]");
  }
  if (text.empty()) return InvalidArgument(context + ": expected an integer, got nothing");
  errno = 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') {
    return InvalidArgument(context + ": expected an integer, got '" + text + "'");
  }
  if (errno == ERANGE) return InvalidArgument(context + ": " + text + " is out of range [0, 18446744073709551615]");
  return static_cast<uint64_t>(v);
}

StatusOr<double> ParseDouble(const std::string& text, const std::string& context) {
  if (text.empty()) return InvalidArgument(context + ": expected a number, got nothing");
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  const bool hex = text.find_first_of("xX") != std::string::npos;  // strtod also reads "0x1p3"
  if (errno != 0 || end == text.c_str() || *end != '\0' || !std::isfinite(v) || hex) {
    return InvalidArgument(context + ": expected a number, got '" + text + "'");
  }
  return v;
}

StatusOr<bool> ParseBool(const std::string& text, const std::string& context) {
  if (text == "1" || text == "true") return true;
  if (text == "0" || text == "false") return false;
  return InvalidArgument(context + ": expected 0/1/true/false, got '" + text + "'");
}

}  // namespace graphopt
