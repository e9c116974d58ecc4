#pragma once
/// What `ejob logs` asks of a backend, and where the lines go: whole lines of each worker,
/// never mixed with another's, and notes (a worker restarted, evicted, the job's end).

#include <set>
#include <string>
#include <vector>

#include "src/kubeapi/client.hpp"
#include "src/kubeapi/exec_plugin.hpp"

namespace ejob::job {

struct LogRequest {
  kubeapi::LogOptions options;  ///< follow, tail, since, timestamps, previous (cluster)
  std::set<int> workers;        ///< replica indexes; empty: all
  std::string container;        ///< cluster: the container to read ("" = the default)
};

/// kubectl's check of --since-time: an RFC 3339 time such as 2024-05-01T12:00:00Z.
inline bool is_rfc3339_time(const std::string& text) {
  return kubeapi::parse_rfc3339(text).has_value();
}

/// Receives a job's logs; called from several threads, each call whole.
class LogSink {
 public:
  virtual ~LogSink() = default;
  /// Lines of worker `label` (replica `index`), in order.
  virtual void lines(const std::string& label, int index,
                     const std::vector<std::string>& lines) = 0;
  /// A note about the job or a worker (on stderr for a person).
  virtual void note(const std::string& message) = 0;
};

}  // namespace ejob::job
