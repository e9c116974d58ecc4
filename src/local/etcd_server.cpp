#include "src/local/etcd_server.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "src/local/process.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string url(int port) { return "http://127.0.0.1:" + std::to_string(port); }

std::vector<std::string> etcd_argv(const std::string& etcd, const fs::path& dir, int client,
                                   int peer) {
  return {etcd, "--name=local", "--data-dir=" + (dir / "etcd").string(), "--enable-v2=true",
          "--listen-client-urls=" + url(client), "--advertise-client-urls=" + url(client),
          "--listen-peer-urls=" + url(peer), "--initial-advertise-peer-urls=" + url(peer),
          "--initial-cluster=local=" + url(peer),
          // One member on loopback: no network to wait for, so a 10 ms tick and a 100 ms
          // election let it lead in ~0.1 s instead of 0.3-0.8 s with the defaults (100/1000).
          "--heartbeat-interval=10", "--election-timeout=100", "--log-level=warn"};
}

std::string log_tail(const fs::path& log) {
  std::ifstream in(log);
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  return text.size() > 600 ? "…" + text.substr(text.size() - 600) : text;
}

bool healthy(int port) {
  try {
    return http_get(port, "/health", 500).body.find("\"true\"") != std::string::npos;
  } catch (const Error&) {
    return false;
  }
}

/// True once etcd answers; false when it exited first (reaped).
bool wait_healthy(pid_t pid, int port, int timeout_ms) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (Clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    if (healthy(port)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  stop_session(pid, 1000);
  return false;
}

}  // namespace

EtcdServer start_etcd(const std::string& etcd, const fs::path& dir, int timeout_ms,
                      int client_port) {
  const fs::path log = dir / "etcd.log";
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int client = client_port != 0 ? client_port : free_port();
    int peer = free_port();
    while (peer == client) peer = free_port();
    const pid_t pid = spawn_session({etcd_argv(etcd, dir, client, peer), {}, dir, log, true});
    if (wait_healthy(pid, client, timeout_ms)) return {pid, client};
  }
  throw Error(ErrorCode::Io,
              "the job's etcd did not start (" + log.string() + "):\n" + log_tail(log));
}

void stop_session(pid_t pid, int grace_ms) {
  signal_session(pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::milliseconds(grace_ms);
  int status = 0;
  while (Clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid || !process_alive(pid)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  signal_session(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
}

std::string find_etcd() {
  std::string etcd = find_on_path("etcd");
  if (etcd.empty())
    throw Error(ErrorCode::NotFound,
                "local jobs need etcd, which is not on PATH: install Debian's etcd-server "
                "(apt-get install etcd-server)");
  return etcd;
}

}  // namespace ejob::local
