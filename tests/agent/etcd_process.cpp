#include "tests/agent/etcd_process.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "src/agent/etcd/etcd_client.hpp"
#include "src/util/error.hpp"

namespace ejob::agent::testing {
namespace {

void run_shell(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("command failed: " + command);
}

/// A CA, a server certificate for 127.0.0.1 and a client certificate, made with openssl(1).
void make_certificates(const std::string& dir) {
  std::string d = "'" + dir + "'";
  run_shell("cd " + d +
            " && openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=ejob-test-ca"
            " -keyout ca.key -out ca.crt 2>/dev/null"
            " && printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext"
            " && openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 -keyout server.key"
            " -out server.csr 2>/dev/null"
            " && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial"
            " -days 2 -extfile san.ext -out server.crt 2>/dev/null"
            " && printf 'extendedKeyUsage=clientAuth\\n' > client.ext"
            " && openssl req -newkey rsa:2048 -nodes -subj /CN=ejob-agent -keyout client.key"
            " -out client.csr 2>/dev/null"
            " && openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial"
            " -days 2 -extfile client.ext -out client.crt 2>/dev/null");
}

}  // namespace

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

EtcdProcess::EtcdProcess(EtcdTls tls) : m_tls(tls) {
  std::string templ = (std::filesystem::temp_directory_path() / "ejob-etcd-XXXXXX").string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  m_dir = buf.data();
  if (m_tls == EtcdTls::ClientCerts) make_certificates(m_dir);
  // A port found free can be taken by another test's server before etcd binds it (tests run
  // in parallel): etcd then exits at start saying so, and gets two other ports.
  for (int attempt = 1;; ++attempt) {
    m_client_port = free_port();
    m_peer_port = free_port();
    std::filesystem::remove(m_dir + "/etcd.log");
    try {
      start();
      return;
    } catch (const std::runtime_error&) {
      if (attempt == 5 || !log_says("address already in use")) throw;
    }
  }
}

bool EtcdProcess::log_says(const std::string& text) const {
  std::ifstream log(m_dir + "/etcd.log");
  std::stringstream content;
  content << log.rdbuf();
  return content.str().find(text) != std::string::npos;
}

EtcdProcess::~EtcdProcess() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(m_dir, ec);
}

void EtcdProcess::start() {
  std::string scheme = m_tls == EtcdTls::Off ? "http" : "https";
  std::string client = scheme + "://127.0.0.1:" + std::to_string(m_client_port);
  std::string peer = "http://127.0.0.1:" + std::to_string(m_peer_port);
  std::vector<std::string> args = {"etcd",
                                   "--enable-v2",
                                   "--name=t",
                                   "--data-dir=" + m_dir + "/data",
                                   "--listen-client-urls=" + client,
                                   "--advertise-client-urls=" + client,
                                   "--listen-peer-urls=" + peer,
                                   "--initial-advertise-peer-urls=" + peer,
                                   "--initial-cluster=t=" + peer,
                                   "--log-level=error",
                                   "--logger=zap"};
  if (m_tls == EtcdTls::ClientCerts) {
    args.push_back("--cert-file=" + m_dir + "/server.crt");
    args.push_back("--key-file=" + m_dir + "/server.key");
    args.push_back("--trusted-ca-file=" + m_dir + "/ca.crt");
    args.push_back("--client-cert-auth");
  }
  m_pid = ::fork();
  if (m_pid == 0) {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string log = m_dir + "/etcd.log";
    if (std::freopen(log.c_str(), "a", stderr) == nullptr) ::_exit(126);
    ::execvp("etcd", argv.data());
    ::_exit(127);
  }
  wait_ready();
}

void EtcdProcess::wait_ready() {
  EtcdClientOptions o;
  o.host = "127.0.0.1";
  o.port = m_client_port;
  o.protocol = m_tls == EtcdTls::Off ? "http" : "https";
  if (m_tls == EtcdTls::ClientCerts) {
    o.cacert = ca_file();
    o.cert = client_cert();
    o.key = client_key();
  }
  o.connect_timeout_ms = 500;
  o.read_timeout_ms = 2000;
  EtcdClient client(o);
  for (int i = 0; i < 300; ++i) {
    try {
      if (client.get("/").ok()) return;
    } catch (const Error&) {
    }
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      throw std::runtime_error("etcd exited at start; see " + m_dir + "/etcd.log");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("etcd did not become ready within 15 s");
}

void EtcdProcess::stop() {
  if (m_pid <= 0) return;
  ::kill(m_pid, SIGTERM);
  int status = 0;
  ::waitpid(m_pid, &status, 0);
  m_pid = -1;
}

void EtcdProcess::restart() {
  stop();
  start();
}

}  // namespace ejob::agent::testing
