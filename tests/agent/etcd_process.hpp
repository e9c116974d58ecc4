#pragma once
/// A real etcd server (Debian's etcd-server 3.4 with --enable-v2) for the agent's tests: started
/// on free 127.0.0.1 ports with a temporary data dir, stopped (and the dir removed) on
/// destruction. Optionally HTTPS with a generated CA, server and client certificate.

#include <sys/types.h>

#include <string>

namespace ejob::agent::testing {

/// Whether the etcd server speaks HTTP or HTTPS with client certificates.
enum class EtcdTls { Off, ClientCerts };

/// One etcd process.
class EtcdProcess {
 public:
  explicit EtcdProcess(EtcdTls tls = EtcdTls::Off);
  ~EtcdProcess();
  EtcdProcess(const EtcdProcess&) = delete;
  EtcdProcess& operator=(const EtcdProcess&) = delete;

  /// The client port on 127.0.0.1.
  [[nodiscard]] int port() const { return m_client_port; }
  /// `127.0.0.1:PORT`, as --rdzv_endpoint takes it.
  [[nodiscard]] std::string endpoint() const {
    return "127.0.0.1:" + std::to_string(m_client_port);
  }
  /// TLS files (empty without TLS).
  [[nodiscard]] std::string ca_file() const { return m_dir + "/ca.crt"; }
  [[nodiscard]] std::string client_cert() const { return m_dir + "/client.crt"; }
  [[nodiscard]] std::string client_key() const { return m_dir + "/client.key"; }

  /// Stops the server (SIGTERM, then waits); the data stays for restart().
  void stop();
  /// Starts it again on the same ports with the same data.
  void restart();

 private:
  void start();
  void wait_ready();
  [[nodiscard]] bool log_says(const std::string& text) const;

  EtcdTls m_tls;
  std::string m_dir;
  int m_client_port = 0;
  int m_peer_port = 0;
  pid_t m_pid = -1;
};

/// A free TCP port on 127.0.0.1 (bound to port 0, then released).
int free_port();

}  // namespace ejob::agent::testing
