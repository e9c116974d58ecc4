#include "src/agent/workers/worker_group.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "src/agent/base/log.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

struct WorkerGroup::Worker {
  int local_rank = 0;
  pid_t pid = 0;
  bool running = false;
  int exit_code = 0;
  int control_fd = -1;  ///< a prestarted worker's pipe, until its release
};

/// One teed stream: the read end of the worker's pipe, the log file and the console fd.
struct WorkerGroup::Tee {
  int fd = -1;
  int file_fd = -1;
  int console_fd = -1;
  std::string prefix;
  std::string partial;
};

namespace {

using Clock = std::chrono::steady_clock;

int open_log(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot open " + path + ": " + std::strerror(errno));
  return fd;
}

bool write_whole(int fd, std::string_view bytes) {
  const char* data = bytes.data();
  size_t size = bytes.size();
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// Runs in the child between fork and exec: only async-signal-safe calls. `control_fd` (-1:
/// none) is inherited as WorkerGroup::k_control_fd.
[[noreturn]] void exec_child(int out_fd, int err_fd, int control_fd, char* const* argv,
                             char* const* envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) ::signal(s, SIG_DFL);
  if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
  if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
  if (control_fd == WorkerGroup::k_control_fd)
    ::fcntl(control_fd, F_SETFD, 0);
  else if (control_fd >= 0)
    ::dup2(control_fd, WorkerGroup::k_control_fd);  // the copy is not close-on-exec
  ::execvpe(argv[0], argv, envp);
  const char msg[] = "ejob-agent: cannot execute the worker command\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

WorkerGroup::WorkerGroup(int signal_fd) : m_signal_fd(signal_fd) {}

WorkerGroup::~WorkerGroup() {
  for (auto& w : m_workers)
    if (w.control_fd >= 0) ::close(std::exchange(w.control_fd, -1));  // unreleased: ends quietly
  if (!all_exited()) stop(SIGKILL, std::chrono::milliseconds(0));
  for (auto& t : m_tees) {
    if (t.fd >= 0) ::close(t.fd);
    if (t.file_fd >= 0) ::close(t.file_fd);
  }
}

void WorkerGroup::prestart(const std::vector<WorkerLaunch>& warm) {
  for (size_t i = 0; i < warm.size(); ++i) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw Error(ErrorCode::Io, "pipe failed");
    pid_t pid = spawn(warm[i], p[0]);
    ::close(p[0]);
    m_workers.push_back({static_cast<int>(i), pid, true, 0, p[1]});
    log_debug("prestarted worker " + std::to_string(i) + " (pid " + std::to_string(pid) + ")");
  }
}

void WorkerGroup::start(const std::vector<WorkerLaunch>& launches) {
  for (size_t i = 0; i < launches.size(); ++i) {
    auto local_rank = static_cast<int>(i);
    if (release(local_rank, launches[i].release)) continue;
    pid_t pid = spawn(launches[i], -1);
    m_workers.push_back({local_rank, pid, true, 0, -1});
    log_debug("started worker " + std::to_string(i) + " (pid " + std::to_string(pid) + ")");
  }
}

/// Sends a prestarted worker its release; false when `local_rank` has none, or it died before
/// (it is then reaped and forgotten, so that a fresh process replaces it).
bool WorkerGroup::release(int local_rank, const std::string& message) {
  auto it = std::find_if(m_workers.begin(), m_workers.end(), [&](const Worker& w) {
    return w.local_rank == local_rank && w.control_fd >= 0;
  });
  if (it == m_workers.end()) return false;
  int fd = std::exchange(it->control_fd, -1);
  // A pipe holds 64 KiB; a larger environment would block here until the imports end.
  if (message.size() > 65536) ::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(message.size()));
  bool sent = it->running && !message.empty() && write_whole(fd, message);
  ::close(fd);
  if (sent) {
    log_debug("released warm worker " + std::to_string(local_rank));
    return true;
  }
  log_warning("warm worker " + std::to_string(local_rank) + " (pid " + std::to_string(it->pid) +
              ") ended before its round; starting it afresh");
  ::kill(-it->pid, SIGKILL);
  ::waitpid(it->pid, nullptr, 0);
  pid_t pid = it->pid;
  std::erase_if(m_failed, [pid](const WorkerExit& e) { return e.pid == pid; });
  m_workers.erase(it);
  return false;
}

