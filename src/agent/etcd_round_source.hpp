#pragma once
/// Rounds from the etcd rendezvous, completed as torch's SimpleElasticAgent._rendezvous does:
/// role infos shared through the round's EtcdStore, then the group-rank-0 agent publishes
/// MASTER_ADDR (its FQDN, or --local_addr) and MASTER_PORT (a free port) and everyone reads them
/// back.

#include <memory>

#include "ejob/agent/etcd_rendezvous.hpp"
#include "ejob/agent/round_source.hpp"
#include "ejob/agent/round_watcher.hpp"

namespace ejob::agent {

/// RoundSource over EtcdRendezvous.
class EtcdRoundSource : public RoundSource {
 public:
  /// LOCAL_ADDR is what this agent publishes as MASTER_ADDR when it is group rank 0.
  EtcdRoundSource(std::unique_ptr<EtcdRendezvous> rendezvous, std::string role,
                  int local_world_size, std::string local_addr);
  Round next_round() override;
  std::unique_ptr<RoundWatcher> watch(const Round& round) override;
  void exit_barrier(const Round& round) override;
  void shutdown() override;

 private:
  std::unique_ptr<EtcdRendezvous> m_rdzv;
  std::string m_role;
  int m_local_world_size;
  std::string m_local_addr;
};

}  // namespace ejob::agent
