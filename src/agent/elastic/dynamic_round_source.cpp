#include "src/agent/elastic/dynamic_round_source.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/host_identity.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/rendezvous/rank_assignment.hpp"
#include "src/agent/rendezvous/round_master.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// A running round is checked for waiting nodes whenever the state changes, and at least
/// once a second (torchrun: every monitor interval, 5 s). The slice bounds how long stop()
/// waits.
constexpr std::chrono::milliseconds k_watch_slice{100};

/// Signals an eventfd when nodes wait to join the running round (torchrun notices the same at
/// its next monitor tick), or when a participant left it: a preempted node leaving, or one
/// dropped as dead. torchrun's agents learn of a lost participant only when their workers
/// fail in a collective; ejob's restart them as for a membership change, without spending a
/// restart.
class DynamicRoundWatcher : public RoundWatcher {
 public:
  DynamicRoundWatcher(DynamicRendezvous& rdzv, std::int64_t round, int world_size)
      : m_rdzv(rdzv),
        m_round(round),
        m_world_size(world_size),
        m_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    m_thread = start_helper_thread([this] { run(); });
  }
  ~DynamicRoundWatcher() override {
    stop();
    ::close(m_fd);
  }
  [[nodiscard]] int fd() const override { return m_fd; }
  /// Does not wait out the poll interval: the agent stops the watch right after its workers
  /// ended.
  void stop() override {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable()) m_thread.join();
  }

 private:
  void run() {
    while (true) {
      {
        std::unique_lock lock(m_mutex);
        if (m_wake.wait_for(lock, k_watch_slice, [this] { return m_stop; })) return;
      }
      // Wakes when the state changes (or after a slice); round_changed() reads it only then,
      // or when its 1 s cache expired.
      m_rdzv.wait_for_change(k_watch_slice);
      try {
        if (m_rdzv.round_changed(m_round, m_world_size)) {
          std::uint64_t one = 1;
          [[maybe_unused]] auto n = ::write(m_fd, &one, sizeof one);
          return;
        }
      } catch (const Error& e) {
        log_warning("checking the rendezvous for waiting nodes failed: " + e.message());
      }
    }
  }

  DynamicRendezvous& m_rdzv;
  std::int64_t m_round;
  int m_world_size;
  int m_fd;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace

void DynamicRoundSource::start(std::unique_ptr<StateBackend> backend, KeyValueStore& store,
                               const NodeLiveness* liveness) {
  m_store = &store;
  DynamicLimits limits;
  limits.min_nodes = m_config.min_nodes;
  limits.max_nodes = m_config.max_nodes;
  limits.last_call = std::chrono::seconds(m_config.dynamic.last_call_timeout_s);
  DynamicTimeouts timeouts;
  timeouts.join = std::chrono::seconds(m_config.dynamic.join_timeout_s);
  timeouts.close = std::chrono::seconds(m_config.dynamic.close_timeout_s);
  // As torch's _NodeDesc: socket.getfqdn(), the agent's pid, the handler's local id (0).
  // 2.x: _NodeDesc.addr is --local-addr when given.
  bool torch2 = m_config.torch == RdzvDialect::Torch2;
  NodeDesc me{torch2 ? m_config.local_addr.value_or(fq_hostname()) : fq_hostname(), ::getpid(), 0};
  m_rdzv = std::make_unique<DynamicRendezvous>(std::move(backend), me, limits, timeouts,
                                               m_config.torch.value_or(RdzvDialect::Torch1_13),
                                               liveness);
}

std::string DynamicRoundSource::round_prefix(const std::string& round) const {
  return "torch.rendezvous." + m_config.run_id + "." + round;
}

Round DynamicRoundSource::next_round() {
  m_master.end_round();
  DynamicWorld w = m_rdzv->next_rendezvous();
  Round round;
  round.version = std::to_string(w.round);
  round.group_rank = w.rank;
  round.group_world_size = w.world_size;
  PrefixStore store(*m_store, round_prefix(round.version));
  if (m_config.torch == RdzvDialect::Torch2) {
    publish_master_torch2(round, store);  // torch 2.x: in next_rendezvous, before the ranks
    exchange_ranks_torch2(round, store);
  } else {
    // torch 1.13's group rank 0 publishes the master after its rank exchange, which ends with
    // a barrier of all agents (FIN keys) that the others pass only after it. Ours publishes it
    // before, so the others read it at once after theirs; they must still exchange first (a
    // torchrun rank 0 publishes only after every agent's FIN).
    if (round.group_rank == 0) m_master.publish(store, m_config.local_addr.value_or(fq_hostname()));
    exchange_ranks(round, store);
    m_master.read(store, round);
  }
  log_info("round " + round.version + ": group_rank=" + std::to_string(w.rank) +
           " group_world_size=" + std::to_string(w.world_size) +
           " world_size=" + std::to_string(round.ranks.world_size) +
           " master=" + round.master_addr + ":" + std::to_string(round.master_port));
  return round;
}

