#pragma once
/// The local worker processes of one round: started each in its own process group (and with
/// PR_SET_PDEATHSIG so an agent killed with SIGKILL takes them along), watched through the
/// agent's signalfd so an exit is seen the moment it happens, stopped with a signal, a grace
/// period and SIGKILL to the whole process group. Redirected streams go to files; teed streams
/// go through a pipe to the file and to the console with torchrun's `[<role><local_rank>]:`
/// prefix.

#include <sys/types.h>

#include <chrono>
#include <ctime>
#include <string>
#include <vector>

#include "src/agent/launch/launch_options.hpp"

namespace ejob::agent {

/// How to start one worker.
struct WorkerLaunch {
  std::vector<std::string> argv;
  Environment env;
  std::string stdout_file;  ///< empty: the agent's stdout
  std::string stderr_file;  ///< empty: the agent's stderr
  bool tee_stdout = false;  ///< also copy stdout to the console, prefixed
  bool tee_stderr = false;
  std::string prefix;  ///< e.g. `[default0]:`
  /// For a worker prestarted warm: what its pipe is sent instead of starting a process.
  std::string release;
};

/// How a worker ended: exit status, or minus the signal that killed it.
struct WorkerExit {
  int local_rank = 0;
  pid_t pid = 0;
  int exit_code = 0;
  std::time_t when = 0;
};

/// Why wait() returned.
enum class GroupEvent {
  Succeeded,  ///< every worker exited 0
  Failed,     ///< a worker exited non-zero (the others are still running)
  Watch,      ///< the watch fd became readable (membership change)
  Signal,     ///< the agent received a forwarded signal
  Notice,     ///< the notice fd became readable (the cloud announced a preemption)
};

/// The result of wait().
struct GroupResult {
  GroupEvent event = GroupEvent::Succeeded;
  int signal = 0;                  ///< for Signal
  std::vector<WorkerExit> failed;  ///< failed workers, in the order they were seen
};

/// The running workers. Not copyable; stop() before destruction.
class WorkerGroup {
 public:
  /// `signal_fd` is the AgentSignals signalfd.
  explicit WorkerGroup(int signal_fd);
  ~WorkerGroup();
  WorkerGroup(const WorkerGroup&) = delete;
  WorkerGroup& operator=(const WorkerGroup&) = delete;

  /// The fd on which a prestarted worker reads its release.
  static constexpr int k_control_fd = 3;
  /// Starts warm workers, one per local rank, each with a pipe on k_control_fd that start()
  /// writes its release into (warm_start.hpp). Throws as start().
  void prestart(const std::vector<WorkerLaunch>& warm);
  /// Starts the workers: releases each prestarted one; starts a process for the others, and
  /// for one that died before its release. Throws ejob::Error(Io) when a log file cannot be
  /// opened or a process cannot be created.
  void start(const std::vector<WorkerLaunch>& workers);
  /// Blocks until the group succeeds, a worker fails, `watch_fd` or `notice_fd` (-1: none) is
  /// readable or a forwarded signal arrives.
  GroupResult wait(int watch_fd, int notice_fd = -1);
  /// Sends `sig` to every live worker's process group, waits up to `grace`, then SIGKILLs
  /// the groups and reaps everything. Failures seen meanwhile are added to failed().
  void stop(int sig, std::chrono::milliseconds grace);
  /// Sends `sig` to each live worker process itself, not its process group: a training
  /// script's DataLoader workers and other children must not die of a signal meant for it.
  void signal_workers(int sig);
  /// Waits until every worker has exited or `limit` passed, copying teed output meanwhile;
  /// true when all exited. A forwarded signal arriving meanwhile is kept in pending_signal().
  bool await_exit(std::chrono::milliseconds limit);
  /// Pids of the live workers (for tests and logs).
  [[nodiscard]] std::vector<pid_t> pids() const;
  /// A forwarded signal that arrived during stop() (0: none).
  [[nodiscard]] int pending_signal() const { return m_pending_signal; }
  /// All failures seen so far.
  [[nodiscard]] const std::vector<WorkerExit>& failed() const { return m_failed; }

 private:
  struct Worker;
  struct Tee;
  pid_t spawn(const WorkerLaunch& w, int control_fd);
  bool release(int local_rank, const std::string& message);
  void reap();
  bool read_tee(Tee& tee);
  void drain_tees(std::chrono::milliseconds limit);
  void read_signals();
  void kill_remaining();
  [[nodiscard]] bool all_exited() const;

  int m_signal_fd;
  std::vector<Worker> m_workers;
  std::vector<Tee> m_tees;
  std::vector<WorkerExit> m_failed;
  int m_pending_signal = 0;
};

}  // namespace ejob::agent
