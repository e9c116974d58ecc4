#include "tests/kube/test_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "src/kubeapi/transport.hpp"

extern char** environ;

namespace ejob::testing {
namespace {

std::string python() {
  return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

std::string read_line(int fd) {
  std::string line;
  char c;
  while (read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

}  // namespace

TestServer::TestServer() {
  char tmpl[] = "/tmp/ejob-kube-XXXXXX";
  if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  m_dir = tmpl;
  int in[2];
  int out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::string py = python();
  std::string script = std::string(EJOB_SOURCE_DIR) + "/tests/kube/server.py";
  std::string dir_flag = "--dir";
  std::string namespaces = "--namespaces=elastic-job";  // made by the cluster's admin
  char* argv[] = {py.data(),    script.data(),     dir_flag.data(),
                  m_dir.data(), namespaces.data(), nullptr};
  const int rc = posix_spawnp(&m_pid, py.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]);
  close(out[1]);
  m_stdin = in[1];
  if (rc != 0) throw std::runtime_error("cannot start the test server");
  const std::string ready = read_line(out[0]);
  close(out[0]);
  auto doc = nlohmann::json::parse(ready, nullptr, false);
  if (!doc.is_object() || !doc.contains("port"))
    throw std::runtime_error("test server did not start: " + ready);
  m_port = doc["port"].get<int>();
}

TestServer::~TestServer() {
  if (m_stdin >= 0) close(m_stdin);  // the server exits when its stdin closes
  if (m_pid > 0) {
    int status = 0;
    waitpid(m_pid, &status, 0);
  }
  std::error_code ec;
  std::filesystem::remove_all(m_dir, ec);
}

SilentPort::SilentPort() : m_fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t n = sizeof a;
  if (m_fd < 0 || ::bind(m_fd, reinterpret_cast<sockaddr*>(&a), n) != 0 ||
      ::listen(m_fd, 64) != 0 || ::getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &n) != 0)
    throw std::runtime_error("cannot listen on 127.0.0.1");
  m_port = ntohs(a.sin_port);
}

SilentPort::~SilentPort() { ::close(m_fd); }

kubeapi::RestConfig SilentPort::config() const {
  kubeapi::RestConfig cfg;
  cfg.server = "http://127.0.0.1:" + std::to_string(m_port);
  return cfg;
}

int SilentPort::refusing() {
  const SilentPort gone;
  return gone.port();
}

std::string TestServer::url() const { return "https://127.0.0.1:" + std::to_string(m_port); }

kubeapi::RestConfig TestServer::config(const std::string& context) const {
  kubeapi::Environment env;
  return kubeapi::load_config({kubeconfig(), context, ""}, env);
}

nlohmann::json TestServer::control(const std::string& command, const nlohmann::json& body) {
  kubeapi::RestConfig cfg = config("anonymous");
  kubeapi::Transport t(cfg, {});
  kubeapi::Request req;
  req.method = body.is_null() ? kubeapi::Method::Get : kubeapi::Method::Post;
  req.target = "/_test/" + command;
  if (!body.is_null()) {
    req.body = body.dump();
    req.content_type = "application/json";
  }
  kubeapi::Response r = t.send(req);
  if (r.status != 200) throw std::runtime_error("test control " + command + " failed: " + r.body);
  return nlohmann::json::parse(r.body);
}

std::vector<nlohmann::json> TestServer::requests() {
  return control("requests", nullptr).get<std::vector<nlohmann::json>>();
}

std::vector<nlohmann::json> TestServer::objects() {
  return control("objects", nullptr).get<std::vector<nlohmann::json>>();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace ejob::testing
