#pragma once
/// The notice as the workers read it: a small JSON file at the path every worker finds in
/// EJOB_PREEMPT_FILE, absent until a notice comes, then written whole at once (a temporary
/// file renamed over it), so a worker that sees it reads all of it:
///
///   {"cloud": "azure", "event": "Preempt", "event_id": "…",
///    "deadline": "2026-11-28T10:00:30Z", "deadline_epoch": 1795860030,
///    "exit_by": "2026-11-28T10:00:25Z", "exit_by_epoch": 1795860025,
///    "signal": "SIGTERM"}
///
/// `deadline` is when the VM goes; `exit_by` when the agent stops the workers that are still
/// running (the deadline less --preempt-grace); `signal` the one the workers were sent ("" for
/// none). docs/spot.md is the contract for training scripts.

#include <string>

#include "src/agent/preemption/preemption_notice.hpp"

namespace ejob::agent {

/// When the workers must have exited: `grace` before the deadline; all the time left when
/// that has passed already; `grace` from `now` when the deadline has passed too (a late
/// notice, or clocks that differ).
SysTime exit_by_time(SysTime deadline, std::chrono::milliseconds grace, SysTime now);

/// The file's text (one line, ending in a newline).
std::string preempt_file_json(const PreemptionNotice& notice, SysTime exit_by,
                              const std::string& signal);

/// Writes `text` to `path` atomically (`path.tmp`, then rename). Throws ejob::Error(Io).
void write_preempt_file(const std::string& path, const std::string& text);

}  // namespace ejob::agent
