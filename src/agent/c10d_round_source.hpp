#pragma once
/// Rounds from torch 1.13's c10d rendezvous: the store hosted here when the endpoint is this
/// machine (or `is_host` says so), the dynamic rendezvous over it, then the round's
/// PrefixStore for the role-info exchange, MASTER_ADDR/MASTER_PORT and the exit barrier
/// (protocols/torch-c10d.md §2, §6).

#include <memory>
#include <string>

#include "ejob/agent/dynamic_rendezvous.hpp"
#include "ejob/agent/launch_config.hpp"
#include "ejob/agent/round_source.hpp"
#include "ejob/agent/tcp_store_client.hpp"
#include "ejob/agent/tcp_store_server.hpp"

namespace ejob::agent {

/// RoundSource over DynamicRendezvous and a TCPStore.
class C10dRoundSource : public RoundSource {
 public:
  /// Hosts the store if this agent should (§2), connects, and creates the state key. Throws
  /// ejob::Error(Transport) when the store cannot be hosted (is_host=1) or reached.
  explicit C10dRoundSource(const LaunchConfig& config);
  ~C10dRoundSource() override;
  Round next_round() override;
  std::unique_ptr<RoundWatcher> watch(const Round& round) override;
  void exit_barrier(const Round& round) override;
  /// Closes the run; a hosting agent then keeps the store up until the other agents have
  /// disconnected (at most the close timeout), so their last calls do not fail.
  void shutdown() override;

 private:
  std::string round_prefix(const std::string& round) const;

  LaunchConfig m_config;
  std::unique_ptr<TcpStoreServer> m_server;
  std::unique_ptr<TcpStoreClient> m_round_client;
  std::unique_ptr<DynamicRendezvous> m_rdzv;
  bool m_shut_down = false;
};

}  // namespace ejob::agent
