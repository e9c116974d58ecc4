#pragma once
/// The agent's control loop (torch's SimpleElasticAgent/LocalElasticAgent, §1.8): rendezvous,
/// start the workers, and react the moment something happens — success (exit barrier, close),
/// a failed worker (stop the others, re-rendezvous, restart while restarts remain; else report
/// and close), a membership change (restart without spending a restart) or a forwarded signal
/// (stop the workers with it, exit 128+signal, leave the rendezvous open). With --preload each
/// attempt's workers start warm before its round and are released once it is complete. A
/// preemption notice (docs/spot.md) is handed over: the workers find EJOB_PREEMPT_FILE and get
/// --preempt-signal, have until the deadline less --preempt-grace to exit, then the agent
/// leaves the rendezvous and exits 143.

#include <csignal>
#include <optional>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/elastic/rendezvous_gate.hpp"
#include "src/agent/launch/launch_config.hpp"
#include "src/agent/preemption/notice_watcher.hpp"
#include "src/agent/rendezvous/round_source.hpp"
#include "src/agent/workers/log_dir.hpp"
#include "src/agent/workers/worker_env.hpp"
#include "src/agent/workers/worker_group.hpp"

namespace ejob::agent {

/// One agent run.
class Agent {
 public:
  /// `notices` and `gate` (null: no watch) must outlive the agent; the gate is the one the
  /// watch calls back.
  Agent(LaunchConfig config, Environment env, RoundSource& source, AgentSignals& signals,
        NoticeWatcher* notices = nullptr, RendezvousGate* gate = nullptr);
  /// Runs to the end and returns the exit status (0, 1, 128+signal, or k_preempted_exit).
  /// Rendezvous errors propagate as ejob::Error.
  int run();

 private:
  [[nodiscard]] WorkerLaunch launch_of(int i, const std::string& attempt,
                                       const WorkerIdentity& id) const;
  [[nodiscard]] static std::string error_file(const std::string& attempt, int local_rank);
  std::vector<WorkerLaunch> launches(const Round& round, const std::string& attempt_dir) const;
  std::vector<WorkerLaunch> warm_launches(const std::string& attempt_dir) const;
  int fail(const Round& round, const GroupResult& result, const std::string& attempt_dir);
  int stop_for_signal(WorkerGroup& group, int sig);
  int succeed(const Round& round);
  std::optional<Round> next_round();
  [[nodiscard]] bool noticed() const { return m_notices != nullptr && m_notices->notice(); }
  int hand_over(WorkerGroup& group, const Round& round, RoundWatcher* watcher);
  void tell_workers(WorkerGroup& group, const PreemptionNotice& notice, SysTime exit_by);
  int leave(const std::optional<Round>& round);

  LaunchConfig m_config;
  Environment m_env;
  RoundSource& m_source;
  AgentSignals& m_signals;
  bool m_warm;  ///< --preload: each attempt's workers start before its round (warm_start.hpp)
  int m_restarts = 0;
  NoticeWatcher* m_notices;
  RendezvousGate* m_gate;
  std::string m_preempt_file;  ///< EJOB_PREEMPT_FILE; empty when notices are off
};

/// The exit status after a preemption's hand-over: 128+SIGTERM, what the kubelet's stop of the
/// pod would give, and what Kubeflow's restartPolicy ExitCode treats as retryable (130, 137,
/// 138, 143; newer operators any status >= 128), so the job's controller recreates the pod
/// on another node.
inline constexpr int k_preempted_exit = 128 + SIGTERM;

/// How long stopped workers get between the signal and SIGKILL (torchrun: 30 s).
inline constexpr std::chrono::seconds k_stop_grace{30};

}  // namespace ejob::agent
