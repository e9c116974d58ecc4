#pragma once
/// Rounds from the etcd rendezvous, completed as torch's SimpleElasticAgent._rendezvous does:
/// the group-rank-0 agent publishes MASTER_ADDR (its FQDN, or --local_addr) and MASTER_PORT (the
/// workers' store it hosts: round_master.hpp) in the round's EtcdStore and everyone reads them
/// back; role infos are shared there in the dialect of the torch beside it (1.13: everybody
/// reads every role info; 2.x: group rank 0 assigns ranks, or nobody with
/// TORCH_ELASTIC_WORKER_IDENTICAL=1), and so is the exit barrier.

#include <memory>

#include "src/agent/rendezvous/dynamic_state.hpp"
#include "src/agent/rendezvous/etcd_rendezvous.hpp"
#include "src/agent/rendezvous/rank_assignment.hpp"
#include "src/agent/rendezvous/round_master.hpp"
#include "src/agent/rendezvous/round_source.hpp"
#include "src/agent/rendezvous/round_watcher.hpp"
#include "src/agent/store/key_value_store.hpp"

namespace ejob::agent {

/// RoundSource over EtcdRendezvous.
class EtcdRoundSource : public RoundSource {
 public:
  /// What the rounds need besides the rendezvous.
  struct Options {
    std::string role;
    int local_world_size = 1;
    std::string local_addr;  ///< published as MASTER_ADDR when this agent is group rank 0
    RdzvDialect dialect = RdzvDialect::Torch1_13;
    bool workers_identical = false;  ///< torch 2.x's TORCH_ELASTIC_WORKER_IDENTICAL=1
    bool host_workers_store =
        true;  ///< RoundMaster's (false: TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1)
  };
  EtcdRoundSource(std::unique_ptr<EtcdRendezvous> rendezvous, Options options);
  Round next_round() override;
  std::unique_ptr<RoundWatcher> watch(const Round& round) override;
  void exit_barrier(const Round& round) override;
  void shutdown() override;
  void leave(const Round& round) override;

 private:
  [[nodiscard]] WorkerRanks exchange_ranks(KeyValueStore& store, const RendezvousResult& r) const;

  std::unique_ptr<EtcdRendezvous> m_rdzv;
  Options m_options;
  RoundMaster m_master;
};

}  // namespace ejob::agent
