#include "src/agent/base/log.hpp"

#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

namespace ejob::agent {

void log(LogLevel level, const std::string& message) {
  static const bool debug = [] {
    const char* v = std::getenv("LOGLEVEL");
    return v != nullptr && std::strcmp(v, "DEBUG") == 0;
  }();
  if (level == LogLevel::Debug && !debug) return;
  static std::mutex mutex;
  timeval tv{};
  ::gettimeofday(&tv, nullptr);
  std::tm tm{};
  ::localtime_r(&tv.tv_sec, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
  const char* tag = level == LogLevel::Debug     ? "D"
                    : level == LogLevel::Info    ? "I"
                    : level == LogLevel::Warning ? "W"
                                                 : "E";
  char ms[16];
  std::snprintf(ms, sizeof ms, ".%03d", static_cast<int>(tv.tv_usec / 1000) % 1000);
  std::string line = std::string("[ejob-agent] ") + tag + " " + stamp + ms + " " + message + "\n";
  std::lock_guard<std::mutex> lock(mutex);
  // One write per line: lines from threads and processes sharing stderr stay whole.
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace ejob::agent
