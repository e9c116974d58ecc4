#include "src/agent/elastic/agent.hpp"

#include <csignal>
#include <cstdio>

#include "src/agent/base/host_identity.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/workers/failure_report.hpp"
#include "src/agent/workers/warm_start.hpp"
#include "src/agent/workers/worker_env.hpp"

namespace ejob::agent {

Agent::Agent(LaunchConfig config, Environment env, RoundSource& source, AgentSignals& signals)
    : m_config(std::move(config)),
      m_env(std::move(env)),
      m_source(source),
      m_signals(signals),
      m_warm(can_start_warm(m_config)) {}

/// Worker `i`'s launch: `id`'s environment, logs in `attempt`, argv not yet set.
WorkerLaunch Agent::launch_of(int i, const std::string& attempt, const WorkerIdentity& id) const {
  auto lr = static_cast<size_t>(i);
  std::string dir = attempt + "/" + std::to_string(i);
  WorkerLaunch w;
  w.env = worker_environment(m_env, m_config, id);
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
  m_signals.exit_on_signal();
  while (true) {
    std::string attempt = logs.prepare_attempt(m_restarts, m_config.nproc_per_node);
    WorkerGroup group(m_signals.fd());
    if (m_warm) group.prestart(warm_launches(attempt));
    Round round = m_source.next_round();
    m_signals.queue_signals();
    group.start(launches(round, attempt));
    std::unique_ptr<RoundWatcher> watcher = m_source.watch(round);
    GroupResult result = group.wait(watcher ? watcher->fd() : -1);
    if (watcher) watcher->stop();
    if (result.event == GroupEvent::Signal) {
      log_info("received " + std::string(signal_name(result.signal)) + "; stopping the workers");
      group.stop(result.signal, k_stop_grace);
      return 128 + result.signal;
    }
    if (result.event == GroupEvent::Succeeded) {
      m_signals.exit_on_signal();
      log_info("worker group succeeded; waiting for the other agents (exit barrier)");
      m_source.exit_barrier(round);
      m_source.shutdown();
      return 0;
    }
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
