#include "src/agent/elastic/agent.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>

#include "src/agent/base/host_identity.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/preemption/cloud_time.hpp"
#include "src/agent/preemption/preempt_file.hpp"
#include "src/agent/workers/failure_report.hpp"
#include "src/agent/workers/warm_start.hpp"
#include "src/agent/workers/worker_env.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

Agent::Agent(LaunchConfig config, Environment env, RoundSource& source, AgentSignals& signals,
             NoticeWatcher* notices, RendezvousGate* gate)
    : m_config(std::move(config)),
      m_env(std::move(env)),
      m_source(source),
      m_signals(signals),
      m_warm(can_start_warm(m_config)),
      m_notices(notices != nullptr && notices->fd() >= 0 ? notices : nullptr),
      m_gate(gate) {}

/// Worker `i`'s launch: `id`'s environment, logs in `attempt`, argv not yet set.
WorkerLaunch Agent::launch_of(int i, const std::string& attempt, const WorkerIdentity& id) const {
  auto lr = static_cast<size_t>(i);
  std::string dir = attempt + "/" + std::to_string(i);
  WorkerLaunch w;
  w.env = worker_environment(m_env, m_config, id);
  if (!m_preempt_file.empty()) w.env["EJOB_PREEMPT_FILE"] = m_preempt_file;
  auto redirect = static_cast<int>(m_config.redirects[lr]) | static_cast<int>(m_config.tee[lr]);
  auto tee = static_cast<int>(m_config.tee[lr]);
  if (redirect & 1) w.stdout_file = dir + "/stdout.log";
  if (redirect & 2) w.stderr_file = dir + "/stderr.log";
  w.tee_stdout = (tee & 1) != 0;
  w.tee_stderr = (tee & 2) != 0;
  w.prefix = "[" + m_config.role + std::to_string(i) + "]:";
  return w;
}

std::string Agent::error_file(const std::string& attempt, int i) {
  return attempt + "/" + std::to_string(i) + "/error.json";
}

std::vector<WorkerLaunch> Agent::launches(const Round& round, const std::string& attempt) const {
  std::vector<WorkerLaunch> out;
  for (int i = 0; i < m_config.nproc_per_node; ++i) {
    auto lr = static_cast<size_t>(i);
    WorkerIdentity id{i,
                      round.ranks.global_ranks[lr],
                      round.ranks.role_ranks[lr],
                      round.group_rank,
                      round.group_world_size,
                      round.ranks.world_size,
                      round.ranks.role_world_size,
                      round.master_addr,
                      round.master_port,
                      m_restarts,
                      error_file(attempt, i),
                      round.use_agent_store};
    WorkerLaunch w = launch_of(i, attempt, id);
    w.argv = worker_argv(m_config, i);
    if (m_warm) w.release = warm_release_message(w.argv, w.env);
    out.push_back(std::move(w));
  }
  return out;
}

/// The warm workers of the next attempt: what they are before the round is known.
std::vector<WorkerLaunch> Agent::warm_launches(const std::string& attempt) const {
  std::vector<WorkerLaunch> out;
  for (int i = 0; i < m_config.nproc_per_node; ++i) {
    WorkerIdentity id;
    id.local_rank = i;
    id.restart_count = m_restarts;
    id.error_file = error_file(attempt, i);
    WorkerLaunch w = launch_of(i, attempt, id);
    w.argv = warm_argv(m_config, WorkerGroup::k_control_fd);
    w.env = warm_environment(std::move(w.env));
    out.push_back(std::move(w));
  }
  return out;
}

int Agent::run() {
  LogDir logs(m_config.log_dir, m_config.run_id);
  log_info("log directory: " + logs.path());
  if (m_notices) m_preempt_file = logs.path() + "/preempt.json";
  m_signals.exit_on_signal();
  std::optional<Round> last;
  while (true) {
    if (noticed()) return leave(last);  // came while the last workers were being stopped
    std::string attempt = logs.prepare_attempt(m_restarts, m_config.nproc_per_node);
    WorkerGroup group(m_signals.fd());
    if (m_warm) group.prestart(warm_launches(attempt));
    std::optional<Round> next = next_round();
    if (!next || noticed()) return leave(next ? next : last);
    last = next;
    const Round& round = *last;
    m_signals.queue_signals();
    group.start(launches(round, attempt));
    std::unique_ptr<RoundWatcher> watcher = m_source.watch(round);
    GroupResult result = group.wait(watcher ? watcher->fd() : -1, m_notices ? m_notices->fd() : -1);
    if (result.event == GroupEvent::Notice) return hand_over(group, round, watcher.get());
    if (watcher) watcher->stop();
    if (result.event == GroupEvent::Signal) return stop_for_signal(group, result.signal);
    if (result.event == GroupEvent::Succeeded) return succeed(round);
    group.stop(SIGTERM, k_stop_grace);
    if (group.pending_signal() != 0) return 128 + group.pending_signal();
    if (result.event == GroupEvent::Failed) {
      if (m_restarts >= m_config.max_restarts) return fail(round, result, attempt);
      ++m_restarts;
      log_info("worker group failed; restart " + std::to_string(m_restarts) + "/" +
               std::to_string(m_config.max_restarts));
    } else {
      log_info("membership change; restarting the worker group without spending a restart");
    }
    m_signals.exit_on_signal();
  }
}

