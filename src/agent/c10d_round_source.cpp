#include "ejob/agent/c10d_round_source.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "ejob/agent/c10d_store.hpp"
#include "ejob/agent/host_identity.hpp"
#include "ejob/agent/log.hpp"
#include "ejob/agent/rank_assignment.hpp"
#include "ejob/util/error.hpp"

namespace ejob::agent {
namespace {

constexpr std::chrono::seconds k_round_store_timeout{300};
/// How often a running round is checked for waiting nodes (torchrun: every monitor interval,
/// 5 s; a state read is one small request, and a waiting node should not wait long).
constexpr std::chrono::milliseconds k_watch_interval{1000};

/// Hosts the store as torch decides (§2): as told by is_host, else when the endpoint is this
/// machine; an inferred host that cannot bind (another agent here did) becomes a client.
std::unique_ptr<TcpStoreServer> host_store(const LaunchConfig& c) {
  bool inferred = !c.dynamic.is_host.has_value();
  if (!c.dynamic.is_host.value_or(endpoint_is_local(c.endpoint.host))) return nullptr;
  try {
    auto server = std::make_unique<TcpStoreServer>(c.endpoint.port);
    log_info("hosting the rendezvous TCPStore on port " + std::to_string(server->port()));
    return server;
  } catch (const Error& e) {
    if (!inferred) throw;
    log_info(e.message() + "; using it as a client");
    return nullptr;
  }
}

/// Signals an eventfd when nodes wait to join the running round or the run was closed with
/// this round unfinished; torchrun notices the same at its next monitor tick.
class C10dRoundWatcher : public RoundWatcher {
 public:
  explicit C10dRoundWatcher(DynamicRendezvous& rdzv)
      : m_rdzv(rdzv), m_fd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    m_thread = std::thread([this] { run(); });
  }
  ~C10dRoundWatcher() override {
    stop();
    ::close(m_fd);
  }
  [[nodiscard]] int fd() const override { return m_fd; }
  void stop() override {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
  }

 private:
  void run() {
    while (!m_stop) {
      std::this_thread::sleep_for(k_watch_interval);
      try {
        if (m_rdzv.num_nodes_waiting() > 0) {
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
  int m_fd;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

}  // namespace

C10dRoundSource::C10dRoundSource(const LaunchConfig& config)
    : m_config(config), m_server(host_store(config)) {
  const Endpoint& e = config.endpoint;
  auto read_timeout = std::chrono::seconds(config.dynamic.read_timeout_s);
  auto state_client = std::make_unique<TcpStoreClient>(e.host, e.port, read_timeout);
  m_round_client = std::make_unique<TcpStoreClient>(e.host, e.port, k_round_store_timeout);
  auto backend = std::make_unique<C10dStateBackend>(std::move(state_client), config.run_id);
  DynamicLimits limits;
  limits.min_nodes = config.min_nodes;
  limits.max_nodes = config.max_nodes;
  limits.last_call = std::chrono::seconds(config.dynamic.last_call_timeout_s);
  DynamicTimeouts timeouts;
  timeouts.join = std::chrono::seconds(config.dynamic.join_timeout_s);
  timeouts.close = std::chrono::seconds(config.dynamic.close_timeout_s);
  NodeDesc me{fq_hostname(), ::getpid(), 0};
  m_rdzv = std::make_unique<DynamicRendezvous>(std::move(backend), me, limits, timeouts);
}

C10dRoundSource::~C10dRoundSource() = default;

std::string C10dRoundSource::round_prefix(const std::string& round) const {
  return "torch.rendezvous." + m_config.run_id + "." + round;
}

Round C10dRoundSource::next_round() {
  DynamicWorld w = m_rdzv->next_rendezvous();
  Round round;
  round.version = std::to_string(w.round);
  round.group_rank = w.rank;
  round.group_world_size = w.world_size;
  TcpPrefixStore store(*m_round_client, round_prefix(round.version));
  std::vector<std::string> raw =
      synchronize(store, to_json(RoleInfo{m_config.role, w.rank, m_config.nproc_per_node}), w.rank,
                  w.world_size, "torchelastic/role_info");
  std::vector<RoleInfo> infos;
  for (const auto& s : raw) infos.push_back(parse_role_info(s));
  round.ranks = assign_ranks(infos, w.rank);
  if (w.rank == 0) {
    store.set("MASTER_ADDR", m_config.local_addr.value_or(fq_hostname()));
    store.set("MASTER_PORT", std::to_string(free_local_port()));
  }
  std::vector<std::string> master = store.get({"MASTER_ADDR", "MASTER_PORT"});
  round.master_addr = master[0];
  try {
    round.master_port = std::stoi(master[1]);
  } catch (const std::exception&) {
    throw Error(ErrorCode::Input, "MASTER_PORT in the rendezvous store is not a number: " +
                                      master[1] + " (round " + round.version + ")");
  }
  log_info("round " + round.version + ": group_rank=" + std::to_string(w.rank) +
           " group_world_size=" + std::to_string(w.world_size) +
           " world_size=" + std::to_string(round.ranks.world_size) +
           " master=" + round.master_addr + ":" + std::to_string(round.master_port));
  return round;
}

std::unique_ptr<RoundWatcher> C10dRoundSource::watch(const Round&) {
  return std::make_unique<C10dRoundWatcher>(*m_rdzv);
}

void C10dRoundSource::exit_barrier(const Round& round) {
  try {
    TcpPrefixStore store(*m_round_client, round_prefix(round.version));
    synchronize(store, std::to_string(round.group_rank), round.group_rank, round.group_world_size,
                "torchelastic/agent/terminal_state");
  } catch (const Error& e) {
    log_warning("exit barrier failed (ignored, as torchrun does): " + e.message());
  }
}

void C10dRoundSource::shutdown() {
  if (m_shut_down) return;
  m_shut_down = true;
  m_rdzv->shutdown();
  if (!m_server) return;
  m_rdzv.reset();  // our own connections go first
  m_round_client.reset();
  if (!m_server->wait_until_idle(std::chrono::seconds(m_config.dynamic.close_timeout_s)))
    log_warning("agents still connected to the rendezvous store; closing it anyway");
}

}  // namespace ejob::agent
