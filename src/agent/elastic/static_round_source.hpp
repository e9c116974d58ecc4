#pragma once
/// Rounds without etcd: --rdzv_backend=static (this node is --node_rank of --nnodes, master
/// from --master_addr/--master_port, every node runs the same --nproc_per_node). Workers host
/// their own TCPStore (TORCHELASTIC_USE_AGENT_STORE=False), so no agent store is needed.

#include "src/agent/launch/launch_config.hpp"
#include "src/agent/rendezvous/round_source.hpp"

namespace ejob::agent {

/// RoundSource with fixed ranks.
class StaticRoundSource : public RoundSource {
 public:
  explicit StaticRoundSource(const LaunchConfig& config);
  Round next_round() override;
  std::unique_ptr<RoundWatcher> watch(const Round&) override { return nullptr; }
  void exit_barrier(const Round&) override {}
  void shutdown() override {}

 private:
  LaunchConfig m_config;
  int m_round = 0;
};

}  // namespace ejob::agent
