#pragma once
/// The agent's signals. SIGCHLD and the forwarded signals (SIGTERM, SIGINT, SIGHUP, SIGQUIT)
/// are blocked in every thread and read from one signalfd while workers run, so a worker's exit
/// is seen at once and a termination signal can be forwarded to the workers. While no workers
/// run (rendezvous), the forwarded signals are unblocked in the main thread and end the agent
/// at once with status 128+signal, without closing the rendezvous (as torchrun).

#include <csignal>
#include <thread>
#include <utility>

namespace ejob::agent {

/// Owns the signal mask and the signalfd; create one, in main, before any thread.
class AgentSignals {
 public:
  AgentSignals();
  ~AgentSignals();
  AgentSignals(const AgentSignals&) = delete;
  AgentSignals& operator=(const AgentSignals&) = delete;

  /// The signalfd (SIGCHLD and the forwarded signals).
  [[nodiscard]] int fd() const { return m_fd; }
  /// Phase without workers: a forwarded signal exits 128+signal at once.
  void exit_on_signal();
  /// Phase with workers: forwarded signals queue on fd().
  void queue_signals();

 private:
  int m_fd = -1;
};

/// Blocks all signals in the calling thread.
void block_signals_in_this_thread();

/// Starts one of the agent's helper threads, which blocks every signal before `body` runs: a
/// thread inherits its creator's mask, and the main thread lets the forwarded signals through
/// while it waits for a round (AgentSignals::exit_on_signal), so a helper started then would
/// take a later SIGTERM and end the agent before it stopped its workers.
template <typename Body>
std::thread start_helper_thread(Body body) {
  return std::thread([body = std::move(body)]() mutable {
    block_signals_in_this_thread();
    body();
  });
}

/// The signal's name as Python's signal.Signals(n).name, e.g. SIGKILL.
const char* signal_name(int sig);

}  // namespace ejob::agent
