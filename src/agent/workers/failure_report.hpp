#pragma once
/// torchrun's failure summary ("Root Cause (first observed failure)") and the copy of the root
/// cause worker's error file into the agent's own TORCHELASTIC_ERROR_FILE.

#include <string>
#include <vector>

#include "src/agent/workers/worker_group.hpp"

namespace ejob::agent {

/// One failed worker with its ranks and error file.
struct WorkerFailure {
  WorkerExit exit;
  int global_rank = 0;
  std::string error_file;  ///< TORCHELASTIC_ERROR_FILE of the worker
};

/// The summary block torchrun prints when a worker group fails: the first failure (earliest
/// exit; its error file's message when the worker wrote one) as root cause, the others below.
std::string format_failure_summary(const std::string& script, const std::string& host,
                                   const std::vector<WorkerFailure>& failures);

/// Writes the root cause into `agent_error_file`: the worker's error.json when it wrote one
/// (with message.errorCode set to the exit code when missing), else a JSON message describing
/// the exit. Throws ejob::Error(Io) when the file cannot be written.
void write_agent_error_file(const std::string& agent_error_file, const WorkerFailure& root);

/// The failure with the earliest exit (the first in `failures` on ties).
const WorkerFailure& root_cause(const std::vector<WorkerFailure>& failures);

}  // namespace ejob::agent
