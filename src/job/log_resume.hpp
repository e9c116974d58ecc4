#pragma once
/// Where a worker's log was read up to, so that a stream cut in the middle (a kubelet or an
/// API server restarting, a proxy timing out) is read again from there without a line lost or
/// printed twice.
///
/// Streams are asked with timestamps=true: each line comes as "RFC3339Nano-TIME TEXT". A cut
/// stream is asked again with sinceTime set to the last line's time. The kubelet's sinceTime is
/// inclusive, and the API server passes it on to the kubelet in whole seconds, so the new stream
/// starts again with lines already printed: those before the last line's time, and the first
/// `count` lines at exactly that time (a second, even a nanosecond, may hold many lines), are
/// dropped. Times in a container's log never go back, so this finds the overlap exactly.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ejob::job {

/// An RFC 3339 time to the nanosecond: seconds since the epoch and nanoseconds.
using LogStamp = std::pair<int64_t, int32_t>;

/// The time of an RFC3339Nano text such as 2024-05-01T12:00:00.123456789Z; nullopt when it
/// is not one.
std::optional<LogStamp> parse_log_stamp(const std::string& text);

enum class KeepTimestamps { No, Yes };

class LogResume {
 public:
  explicit LogResume(KeepTimestamps keep) : m_keep(keep) {}

  /// The lines of a stream (with their timestamps) to print: the overlap with what was read
  /// before dropped, the timestamp removed unless it is kept. A line without a timestamp is
  /// printed as it came.
  std::vector<std::string> take(std::vector<std::string> lines);

  /// A new stream starts: the next lines are compared with what was read.
  void resume() { m_skip = m_count; }
  /// A new container's log: nothing of it was read.
  void restart() { *this = LogResume(m_keep); }

  /// The sinceTime to ask a cut stream from; empty when no line was read.
  [[nodiscard]] const std::string& since_time() const { return m_last_text; }

 private:
  /// Whether a line at `stamp` was read already (and is dropped).
  bool seen(const LogStamp& stamp);

  KeepTimestamps m_keep;
  LogStamp m_last{0, 0};    ///< time of the last line read
  std::string m_last_text;  ///< the same as the stream wrote it
  int m_count = 0;          ///< lines read at exactly m_last
  int m_skip = 0;           ///< lines at m_last still to drop in this stream
};

}  // namespace ejob::job