void DynamicRoundSource::exchange_ranks(Round& round, KeyValueStore& store) const {
  std::vector<std::string> raw = synchronize(
      store, to_json(RoleInfo{m_config.role, round.group_rank, m_config.nproc_per_node}),
      round.group_rank, round.group_world_size, "torchelastic/role_info");
  std::vector<RoleInfo> infos;
  for (const auto& s : raw) infos.push_back(parse_role_info(s));
  round.ranks = assign_ranks(infos, round.group_rank);
}

/// RendezvousStoreInfo.build, once per agent when the store is shared: group rank 0 hosts the
/// workers' store on a free port and publishes it; later rounds reuse what the first found.
void DynamicRoundSource::publish_master_torch2(Round& round, KeyValueStore& store) {
  round.use_agent_store = m_config.share_agent_store;
  if (!m_bootstrap || !m_config.share_agent_store) {
    int port = 0;
    if (round.group_rank == 0) {
      if (m_config.share_agent_store) {
        m_worker_store = std::make_unique<TcpStoreServer>(0);
        port = m_worker_store->port();
      } else {
        port = free_local_port();
      }
      store.set("MASTER_ADDR", m_config.local_addr.value_or(fq_hostname()));
      store.set("MASTER_PORT", std::to_string(port));
    }
    std::vector<std::string> master = store.get({"MASTER_ADDR", "MASTER_PORT"});
    m_bootstrap.emplace(master[0], parse_master_port(master[1], round.version));
  }
  // torch's own shared workers' store keeps the last attempt's keys, and the new attempt's
  // gloo rendezvous can read a dead worker's address (two torchrun 2.6 agents hang in 2 of 3
  // restarts here). Every worker of the last round is stopped once a round completes, and
  // group rank 0 publishes the ranks only after this, so no worker of this round wrote yet.
  if (m_worker_store && round.version != m_worker_store_round) m_worker_store->clear();
  if (m_worker_store) m_worker_store_round = round.version;
  round.master_addr = m_bootstrap->first;
  round.master_port = m_bootstrap->second;
}

/// torch 2.x's _assign_worker_ranks (rank_assignment.hpp), or its fast path.
void DynamicRoundSource::exchange_ranks_torch2(Round& round, KeyValueStore& store) const {
  if (m_config.workers_identical) {
    round.ranks =
        identical_ranks(round.group_rank, round.group_world_size, m_config.nproc_per_node);
    return;
  }
  round.ranks = agent::exchange_ranks_torch2(
      store, RoleInfo{m_config.role, round.group_rank, m_config.nproc_per_node},
      round.group_world_size, round.version);
}

std::unique_ptr<RoundWatcher> DynamicRoundSource::watch(const Round& round) {
  return std::make_unique<DynamicRoundWatcher>(*m_rdzv, std::stoll(round.version),
                                               round.group_world_size);
}

void DynamicRoundSource::exit_barrier(const Round& round) {
  try {
    PrefixStore store(*m_store, round_prefix(round.version));
    if (m_config.torch == RdzvDialect::Torch2) {
      barrier(store, round.group_world_size, "torchelastic/agent/terminal_state");
      return;
    }
    synchronize(store, std::to_string(round.group_rank), round.group_rank, round.group_world_size,
                "torchelastic/agent/terminal_state");
  } catch (const Error& e) {
    log_warning("exit barrier failed (ignored, as torchrun does): " + e.message());
  }
}

void DynamicRoundSource::leave(const Round& round) {
  try {
    m_rdzv->leave();
    log_info("left round " + round.version + " of the rendezvous");
  } catch (const Error& e) {
    log_warning(
        "leaving the rendezvous failed (the others see this node go when its "
        "heartbeat is stale): " +
        e.message());
  }
}

void DynamicRoundSource::shutdown() {
  if (m_shut_down || !m_rdzv) return;
  m_shut_down = true;
  m_rdzv->shutdown();
  after_shutdown();
}

}  // namespace ejob::agent
