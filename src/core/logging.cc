#include "core/logging.h"

#include <atomic>
#include <cstdio>

namespace graphopt {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
}

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }

void Log(LogLevel level, const std::string& message) {
  if (static_cast<int>(level) < g_level.load()) return;
  const char* prefix = level == LogLevel::kWarning ? "warning: " : level == LogLevel::kError ? "error: " : "";
  std::fprintf(stderr, "%s%s\n", prefix, message.c_str());
}

}  // namespace graphopt
