// Minimal leveled logging to stderr. Library code logs warnings only; the CLI
// decides the verbosity. No global state beyond the level itself.
#pragma once

#include <string>

namespace graphopt {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kSilent = 4 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void Log(LogLevel level, const std::string& message);
inline void LogInfo(const std::string& m) { Log(LogLevel::kInfo, m); }
inline void LogWarning(const std::string& m) { Log(LogLevel::kWarning, m); }
inline void LogError(const std::string& m) { Log(LogLevel::kError, m); }

}  // namespace graphopt
