#include "src/agent/base/agent_signals.hpp"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

constexpr int k_forwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

void exit_now(int sig) { ::_exit(128 + sig); }

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : k_forwarded) sigaddset(&set, s);
  return set;
}

}  // namespace

AgentSignals::AgentSignals() {
  sigset_t all = forwarded_set();
  sigaddset(&all, SIGCHLD);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  struct sigaction sa {};
  sa.sa_handler = &exit_now;
  sigemptyset(&sa.sa_mask);
  for (int s : k_forwarded) ::sigaction(s, &sa, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  m_fd = ::signalfd(-1, &all, SFD_CLOEXEC | SFD_NONBLOCK);
  if (m_fd < 0) throw Error(ErrorCode::Internal, "signalfd failed");
  // Orphaned descendants of workers are re-parented to the agent, which reaps them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
}

AgentSignals::~AgentSignals() {
  ::close(m_fd);
  // Give the process its ordinary signal behaviour back (tests create several in a row).
  struct sigaction sa {};
  sa.sa_handler = SIG_DFL;
  sigemptyset(&sa.sa_mask);
  for (int s : k_forwarded) ::sigaction(s, &sa, nullptr);
  sigset_t all = forwarded_set();
  sigaddset(&all, SIGCHLD);
  pthread_sigmask(SIG_UNBLOCK, &all, nullptr);
}

void AgentSignals::exit_on_signal() {
  sigset_t set = forwarded_set();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void AgentSignals::queue_signals() {
  sigset_t set = forwarded_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void block_signals_in_this_thread() {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
}

const char* signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  static thread_local std::string name;
  name = abbrev != nullptr ? std::string("SIG") + abbrev : "SIG" + std::to_string(sig);
  return name.c_str();
}

}  // namespace ejob::agent
