#pragma once
/// Rounds from torch 1.13's `etcd-v2` rendezvous (protocols/torch-c10d.md §9): the same
/// dynamic state machine as c10d, its state under etcd key `/torch/elastic/rendezvous/<run_id>`
/// (base64 of the pickle, TTL 2 h, compare-and-swap on modifiedIndex), the round stores in the
/// EtcdStore at `/torch/elastic/store` that every run shares. Nobody hosts anything.

#include <memory>

#include "src/agent/elastic/dynamic_round_source.hpp"
#include "src/agent/etcd/etcd_client.hpp"
#include "src/agent/etcd/etcd_store.hpp"

namespace ejob::agent {

/// The state under `/torch/elastic/rendezvous/<run_id>`; the token is its modifiedIndex.
class EtcdV2StateBackend : public StateBackend {
 public:
  EtcdV2StateBackend(const EtcdClientOptions& options, const std::string& run_id);
  std::optional<Stored> get_state() override;
  std::optional<Stored> set_state(const std::string& pickle,
                                  const std::optional<std::string>& token, bool& won) override;
  [[nodiscard]] std::string where() const override;

 private:
  EtcdClient m_client;
  std::string m_key;
};

/// DynamicRoundSource over etcd's v2 API.
class EtcdV2RoundSource : public DynamicRoundSource {
 public:
  explicit EtcdV2RoundSource(const LaunchConfig& config);
  ~EtcdV2RoundSource() override;

 private:
  std::unique_ptr<EtcdClient> m_store_client;
  std::unique_ptr<EtcdStore> m_store;
};

/// The etcd client options of an etcd-v2 run (endpoint, protocol, ssl_cert, ssl_cert_key,
/// ca_cert, read_timeout).
/// How the agent reaches its etcd (both etcd backends): the endpoint and --rdzv_conf's
/// protocol and certificates.
EtcdClientOptions etcd_client_options(const LaunchConfig& config);

EtcdClientOptions etcd_v2_options(const LaunchConfig& config);

}  // namespace ejob::agent
