#pragma once
/// The supervisor of one local job: a detached process (its own session, no terminal) that
/// starts the job's etcd and its nodes, replaces a node that a signal ended (as the
/// ElasticJob controller's ExitCode policy recreates a preempted pod), carries out scale and
/// evict requests, decides the job's end and stops everything. It is the only writer of
/// state.json; commands reach it through request files and SIGUSR1 (requests.hpp), and
/// SIGTERM stops the job.

#include <filesystem>

namespace ejob::local {

/// Runs the job in `dir` (launch.json and state.json written by submit) until it ends or is
/// stopped; returns the supervisor's exit status (0 once the final state is written).
int run_supervisor(const std::filesystem::path& dir);

/// Starts `self` (the ejob executable) as `self local-supervisor DIR`, detached: a new
/// session, stdin from /dev/null, output to DIR/supervisor.log; it survives the caller, its
/// terminal and a logout. Returns the supervisor's pid.
pid_t start_supervisor(const std::filesystem::path& self, const std::filesystem::path& dir);

}  // namespace ejob::local
