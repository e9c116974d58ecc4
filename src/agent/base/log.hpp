#pragma once
/// The agent's log lines on stderr: `[ejob-agent] I 10:07:33.123 message`. Lines from several
/// threads never interleave.

#include <string>

namespace ejob::agent {

/// Severity of a log line.
enum class LogLevel { Debug, Info, Warning, Error };

/// Writes one line at `level` (Debug lines only when LOGLEVEL=DEBUG).
void log(LogLevel level, const std::string& message);

inline void log_info(const std::string& message) { log(LogLevel::Info, message); }
inline void log_warning(const std::string& message) { log(LogLevel::Warning, message); }
inline void log_debug(const std::string& message) { log(LogLevel::Debug, message); }

}  // namespace ejob::agent
