#include "src/agent/elastic/etcd_v2_round_source.hpp"

#include "src/agent/store/store_codec.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// torch writes the state with a TTL of two hours; every write renews it.
constexpr int k_state_ttl_s = 7200;

[[noreturn]] void etcd_failed(const std::string& what, const EtcdResult& r) {
  throw Error(ErrorCode::Transport,
              "etcd-v2 rendezvous: " + what + " failed: " + r.message + " (" + r.cause + ")");
}

}  // namespace

EtcdClientOptions etcd_client_options(const LaunchConfig& c) {
  EtcdClientOptions o;
  o.host = c.endpoint.host;
  o.port = c.endpoint.port;
  o.protocol = c.etcd.protocol;
  o.cacert = c.etcd.cacert;
  o.cert = c.etcd.cert;
  o.key = c.etcd.key;
  return o;
}

EtcdClientOptions etcd_v2_options(const LaunchConfig& c) {
  EtcdClientOptions o = etcd_client_options(c);
  o.read_timeout_ms = c.dynamic.read_timeout_s * 1000L;
  return o;
}

EtcdV2StateBackend::EtcdV2StateBackend(const EtcdClientOptions& options, const std::string& run_id)
    : m_client(options), m_key("/torch/elastic/rendezvous/" + run_id) {}

std::string EtcdV2StateBackend::where() const { return "etcd " + m_client.base_url() + m_key; }

std::optional<StateBackend::Stored> EtcdV2StateBackend::get_state() {
  EtcdResult r = m_client.get(m_key);
  if (r.is(etcd_error::key_not_found)) return std::nullopt;
  if (!r.ok()) etcd_failed("reading " + m_key, r);
  try {
    return Stored{b64decode(r.node.value), std::to_string(r.node.modified_index)};
  } catch (const Error& e) {
    throw Error(ErrorCode::Input, "rendezvous state is " + e.message() + " (" + where() + ")");
  }
}

/// Create with prevExist=false, or update with prevIndex=token; a lost race (exists,
/// compare failed) re-reads the state that won.
std::optional<StateBackend::Stored> EtcdV2StateBackend::set_state(
    const std::string& pickle, const std::optional<std::string>& token, bool& won) {
  EtcdWrite w;
  w.value = b64encode(pickle);
  w.ttl = k_state_ttl_s;
  if (token)
    w.prev_index = std::stoll(*token);
  else
    w.prev_exist = false;
  EtcdResult r = m_client.write(m_key, w);
  won = r.ok();
  if (r.ok()) return Stored{pickle, std::to_string(r.node.modified_index)};
  if (!r.is(etcd_error::node_exists) && !r.is(etcd_error::compare_failed))
    etcd_failed("writing " + m_key, r);
  return get_state();
}

EtcdV2RoundSource::EtcdV2RoundSource(const LaunchConfig& config) : DynamicRoundSource(config) {
  EtcdClientOptions o = etcd_v2_options(config);
  m_store_client = std::make_unique<EtcdClient>(o);
  m_store =
      std::make_unique<EtcdStore>(*m_store_client, "/torch/elastic/store", k_round_store_timeout);
  start(std::make_unique<EtcdV2StateBackend>(o, config.run_id), *m_store);
}

EtcdV2RoundSource::~EtcdV2RoundSource() { m_rdzv.reset(); }

}  // namespace ejob::agent
