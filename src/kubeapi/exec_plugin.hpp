#pragma once
/// Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as kubectl runs
/// them: the command with its args, the process environment plus the plugin's `env`, and
/// KUBERNETES_EXEC_INFO holding an ExecCredential whose spec says whether the session is
/// interactive and, with provideClusterInfo, describes the cluster. The plugin prints an
/// ExecCredential whose status has a token and/or a client certificate and key, and maybe an
/// expirationTimestamp. Its stderr goes to ours; stdin is passed on only when interactive.

#include <chrono>
#include <optional>
#include <string>

#include "src/kubeapi/kubeconfig.hpp"

namespace ejob::kubeapi {

/// What a plugin returned.
struct ExecCredential {
  std::string token;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expires;  ///< none = no expiry
};

/// Whether our standard input is a terminal (decides `interactive`).
enum class Terminal { Yes, No };

/// Runs the plugin for `cfg.exec` and parses its answer. Throws ejob::Error(Auth) when the
/// plugin cannot start, exits non-zero, prints something that is not a matching
/// ExecCredential, or needs a terminal (interactiveMode Always) that we lack.
ExecCredential run_exec_plugin(const RestConfig& cfg, Terminal terminal);

/// Parses an RFC 3339 timestamp ("2024-01-02T03:04:05Z", fractions and offsets allowed).
std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text);

}  // namespace ejob::kubeapi
