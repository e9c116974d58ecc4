#pragma once
/// The agent's control loop (torch's SimpleElasticAgent/LocalElasticAgent, §1.8): rendezvous,
/// start the workers, and react the moment something happens — success (exit barrier, close),
/// a failed worker (stop the others, re-rendezvous, restart while restarts remain; else report
/// and close), a membership change (restart without spending a restart) or a forwarded signal
/// (stop the workers with it, exit 128+signal, leave the rendezvous open). With --preload each
/// attempt's workers start warm before its round and are released once it is complete.

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/launch/launch_config.hpp"
#include "src/agent/rendezvous/round_source.hpp"
#include "src/agent/workers/log_dir.hpp"
#include "src/agent/workers/worker_env.hpp"
#include "src/agent/workers/worker_group.hpp"

namespace ejob::agent {

/// One agent run.
class Agent {
 public:
  Agent(LaunchConfig config, Environment env, RoundSource& source, AgentSignals& signals);
  /// Runs to the end and returns the exit status (0, 1, or 128+signal). Rendezvous errors
  /// propagate as ejob::Error.
  int run();

 private:
  [[nodiscard]] WorkerLaunch launch_of(int i, const std::string& attempt,
                                       const WorkerIdentity& id) const;
  [[nodiscard]] static std::string error_file(const std::string& attempt, int local_rank);
  std::vector<WorkerLaunch> launches(const Round& round, const std::string& attempt_dir) const;
  std::vector<WorkerLaunch> warm_launches(const std::string& attempt_dir) const;
  int fail(const Round& round, const GroupResult& result, const std::string& attempt_dir);

  LaunchConfig m_config;
  Environment m_env;
  RoundSource& m_source;
  AgentSignals& m_signals;
  bool m_warm;  ///< --preload: each attempt's workers start before its round (warm_start.hpp)
  int m_restarts = 0;
};

/// How long stopped workers get between the signal and SIGKILL (torchrun: 30 s).
inline constexpr std::chrono::seconds k_stop_grace{30};

}  // namespace ejob::agent
