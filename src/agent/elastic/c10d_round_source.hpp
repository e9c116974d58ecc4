#pragma once
/// Rounds from torch 1.13's c10d rendezvous: the TCPStore hosted by this agent when its
/// endpoint is this machine (or `is_host` says so), the state under
/// `torch.rendezvous.<run_id>`, the round stores beside it (protocols/torch-c10d.md §2).

#include <memory>

#include "src/agent/elastic/dynamic_round_source.hpp"
#include "src/agent/rendezvous/c10d_store.hpp"
#include "src/agent/rendezvous/connection_liveness.hpp"
#include "src/agent/rendezvous/round_announcer.hpp"
#include "src/agent/store/tcp_store_client.hpp"
#include "src/agent/store/tcp_store_server.hpp"

namespace ejob::agent {

/// DynamicRoundSource over a TCPStore.
class C10dRoundSource : public DynamicRoundSource {
 public:
  /// Hosts the store if this agent should, connects (two connections: state and round
  /// stores) and creates the state key. Throws ejob::Error(Transport) when the store cannot be
  /// hosted (is_host=1) or reached within read_timeout.
  explicit C10dRoundSource(const LaunchConfig& config);
  ~C10dRoundSource() override;

 private:
  /// A hosting agent keeps the store up until the other agents have disconnected (at most the
  /// close timeout), so that their last exit-barrier and close calls do not fail.
  void after_shutdown() override;

  std::unique_ptr<ConnectionLiveness> m_liveness;  ///< the host's, with fast_reform
  std::unique_ptr<RoundAnnouncer> m_announcer;     ///< the host's
  std::unique_ptr<TcpStoreServer> m_server;        ///< stopped before the two above go
  std::unique_ptr<TcpStoreClient> m_round_client;
  std::unique_ptr<TcpKeyValueStore> m_round_store;
};

}  // namespace ejob::agent
