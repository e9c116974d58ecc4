#pragma once
/// MASTER_ADDR:MASTER_PORT of a round, published by group rank 0 in the round's store as torch
/// 1.13's agents (and 2.x's etcd backend) do, where the workers' rank 0 then hosts their
/// TCPStore. ejob's group rank 0 hosts that store itself before any worker starts, as torch
/// 2.x's c10d agents do, and says so with one more key: otherwise a worker that reaches
/// init_process_group before rank 0's listens is refused, and torch 1.13's client retries only
/// after a whole second (half of two workers started together lost that second). Workers are
/// told with TORCHELASTIC_USE_AGENT_STORE; an agent whose group rank 0 is a torchrun agent
/// leaves them hosting their own.

#include <memory>
#include <string>

#include "src/agent/rendezvous/round_source.hpp"
#include "src/agent/store/key_value_store.hpp"
#include "src/agent/store/tcp_store_server.hpp"

namespace ejob::agent {

/// MASTER_PORT's text as a port; throws ejob::Error(Input) naming the round when it is not one.
int parse_master_port(const std::string& text, const std::string& round);

/// One agent's part in publishing and reading its rounds' masters.
class RoundMaster {
 public:
  /// `host_workers_store`: false with TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1 (torch's switch).
  explicit RoundMaster(bool host_workers_store) : m_host(host_workers_store) {}
  /// Group rank 0: hosts the workers' store on a free port (or only picks a free port) and
  /// publishes MASTER_ADDR = `addr` and MASTER_PORT.
  void publish(KeyValueStore& store, const std::string& addr);
  /// Reads the round's master into `round` (waiting until group rank 0 published it) and
  /// whether it is an agent's store.
  void read(KeyValueStore& store, Round& round) const;
  /// Before the next round: the last round's workers are stopped, and their store goes.
  void end_round() { m_store.reset(); }

 private:
  bool m_host;
  std::unique_ptr<TcpStoreServer> m_store;  ///< while this agent is group rank 0
};

}  // namespace ejob::agent
