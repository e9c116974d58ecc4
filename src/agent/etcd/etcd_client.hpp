#pragma once
/// A client for the etcd v2 HTTP API (`/v2/keys`), speaking it as python-etcd does (form-encoded
/// PUT bodies, query parameters on GET/DELETE, `X-Etcd-Index`), over HTTP or HTTPS with client
/// certificates (http_client.hpp). One client owns one keep-alive connection and is used by one
/// thread; another thread may only call cancel().

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/agent/etcd/http_client.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

/// etcd v2 error codes the rendezvous distinguishes.
namespace etcd_error {
inline constexpr int key_not_found = 100;
inline constexpr int compare_failed = 101;
inline constexpr int node_exists = 105;
inline constexpr int event_index_cleared = 401;
}  // namespace etcd_error

/// One node of a v2 response (a key or a directory with its listed children).
struct EtcdNode {
  std::string key;
  std::string value;
  bool dir = false;
  std::int64_t modified_index = 0;
  std::optional<std::int64_t> ttl;
  std::vector<EtcdNode> nodes;
};

/// How a request ended, kept apart from the transport failures that throw.
enum class EtcdOutcome {
  Ok,         ///< 2xx: `node` and `action` are set
  EtcdError,  ///< etcd answered an error body: `error_code`, `message`, `cause`
  TimedOut,   ///< a watch saw no event within its timeout
  Cancelled,  ///< cancel() was called while the request ran
};

/// The answer to one request.
struct EtcdResult {
  EtcdOutcome outcome = EtcdOutcome::Ok;
  long http_status = 0;
  std::string action;
  EtcdNode node;
  std::int64_t etcd_index = 0;  ///< the X-Etcd-Index header
  int error_code = 0;
  std::string message;
  std::string cause;

  [[nodiscard]] bool ok() const { return outcome == EtcdOutcome::Ok; }
  /// True when etcd answered with this v2 error code.
  [[nodiscard]] bool is(int code) const {
    return outcome == EtcdOutcome::EtcdError && error_code == code;
  }
};

/// Where and how to connect.
struct EtcdClientOptions {
  std::string host = "localhost";
  int port = 2379;
  std::string protocol = "http";  ///< http or https
  std::string cacert, cert, key;  ///< TLS files; empty = system CAs / no client cert
  long connect_timeout_ms = 5000;
  long read_timeout_ms = 60000;  ///< python-etcd's default read timeout
};

/// Parameters of a PUT (python-etcd's write()).
struct EtcdWrite {
  std::optional<std::string> value;  ///< absent = no `value` field (an empty key or a dir)
  std::optional<int> ttl;
  bool dir = false;
  std::optional<bool> prev_exist;
  std::optional<std::string> prev_value;
  std::optional<std::int64_t> prev_index;
  bool refresh = false;
};

/// The etcd v2 client. Throws ejob::Error(Transport) when etcd cannot be reached or answers
/// something that is not an etcd v2 response.
class EtcdClient {
 public:
  explicit EtcdClient(EtcdClientOptions options);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  /// The base URL, e.g. `http://127.0.0.1:2379`.
  [[nodiscard]] const std::string& base_url() const { return m_base_url; }
  /// GET /v2/machines: the cluster's advertised client URLs.
  std::vector<std::string> machines();
  /// GET a key or list a directory (`recursive` lists the whole subtree).
  EtcdResult get(const std::string& key, bool recursive = false);
  /// PUT a key or directory.
  EtcdResult write(const std::string& key, const EtcdWrite& write);
  /// DELETE a key, optionally only if its value is exactly `prev_value`.
  EtcdResult remove(const std::string& key, const std::optional<std::string>& prev_value = {},
                    bool recursive = false);
  /// Long-polls for the first event at or after `wait_index` on the key (or below it when
  /// `recursive`); TimedOut after `timeout_ms`.
  EtcdResult watch(const std::string& key, std::int64_t wait_index, bool recursive,
                   long timeout_ms);
  /// Makes the request running in another thread (and the next one) end as Cancelled.
  void cancel();
  /// Clears a previous cancel().
  void reset_cancel();

 private:
  /// Whether running out of time is a watch timeout or a transport failure.
  enum class RequestKind { Plain, Watch };
  EtcdResult perform(const std::string& method, const std::string& path_and_query,
                     const std::string& body, long timeout_ms, RequestKind kind);
  HttpEnd send(const HttpRequest& request, long timeout_ms, HttpResponse& response);
  [[nodiscard]] Error failure(const std::string& request, const std::string& why) const;

  EtcdClientOptions m_options;
  std::string m_base_url;
  HttpClient m_http;
};

/// Percent-encodes for a form body or query (`application/x-www-form-urlencoded`, space as '+').
std::string form_encode(const std::string& text);

/// Parses an etcd v2 JSON body into `result` (node, action, error fields). Throws
/// ejob::Error(Transport) when the body is not etcd v2 JSON.
void parse_etcd_body(const std::string& body, EtcdResult& result);

}  // namespace ejob::agent