/// Opens the worker's log files and tee pipes and starts its process.
pid_t WorkerGroup::spawn(const WorkerLaunch& w, int control_fd) {
  int fds[2] = {-1, -1};  // stdout, stderr as the child sees them
  std::vector<int> close_after;
  const std::string* files[2] = {&w.stdout_file, &w.stderr_file};
  bool tee[2] = {w.tee_stdout, w.tee_stderr};
  for (int s = 0; s < 2; ++s) {
    if (files[s]->empty()) continue;
    if (!tee[s]) {
      fds[s] = open_log(*files[s]);
      close_after.push_back(fds[s]);
      continue;
    }
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw Error(ErrorCode::Io, "pipe failed");
    Tee t;
    t.fd = p[0];
    t.file_fd = open_log(*files[s]);
    t.console_fd = s == 0 ? STDOUT_FILENO : STDERR_FILENO;
    t.prefix = w.prefix;
    m_tees.push_back(t);
    fds[s] = p[1];
    close_after.push_back(p[1]);
  }
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : w.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (const auto& a : w.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw Error(ErrorCode::Io, std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(fds[0], fds[1], control_fd, argv.data(), envp.data());
  ::setpgid(pid, pid);  // also in the parent, so kill(-pid) works from the first moment
  for (int fd : close_after) ::close(fd);
  return pid;
}

bool WorkerGroup::all_exited() const {
  for (const auto& w : m_workers)
    if (w.running) return false;
  return true;
}

std::vector<pid_t> WorkerGroup::pids() const {
  std::vector<pid_t> out;
  for (const auto& w : m_workers)
    if (w.running) out.push_back(w.pid);
  return out;
}

void WorkerGroup::reap() {
  while (true) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    for (auto& w : m_workers) {
      if (w.pid != pid || !w.running) continue;
      w.running = false;
      w.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
      if (w.exit_code != 0)
        m_failed.push_back({w.local_rank, pid, w.exit_code, std::time(nullptr)});
      log_info("worker " + std::to_string(w.local_rank) + " (pid " + std::to_string(pid) +
               ") exited with " + std::to_string(w.exit_code));
    }
  }
}

bool WorkerGroup::read_tee(Tee& t) {
  char buf[65536];
  ssize_t n = ::read(t.fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    if (!t.partial.empty()) {
      std::string line = t.prefix + t.partial + "\n";
      write_whole(t.console_fd, line);
      t.partial.clear();
    }
    ::close(t.fd);
    t.fd = -1;
    return false;
  }
  write_whole(t.file_fd, std::string_view(buf, static_cast<size_t>(n)));
  t.partial.append(buf, static_cast<size_t>(n));
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = t.partial.find('\n', start)) != std::string::npos; start = nl + 1)
    out += t.prefix + t.partial.substr(start, nl + 1 - start);
  t.partial.erase(0, start);
  write_whole(t.console_fd, out);
  return true;
}

void WorkerGroup::drain_tees(std::chrono::milliseconds limit) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    std::vector<pollfd> fds;
    std::vector<Tee*> owners;
    for (auto& t : m_tees)
      if (t.fd >= 0) {
        fds.push_back({t.fd, POLLIN, 0});
        owners.push_back(&t);
      }
    if (fds.empty()) return;
    int left = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count());
    if (::poll(fds.data(), fds.size(), std::max(left, 0)) <= 0) return;
    for (size_t i = 0; i < fds.size(); ++i)
      if (fds[i].revents != 0) read_tee(*owners[i]);
  }
}

