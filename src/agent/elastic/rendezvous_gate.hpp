#pragma once
/// What a preemption notice does while the agent waits for a round: the agent's thread is
/// inside the rendezvous (with the forwarded signals let through, AgentSignals), no worker
/// runs, and nothing is left to save, so the agent ends at once with 143, as on a SIGTERM.
/// Once the round is complete the notice goes to the workers' loop instead (its eventfd),
/// which tells the workers and leaves the rendezvous (Agent::hand_over).

#include <pthread.h>

#include <mutex>

namespace ejob::agent {

/// Shared by the agent's thread and the notice watch's.
class RendezvousGate {
 public:
  /// Made in the agent's thread, the one a notice ends.
  RendezvousGate() : m_agent_thread(::pthread_self()) {}
  /// The agent's thread is about to wait for a round. False when a notice came already:
  /// leave instead.
  bool enter();
  /// The round is complete (called before the forwarded signals are queued again).
  void leave();
  /// The watch's callback: while the agent waits for a round, logs and sends its thread
  /// SIGTERM (exit 143); otherwise only remembers the notice.
  void on_notice();

 private:
  std::mutex m_mutex;
  pthread_t m_agent_thread;
  bool m_waiting = false;
  bool m_noticed = false;
};

}  // namespace ejob::agent
