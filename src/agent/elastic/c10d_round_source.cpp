#include "src/agent/elastic/c10d_round_source.hpp"

#include "src/agent/base/log.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// Hosts the store as torch decides (§2): as told by is_host, else when the endpoint is this
/// machine; an inferred host that cannot bind (another agent here did) becomes a client.
std::unique_ptr<TcpStoreServer> host_store(const LaunchConfig& c, StoreObserver* observer) {
  bool inferred = !c.dynamic.is_host.has_value();
  if (!c.dynamic.is_host.value_or(endpoint_is_local(c.endpoint.host))) return nullptr;
  auto server = inferred ? TcpStoreServer::unless_taken(c.endpoint.port, observer)
                         : std::make_unique<TcpStoreServer>(c.endpoint.port, observer);
  if (server)
    log_info("hosting the rendezvous TCPStore on port " + std::to_string(server->port()));
  else
    log_info("port " + std::to_string(c.endpoint.port) +
             " is taken (another agent here hosts the store); using it as a client");
  return server;
}

}  // namespace

C10dRoundSource::C10dRoundSource(const LaunchConfig& config)
    : DynamicRoundSource(config),
      m_liveness(config.dynamic.fast_reform ? std::make_unique<ConnectionLiveness>(
                                                  config.run_id, DynamicLimits{}.stale_after())
                                            : nullptr),
      m_announcer(std::make_unique<RoundAnnouncer>(config.run_id, m_liveness.get())),
      m_server(host_store(config, m_announcer.get())) {
  if (!m_server) {  // only the host sees the agents' connections and writes
    m_announcer.reset();
    m_liveness.reset();
  }
  const Endpoint& e = config.endpoint;
  auto read_timeout = std::chrono::seconds(config.dynamic.read_timeout_s);
  auto dialect =
      config.torch == RdzvDialect::Torch2 ? tcp_store::Dialect::Torch2 : tcp_store::Dialect::Torch1;
  auto state_client = std::make_unique<TcpStoreClient>(e.host, e.port, read_timeout, dialect);
  // A second connection watches the host's news, or the state a torch 1.13 agent hosts.
  // WATCH_KEY is 1.13's: torch 2.x's server has none, ours answers it on a 1.13 connection.
  bool announced = !m_server && state_client->check({announcer_key(config.run_id)});
  std::unique_ptr<TcpStoreClient> side_client;
  if (!m_server && (announced || dialect == tcp_store::Dialect::Torch1))
    side_client =
        std::make_unique<TcpStoreClient>(e.host, e.port, read_timeout, tcp_store::Dialect::Torch1);
  m_round_client = std::make_unique<TcpStoreClient>(e.host, e.port, k_round_store_timeout, dialect);
  m_round_store = std::make_unique<TcpKeyValueStore>(*m_round_client);
  start(std::make_unique<C10dStateBackend>(std::move(state_client), config.run_id,
                                           std::move(side_client), m_announcer.get(), announced),
        *m_round_store, m_liveness.get());
}

C10dRoundSource::~C10dRoundSource() {
  m_rdzv.reset();  // its heartbeat thread talks to the server: stop it first
}

void C10dRoundSource::after_shutdown() {
  if (!m_server) return;
  m_rdzv.reset();  // our own connections go first
  m_round_store.reset();
  m_round_client.reset();
  if (!m_server->wait_until_idle(std::chrono::seconds(m_config.dynamic.close_timeout_s)))
    log_warning("agents are still connected to the rendezvous store; closing it anyway");
}

}  // namespace ejob::agent
