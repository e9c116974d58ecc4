#pragma once
/// Requests to a running job's supervisor: a JSON file per request in DIR/requests/ (written
/// whole), then SIGUSR1. The supervisor reads them in name order and deletes them.

#include <filesystem>
#include <vector>

#include "src/local/state.hpp"

namespace ejob::local {

struct Request {
  enum class Kind { Scale, Evict } kind = Kind::Scale;
  int nodes = 0;     ///< Scale: the wanted number of nodes
  int index = 0;     ///< Evict: the node
  int grace_s = 30;  ///< Evict: seconds between SIGTERM and SIGKILL
};

/// Writes `request` and signals the supervisor `state.supervisor_pid`. Throws ejob::Error
/// when the job's supervisor is not running.
void send_request(const std::filesystem::path& dir, const JobState& state, const Request& request);

/// The pending requests, removed from the folder; malformed files are dropped.
std::vector<Request> take_requests(const std::filesystem::path& dir);

}  // namespace ejob::local
