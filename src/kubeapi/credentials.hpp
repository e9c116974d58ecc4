#pragma once
/// The credentials of one RestConfig, kept current across requests: a static token, a
/// tokenFile re-read at most once a minute (how service-account tokens rotate), basic auth,
/// client certificates, or an exec plugin whose answer is cached until its
/// expirationTimestamp. After a 401 the client calls refresh(), which drops the cache.
/// Secrets never leave this object except as request material; nothing here logs.

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "src/kubeapi/exec_plugin.hpp"
#include "src/kubeapi/kubeconfig.hpp"

namespace ejob::kubeapi {

/// What one request authenticates with.
struct AuthMaterial {
  std::string authorization;  ///< the Authorization header value, or empty
  std::string client_cert_pem;
  std::string client_key_pem;
};

class Credentials {
 public:
  explicit Credentials(RestConfig cfg, Terminal terminal = Terminal::No);

  /// The material for the next request; may run the exec plugin or read the token file.
  /// Throws ejob::Error(Auth) when the plugin fails, Input when the token file is unreadable.
  AuthMaterial current();

  /// Forgets cached credentials after a 401. Returns whether trying again can help (an exec
  /// plugin or a token file; a static token or certificate will not change).
  bool refresh();

  /// How many times the exec plugin ran (for tests and --debug).
  [[nodiscard]] int plugin_runs() const;

 private:
  RestConfig m_cfg;
  Terminal m_terminal;
  mutable std::mutex m_mutex;
  std::optional<ExecCredential> m_exec;
  std::optional<std::string> m_file_token;
  std::chrono::steady_clock::time_point m_file_read;
  int m_plugin_runs = 0;
};

}  // namespace ejob::kubeapi