/// A forwarded signal: the workers get it, and the agent exits 128+signal without closing the
/// rendezvous (as torchrun).
int Agent::stop_for_signal(WorkerGroup& group, int sig) {
  log_info("received " + std::string(signal_name(sig)) + "; stopping the workers");
  group.stop(sig, k_stop_grace);
  return 128 + sig;
}

/// Every worker exited 0: the exit barrier, then the run is closed for everybody.
int Agent::succeed(const Round& round) {
  m_signals.exit_on_signal();
  log_info("worker group succeeded; waiting for the other agents (exit barrier)");
  m_source.exit_barrier(round);
  m_source.shutdown();
  return 0;
}

/// The next round; nullopt when a notice came before the wait began. A notice during the wait
/// ends the agent (RendezvousGate).
std::optional<Round> Agent::next_round() {
  if (m_gate && !m_gate->enter()) return std::nullopt;
  Round round = m_source.next_round();
  if (m_gate) m_gate->leave();
  return round;
}

/// A notice came when no worker ran: out of the round, if in one, and exit.
int Agent::leave(const std::optional<Round>& round) {
  if (round) m_source.leave(*round);
  m_notices->acknowledge();
  log_info("preemption notice: no worker was running; exiting " + std::to_string(k_preempted_exit));
  return k_preempted_exit;
}

/// The notice came while the workers ran: they are told and get until the exit-by time to
/// checkpoint and exit (whatever runs then is killed), then the agent leaves the rendezvous
/// so that the others re-form at once, and exits k_preempted_exit.
int Agent::hand_over(WorkerGroup& group, const Round& round, RoundWatcher* watcher) {
  PreemptionNotice notice = *m_notices->notice();
  SysTime exit_by =
      exit_by_time(notice.deadline, m_config.preempt_grace, std::chrono::system_clock::now());
  tell_workers(group, notice, exit_by);
  if (watcher) watcher->stop();  // after telling: a watch may take a moment to end
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      exit_by - std::chrono::system_clock::now());
  if (group.await_exit(std::max(left, std::chrono::milliseconds(0))))
    log_info("the workers exited; leaving the rendezvous");
  else
    log_warning("workers still running at " + format_rfc3339(exit_by) + "; killing them");
  group.stop(SIGKILL, std::chrono::milliseconds(0));
  m_source.leave(round);
  m_notices->acknowledge();
  log_info("preemption handed over; exiting " + std::to_string(k_preempted_exit));
  return k_preempted_exit;
}

/// Writes EJOB_PREEMPT_FILE, then sends each worker --preempt-signal.
void Agent::tell_workers(WorkerGroup& group, const PreemptionNotice& notice, SysTime exit_by) {
  int sig = m_config.preempt_signal;
  std::string sig_name = sig != 0 ? signal_name(sig) : "";
  try {
    write_preempt_file(m_preempt_file, preempt_file_json(notice, exit_by, sig_name));
  } catch (const Error& e) {
    log_warning("the workers cannot be told through EJOB_PREEMPT_FILE: " + e.message());
  }
  if (sig != 0) group.signal_workers(sig);
  log_info("preemption notice: told the workers (" + m_preempt_file +
           (sig != 0 ? ", " + sig_name : "") + "); they have until " + format_rfc3339(exit_by) +
           " to checkpoint and exit");
}

int Agent::fail(const Round& round, const GroupResult& result, const std::string& attempt) {
  std::vector<WorkerFailure> failures;
  for (const auto& e : result.failed)
    failures.push_back({e, round.ranks.global_ranks[static_cast<size_t>(e.local_rank)],
                        error_file(attempt, e.local_rank)});
  std::string summary = format_failure_summary(m_config.entrypoint_name, fq_hostname(), failures);
  std::fputs(summary.c_str(), stderr);
  std::fflush(stderr);
  if (auto it = m_env.find("TORCHELASTIC_ERROR_FILE"); it != m_env.end() && !it->second.empty())
    write_agent_error_file(it->second, root_cause(failures));
  m_signals.exit_on_signal();
  m_source.exit_barrier(round);
  m_source.shutdown();
  return 1;
}

}  // namespace ejob::agent
