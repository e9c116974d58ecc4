#include "src/agent/rendezvous/connection_liveness.hpp"

#include <optional>

#include "src/agent/base/log.hpp"
#include "src/agent/rendezvous/c10d_store.hpp"

namespace ejob::agent {

ConnectionLiveness::ConnectionLiveness(const std::string& run_id,
                                       std::chrono::steady_clock::duration stale)
    : m_key("/torch.rendezvous." + run_id), m_stale(stale) {}

void ConnectionLiveness::written(std::uint64_t connection, const std::string& key,
                                 const std::string& value) {
  if (key != m_key) return;
  if (std::optional<DynamicState> state = stored_state(value)) state_written(connection, *state);
}

void ConnectionLiveness::state_written(std::uint64_t connection, const DynamicState& state) {
  Heartbeats beats(state.last_heartbeats.begin(), state.last_heartbeats.end());
  std::lock_guard lock(m_mutex);
  std::optional<NodeDesc> renewed;
  int count = 0;
  for (const auto& [node, beat] : beats) {
    auto before = m_beats.find(node);
    if (before != m_beats.end() && before->second >= beat) continue;
    renewed = node;
    ++count;
  }
  m_beats = std::move(beats);
  // A write renews at most its writer's heartbeat; more than one (the first state seen) says
  // nothing certain.
  if (count != 1) return;
  attribute(connection, *renewed);
  m_renewed[*renewed] = std::chrono::steady_clock::now();
}

void ConnectionLiveness::attribute(std::uint64_t connection, const NodeDesc& node) {
  auto it = m_node_of.find(connection);
  if (it != m_node_of.end()) {
    if (it->second == node) return;
    forget(connection);
  }
  m_node_of[connection] = node;
  m_open[node].insert(connection);
  m_gone.erase(node);
  log_debug("rendezvous store: connection " + std::to_string(connection) + " is node " +
            to_string(node) + "'s");
}

void ConnectionLiveness::closed(std::uint64_t connection) {
  std::lock_guard lock(m_mutex);
  forget(connection);
}

/// The connection no longer speaks for its node; the node is gone when it was its last.
void ConnectionLiveness::forget(std::uint64_t connection) {
  auto it = m_node_of.find(connection);
  if (it == m_node_of.end()) return;
  NodeDesc node = it->second;
  m_node_of.erase(it);
  auto open = m_open.find(node);
  open->second.erase(connection);
  if (!open->second.empty()) return;
  m_open.erase(open);
  m_renewed.erase(node);
  m_gone.insert(node);
}

std::vector<NodeDesc> ConnectionLiveness::gone() const {
  std::lock_guard lock(m_mutex);
  return {m_gone.begin(), m_gone.end()};
}

std::vector<NodeDesc> ConnectionLiveness::connected() const {
  std::lock_guard lock(m_mutex);
  auto fresh = std::chrono::steady_clock::now() - m_stale;
  std::vector<NodeDesc> out;
  for (const auto& [node, connections] : m_open)
    if (m_renewed.at(node) >= fresh) out.push_back(node);
  return out;
}

}  // namespace ejob::agent
