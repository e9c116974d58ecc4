#include "ejob/agent/worker_group.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ejob/agent/log.hpp"
#include "ejob/util/error.hpp"

namespace ejob::agent {

struct WorkerGroup::Worker {
  int local_rank = 0;
  pid_t pid = 0;
  bool running = false;
  int exit_code = 0;
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

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

/// Runs in the child between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(int out_fd, int err_fd, char* const* argv, char* const* envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGCHLD}) ::signal(s, SIG_DFL);
  if (out_fd >= 0) ::dup2(out_fd, STDOUT_FILENO);
  if (err_fd >= 0) ::dup2(err_fd, STDERR_FILENO);
  ::execvpe(argv[0], argv, envp);
  const char msg[] = "ejob-agent: cannot execute the worker command\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

WorkerGroup::WorkerGroup(int signal_fd) : m_signal_fd(signal_fd) {}

WorkerGroup::~WorkerGroup() {
  if (!all_exited()) stop(SIGKILL, std::chrono::milliseconds(0));
  for (auto& t : m_tees) {
    if (t.fd >= 0) ::close(t.fd);
    if (t.file_fd >= 0) ::close(t.file_fd);
  }
}

void WorkerGroup::start(const std::vector<WorkerLaunch>& launches) {
  for (size_t i = 0; i < launches.size(); ++i) {
    const WorkerLaunch& w = launches[i];
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
    if (pid == 0) exec_child(fds[0], fds[1], argv.data(), envp.data());
    ::setpgid(pid, pid);  // also in the parent, so kill(-pid) works from the first moment
    for (int fd : close_after) ::close(fd);
    m_workers.push_back({static_cast<int>(i), pid, true, 0});
    log_debug("started worker " + std::to_string(i) + " (pid " + std::to_string(pid) + ")");
  }
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
      write_all(t.console_fd, line.data(), line.size());
      t.partial.clear();
    }
    ::close(t.fd);
    t.fd = -1;
    return false;
  }
  write_all(t.file_fd, buf, static_cast<size_t>(n));
  t.partial.append(buf, static_cast<size_t>(n));
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = t.partial.find('\n', start)) != std::string::npos; start = nl + 1)
    out += t.prefix + t.partial.substr(start, nl + 1 - start);
  t.partial.erase(0, start);
  write_all(t.console_fd, out.data(), out.size());
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

GroupResult WorkerGroup::wait(int watch_fd) {
  while (true) {
    reap();
    if (!m_failed.empty()) return {GroupEvent::Failed, 0, m_failed};
    if (all_exited()) {
      drain_tees(std::chrono::milliseconds(2000));
      return {GroupEvent::Succeeded, 0, {}};
    }
    std::vector<pollfd> fds = {{m_signal_fd, POLLIN, 0}};
    if (watch_fd >= 0) fds.push_back({watch_fd, POLLIN, 0});
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
    if (watch_fd >= 0 && fds[1].revents != 0) return {GroupEvent::Watch, 0, {}};
    signalfd_siginfo info{};
    while (::read(m_signal_fd, &info, sizeof info) == sizeof info)
      if (info.ssi_signo != SIGCHLD) m_pending_signal = static_cast<int>(info.ssi_signo);
    if (m_pending_signal != 0) {
      int sig = m_pending_signal;
      m_pending_signal = 0;
      return {GroupEvent::Signal, sig, {}};
    }
  }
}

void WorkerGroup::stop(int sig, std::chrono::milliseconds grace) {
  for (const auto& w : m_workers)
    if (w.running) ::kill(-w.pid, sig);
  auto deadline = Clock::now() + grace;
  while (true) {
    reap();
    if (all_exited() || Clock::now() >= deadline) break;
    pollfd fd{m_signal_fd, POLLIN, 0};
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    ::poll(&fd, 1, static_cast<int>(std::max<long>(left.count(), 1)));
    signalfd_siginfo info{};
    while (::read(m_signal_fd, &info, sizeof info) == sizeof info)
      if (info.ssi_signo != SIGCHLD) m_pending_signal = static_cast<int>(info.ssi_signo);
  }
  // SIGKILL whatever is left in the workers' process groups, including their own children.
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
