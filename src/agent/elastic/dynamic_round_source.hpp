#pragma once
/// Rounds from torch's dynamic rendezvous (c10d or etcd-v2): DynamicRendezvous over the
/// backend's state, then the round's PrefixStore (`torch.rendezvous.<run_id>.<round>`) for
/// the role-info exchange, MASTER_ADDR/MASTER_PORT and the exit barrier
/// (protocols/torch-c10d.md §6), as the torch of config.torch does them: 2.x publishes the
/// master once (group rank 0's agent then hosts the workers' store), exchanges
/// `role_info/<rank>` for `assigned_ranks/<rank>` and counts the exit barrier's members.
/// The backends differ only in where state and store live.

#include <memory>
#include <string>

#include "src/agent/launch/launch_config.hpp"
#include "src/agent/rendezvous/dynamic_rendezvous.hpp"
#include "src/agent/rendezvous/round_master.hpp"
#include "src/agent/rendezvous/round_source.hpp"
#include "src/agent/store/key_value_store.hpp"
#include "src/agent/store/tcp_store_server.hpp"

namespace ejob::agent {

/// The RoundSource of both dynamic backends.
class DynamicRoundSource : public RoundSource {
 public:
  Round next_round() override;
  /// Checks the round for waiting nodes and lost participants whenever the state changes, and
  /// at least every second, while the workers run.
  std::unique_ptr<RoundWatcher> watch(const Round& round) override;
  void exit_barrier(const Round& round) override;
  void shutdown() override;
  void leave(const Round& round) override;

 protected:
  explicit DynamicRoundSource(const LaunchConfig& config)
      : m_config(config), m_master(config.share_agent_store) {}
  /// Creates the rendezvous; `store` (the agents' shared store) and `liveness` (the store
  /// host's, may be null) must outlive it.
  void start(std::unique_ptr<StateBackend> backend, KeyValueStore& store,
             const NodeLiveness* liveness = nullptr);
  /// Runs after the run was closed at shutdown.
  virtual void after_shutdown() {}

  LaunchConfig m_config;
  std::unique_ptr<DynamicRendezvous> m_rdzv;

 private:
  std::string round_prefix(const std::string& round) const;
  void exchange_ranks(Round& round, KeyValueStore& store) const;
  void exchange_ranks_torch2(Round& round, KeyValueStore& store) const;
  void publish_master_torch2(Round& round, KeyValueStore& store);

  /// torch 2.x: the master found in the first round, kept for every later one.
  std::optional<std::pair<std::string, int>> m_bootstrap;
  std::unique_ptr<TcpStoreServer> m_worker_store;  ///< 2.x, group rank 0 of the first round
  std::string m_worker_store_round;                ///< the round whose workers its keys belong to

  RoundMaster m_master;  ///< torch 1.13: group rank 0 publishes the master every round
  KeyValueStore* m_store = nullptr;
  bool m_shut_down = false;
};

}  // namespace ejob::agent
