#include "src/agent/elastic/rendezvous_gate.hpp"

#include <csignal>

#include "src/agent/base/log.hpp"

namespace ejob::agent {

bool RendezvousGate::enter() {
  std::lock_guard lock(m_mutex);
  m_waiting = !m_noticed;
  return m_waiting;
}

void RendezvousGate::leave() {
  std::lock_guard lock(m_mutex);
  m_waiting = false;
}

void RendezvousGate::on_notice() {
  std::lock_guard lock(m_mutex);
  m_noticed = true;
  if (!m_waiting) return;
  log_info("preemption notice while waiting for a round: no worker to tell; exiting (143)");
  ::pthread_kill(m_agent_thread, SIGTERM);
}

}  // namespace ejob::agent
