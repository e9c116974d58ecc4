#pragma once
/// How `ejob list` shows an ElasticJob: its status word from the conditions, replica counts
/// and kubectl-style ages. Pure functions over the object, so they are easy to test.

#include <chrono>
#include <string>

#include "ejob/kubeapi/client.hpp"

namespace ejob::cli {

/// The label every object ejob renders carries (`app.kubernetes.io/managed-by: ejob`).
inline constexpr const char* k_managed_by_ejob = "app.kubernetes.io/managed-by=ejob";

/// The job's state: Succeeded, Failed, Restarting, Running or Created from the newest true
/// condition, in that order of precedence; Pending without conditions.
std::string job_status(const kubeapi::Json& job);

/// kubectl's age format: 42s, 5m3s (under 10 minutes), 17m, 3h12m (under 10 hours), 5h, 2d4h, 12d.
std::string format_age(std::chrono::seconds age);

/// The age of an object from metadata.creationTimestamp at `now`; "<unknown>" without one.
std::string object_age(const kubeapi::Json& obj, std::chrono::system_clock::time_point now);

}  // namespace ejob::cli
