#pragma once
/// `--rdzv_conf k=v,...` and `--rdzv_endpoint host[:port]`, parsed as torch's
/// rendezvous/utils.py does, plus the typed settings the etcd backend reads from them.

#include <map>
#include <optional>
#include <string>

namespace ejob::agent {

/// Parses `k1=v1,k2=v2`: split on ',', then on the first '='; keys and values stripped.
/// Throws ejob::Error(Usage) for an empty key or an empty value.
std::map<std::string, std::string> parse_rdzv_conf(const std::string& text);

/// A host and port of a rendezvous endpoint.
struct Endpoint {
  std::string host;
  int port = 0;
};

/// Parses `host[:port]` (`[v6]:port` too); an empty endpoint is `localhost:default_port`.
/// Throws ejob::Error(Usage) for a bad port or host, with torch's wording.
Endpoint parse_endpoint(const std::string& text, int default_port);

/// What the etcd backend reads from --rdzv_conf, with torchrun's defaults.
struct EtcdSettings {
  int timeout_s = 900;           ///< overall rendezvous timeout (torchrun injects 900)
  int last_call_timeout_s = 30;  ///< extra wait after min nodes joined
  /// ejob's own `fast_reform` (default on; torch ignores the key): a round that follows a
  /// round some nodes left after a notice is frozen once every node that stayed has joined
  /// (torch: after last_call_timeout).
  bool fast_reform = true;
  std::string prefix = "/torchelastic/p2p";
  std::string protocol = "http";
  std::string cacert, cert, key;  ///< TLS files (https only)
};

/// Reads the etcd settings from a parsed rdzv_conf. Throws ejob::Error(Usage) for a
/// non-integer timeout or a protocol other than http/https.
EtcdSettings etcd_settings(const std::map<std::string, std::string>& conf);

/// What the etcd-v2 backend reads from --rdzv_conf: `protocol` (http|https), `ca_cert`,
/// `ssl_cert`, `ssl_cert_key` (torch's etcd_rendezvous_backend names). Throws
/// ejob::Error(Usage) for another protocol.
EtcdSettings etcd_v2_settings(const std::map<std::string, std::string>& conf);

/// What the dynamic rendezvous (c10d) reads from --rdzv_conf, with torch 1.13's defaults.
struct DynamicSettings {
  std::optional<bool> is_host;  ///< unset: inferred from the endpoint
  int read_timeout_s = 60;      ///< store connect and per-reply timeout
  int join_timeout_s = 600;
  int last_call_timeout_s = 30;
  int close_timeout_s = 30;
  /// ejob's own `fast_reform` (default on; torch ignores the key): the agent hosting the
  /// store drops a node whose store connections closed at once (torch: when its heartbeat is
  /// 15 s stale) and completes a re-formed round once every connected node joined (torch:
  /// after last_call_timeout).
  bool fast_reform = true;
};

/// Reads the dynamic settings. Throws ejob::Error(Usage) with torch's wording for an
/// `is_host` that is not a boolean and for a non-positive timeout.
DynamicSettings dynamic_settings(const std::map<std::string, std::string>& conf);

}  // namespace ejob::agent
