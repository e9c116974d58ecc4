#include "src/agent/elastic/etcd_round_source.hpp"

#include "src/agent/base/log.hpp"
#include "src/agent/etcd/etcd_store.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
EtcdRoundSource::EtcdRoundSource(std::unique_ptr<EtcdRendezvous> rendezvous, Options options)
    : m_rdzv(std::move(rendezvous)),
      m_options(std::move(options)),
      m_master(m_options.host_workers_store) {}

WorkerRanks EtcdRoundSource::exchange_ranks(KeyValueStore& store, const RendezvousResult& r) const {
  RoleInfo mine{m_options.role, r.rank, m_options.local_world_size};
  if (m_options.dialect == RdzvDialect::Torch2) {
    if (m_options.workers_identical)
      return identical_ranks(r.rank, r.world_size, m_options.local_world_size);
    return exchange_ranks_torch2(store, mine, r.world_size, r.version);
  }
  std::vector<RoleInfo> infos;
  for (const auto& s :
       synchronize(store, to_json(mine), r.rank, r.world_size, "torchelastic/role_info"))
    infos.push_back(parse_role_info(s));
  return assign_ranks(infos, r.rank);
}

Round EtcdRoundSource::next_round() {
  m_master.end_round();
  RendezvousResult r = m_rdzv->next_rendezvous();
  EtcdStore store(m_rdzv->client(), m_rdzv->setup_store(r.version), k_round_store_timeout);
  // torch's rank 0 publishes the master after the role-info exchange; publishing it first is
  // the same data (peers read it with a blocking get afterwards) and spares N agents from
  // waiting on every `.FIN` write for it.
  if (r.rank == 0) m_master.publish(store, m_options.local_addr);
  Round round;
  round.version = r.version;
  round.group_rank = r.rank;
  round.group_world_size = r.world_size;
  round.ranks = exchange_ranks(store, r);
  m_master.read(store, round);
  log_info("round " + r.version + ": group_rank=" + std::to_string(r.rank) + " group_world_size=" +
           std::to_string(r.world_size) + " world_size=" + std::to_string(round.ranks.world_size) +
           " master=" + round.master_addr + ":" + std::to_string(round.master_port));
  return round;
}

std::unique_ptr<RoundWatcher> EtcdRoundSource::watch(const Round& round) {
  return std::make_unique<EtcdRoundWatcher>(m_rdzv->client_options(),
                                            m_rdzv->path("/rdzv/active_version"), round.version);
}

void EtcdRoundSource::exit_barrier(const Round& round) {
  try {
    EtcdStore store(m_rdzv->client(), m_rdzv->path("/rdzv/v_" + round.version + "/kv"),
                    k_round_store_timeout);
    if (m_options.dialect == RdzvDialect::Torch2)
      barrier(store, round.group_world_size, "torchelastic/agent/terminal_state");
    else
      synchronize(store, std::to_string(round.group_rank), round.group_rank, round.group_world_size,
                  "torchelastic/agent/terminal_state");
  } catch (const Error& e) {
    log_warning("exit barrier failed (ignored, as torchrun does): " + e.message());
  }
}

void EtcdRoundSource::leave(const Round& round) {
  try {
    m_rdzv->leave(round.version);
  } catch (const Error& e) {
    log_warning(
        "leaving the rendezvous failed (the others see this node go when its "
        "keep-alive expires): " +
        e.message());
  }
}

void EtcdRoundSource::shutdown() {
  try {
    m_rdzv->stop_keep_alive();
    m_rdzv->set_closed();
  } catch (const Error& e) {
    log_warning("closing the rendezvous failed: " + e.message());
  }
}

}  // namespace ejob::agent