GroupResult WorkerGroup::wait(int watch_fd, int notice_fd) {
  while (true) {
    reap();
    if (!m_failed.empty()) return {GroupEvent::Failed, 0, m_failed};
    if (all_exited()) {
      drain_tees(std::chrono::milliseconds(2000));
      return {GroupEvent::Succeeded, 0, {}};
    }
    // Unused slots poll fd -1, which poll() skips.
    std::vector<pollfd> fds = {
        {m_signal_fd, POLLIN, 0}, {watch_fd, POLLIN, 0}, {notice_fd, POLLIN, 0}};
    size_t first_tee = fds.size();
    std::vector<Tee*> owners;
    for (auto& t : m_tees)
      if (t.fd >= 0) {
        fds.push_back({t.fd, POLLIN, 0});
        owners.push_back(&t);
      }
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      throw Error(ErrorCode::Internal, std::string("poll failed: ") + std::strerror(errno));
    for (size_t i = first_tee; i < fds.size(); ++i)
      if (fds[i].revents != 0) read_tee(*owners[i - first_tee]);
    // A notice outranks a membership change: this node is leaving either way.
    if (notice_fd >= 0 && fds[2].revents != 0) return {GroupEvent::Notice, 0, {}};
    if (watch_fd >= 0 && fds[1].revents != 0) return {GroupEvent::Watch, 0, {}};
    read_signals();
    if (m_pending_signal != 0) {
      int sig = m_pending_signal;
      m_pending_signal = 0;
      return {GroupEvent::Signal, sig, {}};
    }
  }
}

/// Consumes the signalfd: SIGCHLD only wakes the caller to reap; another signal is kept.
void WorkerGroup::read_signals() {
  signalfd_siginfo info{};
  while (::read(m_signal_fd, &info, sizeof info) == sizeof info)
    if (info.ssi_signo != SIGCHLD) m_pending_signal = static_cast<int>(info.ssi_signo);
}

void WorkerGroup::signal_workers(int sig) {
  for (const auto& w : m_workers)
    if (w.running) ::kill(w.pid, sig);
}

bool WorkerGroup::await_exit(std::chrono::milliseconds limit) {
  auto deadline = Clock::now() + limit;
  while (true) {
    reap();
    if (all_exited() || Clock::now() >= deadline) return all_exited();
    std::vector<pollfd> fds = {{m_signal_fd, POLLIN, 0}};
    std::vector<Tee*> owners;
    for (auto& t : m_tees)
      if (t.fd >= 0) {
        fds.push_back({t.fd, POLLIN, 0});
        owners.push_back(&t);
      }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(left.count(), 1)));
    for (size_t i = 1; i < fds.size(); ++i)
      if (fds[i].revents != 0) read_tee(*owners[i - 1]);
    read_signals();
  }
}

void WorkerGroup::stop(int sig, std::chrono::milliseconds grace) {
  for (const auto& w : m_workers)
    if (w.running) ::kill(-w.pid, sig);
  await_exit(grace);
  kill_remaining();
}

/// SIGKILLs whatever is left in the workers' process groups, including their own children,
/// and reaps it.
void WorkerGroup::kill_remaining() {
  for (const auto& w : m_workers) ::kill(-w.pid, SIGKILL);
  while (!all_exited()) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) break;
    for (auto& x : m_workers)
      if (x.pid == pid) x.running = false;
  }
  reap();
  // Reap what the SIGKILL of the process groups left behind (orphans re-parented to the
  // subreaper agent) until the agent has no children left or 200 ms passed.
  auto until = Clock::now() + std::chrono::milliseconds(200);
  while (Clock::now() < until) {
    int status = 0;
    pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid < 0) break;
    if (pid == 0) ::usleep(5000);
  }
  drain_tees(std::chrono::milliseconds(500));
}

}  // namespace ejob::agent
