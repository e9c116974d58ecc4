#pragma once
/// NodeLiveness from the store host's own connections: a connection belongs to the node
/// whose heartbeat its write of the rendezvous state renewed (every join, wait-list entry and
/// keep-alive renews the writer's own heartbeat, and only it), and a node is gone once every
/// connection it wrote from has closed. A connection can outlive its node (a machine that lost
/// power sends no FIN): a node is connected only while it also renews its heartbeat.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "src/agent/rendezvous/dynamic_rendezvous.hpp"
#include "src/agent/store/tcp_store_server.hpp"

namespace ejob::agent {

/// Watches one rendezvous state key of a TcpStoreServer.
class ConnectionLiveness : public NodeLiveness, public StoreObserver {
 public:
  /// `run_id`: the rendezvous whose state (`torch.rendezvous.<run_id>`) tells who writes;
  /// `stale`: how long a node may go without renewing its heartbeat and still count as
  /// connected (torch's keep_alive_interval * keep_alive_max_attempt).
  ConnectionLiveness(const std::string& run_id, std::chrono::steady_clock::duration stale);

  void written(std::uint64_t connection, const std::string& key, const std::string& value) override;
  /// What written() does with a write of the state, once decoded (the store host's other
  /// observer decodes it already).
  void state_written(std::uint64_t connection, const DynamicState& state);
  void closed(std::uint64_t connection) override;
  [[nodiscard]] std::vector<NodeDesc> gone() const override;
  [[nodiscard]] std::vector<NodeDesc> connected() const override;

 private:
  using Heartbeats = std::map<NodeDesc, UtcTime>;
  void attribute(std::uint64_t connection, const NodeDesc& node);
  void forget(std::uint64_t connection);

  std::string m_key;  ///< as on the wire
  mutable std::mutex m_mutex;
  Heartbeats m_beats;                                  ///< of the last state written
  std::map<std::uint64_t, NodeDesc> m_node_of;         ///< open connections that wrote
  std::map<NodeDesc, std::set<std::uint64_t>> m_open;  ///< a node's open connections
  std::set<NodeDesc> m_gone;
  std::chrono::steady_clock::duration m_stale;
  std::map<NodeDesc, std::chrono::steady_clock::time_point> m_renewed;  ///< last renewal seen
};

}  // namespace ejob::agent
