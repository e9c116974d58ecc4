#pragma once
/// Requests to a running job's supervisor: a JSON file per request in DIR/requests/ (written
/// whole), then SIGUSR1. The supervisor reads them in name order and deletes them.

#include <filesystem>
#include <vector>

#include "src/local/state.hpp"

namespace ejob::local {

struct Request {
  /// Evict: SIGTERM, SIGKILL after grace_s. Notice: the cloud's preemption notice on the
  /// node's metadata service, the VM reclaimed (SIGKILL) grace_s later.
  enum class Kind { Scale, Evict, Notice } kind = Kind::Scale;
  int nodes = 0;     ///< Scale: the wanted number of nodes
  int index = 0;     ///< Evict, Notice: the node
  int grace_s = 30;  ///< Evict, Notice: seconds
};

/// Writes `request` and signals the supervisor `state.supervisor_pid`. Throws ejob::Error
/// when the job's supervisor is not running.
void send_request(const std::filesystem::path& dir, const JobState& state, const Request& request);

/// The pending requests, removed from the folder; malformed files are dropped.
std::vector<Request> take_requests(const std::filesystem::path& dir);

}  // namespace ejob::local
