#pragma once
/// Waiting for a submitted job to end (`ejob submit --wait`), with exit statuses a CI pipeline
/// can tell apart: the job succeeded (0), failed (1: ErrorCode::JobFailed), failed after its
/// workers were preempted or evicted — a spot node reclaimed, node pressure — so that a retry
/// may well succeed (10: ErrorCode::Preempted), or did not end in time (9: Timeout; the job is
/// left running). A job deleted meanwhile is NotFound (8).

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "src/kubeapi/client.hpp"

namespace ejob::job {

/// A --timeout value: a number of seconds ("300") or a Go duration ("90m", "1h30m"); 0 means
/// no limit (nullopt). Throws ejob::Error(Usage) naming `flag` otherwise.
std::optional<std::chrono::milliseconds> parse_wait_timeout(const std::string& value,
                                                            const std::string& flag);

/// How often --wait says what it still waits for: every 30 s, so that a job nothing acts on
/// is named within a minute. EJOB_WAIT_REPORT_INTERVAL (seconds) changes it (tests use 1).
std::chrono::milliseconds report_interval();

/// Watches `job` until it has succeeded (returns), failed or was deleted (throws as the file
/// comment says), or `timeout` passed (throws Timeout), or more than `max_preemptions` of its
/// worker pods were evicted or preempted (throws Preempted; the job goes on). Each change of the
/// job's status
/// ("Running", "Restarting", …) is passed to `note`.
void wait_for_job(kubeapi::Client& client, const kubeapi::Json& job,
                  std::optional<std::chrono::milliseconds> timeout,
                  std::optional<int> max_preemptions,
                  const std::function<void(const std::string&)>& note);

}  // namespace ejob::job
