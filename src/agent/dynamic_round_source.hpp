#pragma once
/// Rounds from torch 1.13's dynamic rendezvous (c10d or etcd-v2): DynamicRendezvous over the
/// backend's state, then the round's PrefixStore (`torch.rendezvous.<run_id>.<round>`) for
/// the role-info exchange, MASTER_ADDR/MASTER_PORT and the exit barrier
/// (protocols/torch-c10d.md §6). The backends differ only in where state and store live.

#include <memory>
#include <string>

#include "ejob/agent/dynamic_rendezvous.hpp"
#include "ejob/agent/key_value_store.hpp"
#include "ejob/agent/launch_config.hpp"
#include "ejob/agent/round_source.hpp"

namespace ejob::agent {

/// The RoundSource of both dynamic backends.
class DynamicRoundSource : public RoundSource {
 public:
  Round next_round() override;
  /// Polls num_nodes_waiting() every second while the workers run.
  std::unique_ptr<RoundWatcher> watch(const Round& round) override;
  void exit_barrier(const Round& round) override;
  void shutdown() override;

 protected:
  explicit DynamicRoundSource(const LaunchConfig& config) : m_config(config) {}
  /// Creates the rendezvous; `store` (the agents' shared store) must outlive it.
  void start(std::unique_ptr<StateBackend> backend, KeyValueStore& store);
  /// Runs after the run was closed at shutdown.
  virtual void after_shutdown() {}

  LaunchConfig m_config;
  std::unique_ptr<DynamicRendezvous> m_rdzv;

 private:
  std::string round_prefix(const std::string& round) const;

  KeyValueStore* m_store = nullptr;
  bool m_shut_down = false;
};

}  // namespace ejob::agent
