#pragma once
/// What `ejob logs` asks of a backend, and where the lines go: whole lines of each worker,
/// never mixed with another's, and notes (a worker restarted, evicted, the job's end).

#include <set>
#include <string>
#include <vector>

#include "ejob/kubeapi/client.hpp"

namespace ejob::job {

struct LogRequest {
  kubeapi::LogOptions options;  ///< follow, tail, since, timestamps, previous (cluster)
  std::set<int> workers;        ///< replica indexes; empty: all
  std::string container;        ///< cluster: the container to read ("" = the default)
};

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
