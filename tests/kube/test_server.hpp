#pragma once
/// Runs tests/kube/server.py (the Kubernetes API test server) for one test: a fresh temporary
/// directory with its PKI and kubeconfig, 127.0.0.1 on a free port, stopped and removed by
/// the destructor. control() drives the server's /_test endpoints.

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/kubeapi/kubeconfig.hpp"

namespace ejob::testing {

class TestServer {
 public:
  TestServer();
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  [[nodiscard]] int port() const { return m_port; }
  /// The directory holding ca.crt, admin.crt, ..., and the kubeconfig.
  [[nodiscard]] const std::string& dir() const { return m_dir; }
  [[nodiscard]] std::string kubeconfig() const { return m_dir + "/kubeconfig"; }
  /// The server's URL, https://127.0.0.1:PORT.
  [[nodiscard]] std::string url() const;

  /// The configuration of one of the kubeconfig's contexts (admin-cert, admin-token,
  /// viewer-token, viewer-cert, basic, anonymous).
  [[nodiscard]] kubeapi::RestConfig config(const std::string& context) const;

  /// POST (or GET when body is null) /_test/<command>; returns the parsed answer.
  nlohmann::json control(const std::string& command,
                         const nlohmann::json& body = nlohmann::json::object());
  /// Every API request the server saw since the last reset.
  std::vector<nlohmann::json> requests();
  /// Every stored object.
  std::vector<nlohmann::json> objects();

 private:
  std::string m_dir;
  int m_port = 0;
  pid_t m_pid = -1;
  int m_stdin = -1;
};

/// A port on 127.0.0.1 that accepts connections and never answers (a hung apiserver: the
/// kernel completes the handshakes, no one reads); refusing() gives one where nothing listens.
class SilentPort {
 public:
  SilentPort();
  ~SilentPort();
  SilentPort(const SilentPort&) = delete;
  SilentPort& operator=(const SilentPort&) = delete;

  [[nodiscard]] int port() const { return m_port; }
  /// The configuration of a cluster at this port (plain HTTP: no TLS to wait for).
  [[nodiscard]] kubeapi::RestConfig config() const;
  /// A port that was free a moment ago, bound by no one.
  static int refusing();

 private:
  int m_fd;
  int m_port = 0;
};

/// Writes `text` to `path` (tests make kubeconfigs and plugin scripts with it).
void write_file(const std::string& path, const std::string& text);

}  // namespace ejob::testing
