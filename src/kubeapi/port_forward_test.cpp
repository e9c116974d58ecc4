#include "src/kubeapi/port_forward.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <thread>

#include "src/kubeapi/api_error.hpp"
#include "src/kubeapi/client.hpp"
#include "tests/kube/test_server.hpp"

using namespace ejob;
using namespace ejob::kubeapi;
using ejob::testing::TestServer;
using nlohmann::json;

namespace {

constexpr std::chrono::milliseconds k_wait{20'000};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::to_string(exit_code(e.code())) + ": " + e.message();
  }
  return "(no error)";
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// A TCP server on 127.0.0.1 (a free port) that runs `handler` for each connection in its own
/// thread; the destructor stops listening and waits for the handlers (which end when their
/// peer closes).
class TcpServer {
 public:
  explicit TcpServer(std::function<void(int)> handler) : m_handler(std::move(handler)) {
    m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(m_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(::listen(m_fd, 16) == 0);
    socklen_t len = sizeof addr;
    getsockname(m_fd, reinterpret_cast<sockaddr*>(&addr), &len);
    m_port = ntohs(addr.sin_port);
    m_acceptor = std::thread([this] {
      while (true) {
        const int c = ::accept4(m_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (c < 0) return;  // shut down
        ++m_accepted;
        std::lock_guard lock(m_mutex);
        m_threads.emplace_back([this, c] {
          m_handler(c);
          ::close(c);
        });
      }
    });
  }
  ~TcpServer() {
    ::shutdown(m_fd, SHUT_RDWR);
    m_acceptor.join();
    ::close(m_fd);
    for (auto& t : m_threads) t.join();
  }
  TcpServer(const TcpServer&) = delete;
  TcpServer& operator=(const TcpServer&) = delete;

  [[nodiscard]] int port() const { return m_port; }
  /// Connections accepted so far.
  [[nodiscard]] int accepted() const { return m_accepted.load(); }

 private:
  std::function<void(int)> m_handler;
  int m_fd = -1;
  int m_port = 0;
  std::thread m_acceptor;
  std::mutex m_mutex;
  std::vector<std::thread> m_threads;
  std::atomic<int> m_accepted{0};
};

/// Sends back what it reads until the peer closes.
void echo(int fd) {
  char buf[16384];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    if (::send(fd, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) return;
}

/// An HTTP CONNECT proxy (proxy-url): reads the CONNECT request, records its target, connects
/// to it and relays bytes both ways until either side closes.
void connect_proxy(int fd, std::vector<std::string>& seen, std::mutex& m) {
  std::string head;
  char c;
  while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) head += c;
  const std::string target = head.substr(8, head.find(' ', 8) - 8);  // "CONNECT host:port ..."
  {
    std::lock_guard lock(m);
    seen.push_back(head.substr(0, head.find("\r\n")));
  }
  const int up = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(std::stoi(target.substr(target.find(':') + 1))));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(up, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(up);
    return;
  }
  const std::string ok = "HTTP/1.1 200 Connection established\r\n\r\n";
  ::send(fd, ok.data(), ok.size(), MSG_NOSIGNAL);
  char buf[65536];
  pollfd fds[2] = {{fd, POLLIN, 0}, {up, POLLIN, 0}};
  while (::poll(fds, 2, -1) > 0) {
    const int from = fds[0].revents ? fd : up;
    const ssize_t n = ::recv(from, buf, sizeof buf, 0);
    if (n <= 0 || ::send(from == fd ? up : fd, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n)
      break;
  }
  ::close(up);
}

/// A pod whose port 8080 is `target` on 127.0.0.1 (0: nothing listens on 8080).
json pod(const std::string& name, int target) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"containers", {{{"name", "main"}, {"image", "etcd"}}}}}}};
  if (target != 0)
    p["metadata"]["annotations"] = {{"test.ejob.dev/port-forward-8080", std::to_string(target)}};
  return p;
}

std::string pattern(std::size_t n, int seed) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 13 + seed + i / 509) & 0xFF);
  return s;
}

/// Reads from a stream until `n` bytes arrived or it ended.
std::string read_stream(PortForwardStream& s, std::size_t n) {
  std::string out;
  while (out.size() < n && s.read(out, k_wait) == StreamRead::Data) {
  }
  return out;
}

int connect_local(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

/// Writes `data` from another thread while reading `expect` bytes back (an echo both ways at
/// once, as a real client would); returns what came back before the connection ended.
std::string exchange(int fd, const std::string& data, std::size_t expect) {
  std::thread writer([&] {
    std::string_view rest = data;
    while (!rest.empty()) {
      const ssize_t n = ::send(fd, rest.data(), rest.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
  });
  std::string got;
  char buf[65536];
  pollfd p{fd, POLLIN, 0};
  while (got.size() < expect && ::poll(&p, 1, static_cast<int>(k_wait.count())) > 0) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  writer.join();
  return got;
}

struct Fixture {
  TestServer server;
  Transport transport{server.config("admin-cert"), {}};
  Client client{transport};
};

}  // namespace

TEST_CASE("port-forward: bytes round-trip through a pod's port, small and above 64 KiB") {
  Fixture f;
  TcpServer target(echo);
  f.client.create(pod("etcd-0", target.port()));
  auto s = PortForwardStream::open(f.transport, "default", "etcd-0", 8080);
  CHECK(s->port() == 8080);
  s->write("hello");
  CHECK(read_stream(*s, 5) == "hello");
  for (std::size_t n : {std::size_t{70'000}, std::size_t{3u << 20}}) {
    const std::string data = pattern(n, static_cast<int>(n));
    s->write(data);
    const std::string back = read_stream(*s, n);
    CHECK(back.size() == n);
    CHECK(back == data);
  }
  s->close();
  CHECK(target.accepted() == 1);
}

TEST_CASE("port-forward: the local listener serves two connections at once") {
  Fixture f;
  TcpServer target(echo);
  f.client.create(pod("etcd-0", target.port()));
  std::vector<std::string> errors;
  std::mutex m;
  PortForwarder fwd(f.transport,
                    {"default", "etcd-0", 8080, 0, "127.0.0.1", [&](const std::string& e) {
                       std::lock_guard lock(m);
                       errors.push_back(e);
                     }});
  REQUIRE(fwd.local_port() > 0);
  const int a = connect_local(fwd.local_port());
  const int b = connect_local(fwd.local_port());
  CHECK(exchange(a, "first", 5) == "first");
  CHECK(exchange(b, "second", 6) == "second");
  // Both open at the same time, each with its own large payload.
  const std::string big_a = pattern(200'000, 1);
  const std::string big_b = pattern(300'000, 2);
  std::string got_a;
  std::thread ta([&] { got_a = exchange(a, big_a, big_a.size()); });
  const std::string got_b = exchange(b, big_b, big_b.size());
  ta.join();
  CHECK(got_a == big_a);
  CHECK(got_b == big_b);
  ::close(a);
  ::close(b);
  fwd.stop();
  CHECK(errors.empty());
  CHECK(target.accepted() == 2);  // one WebSocket, so one connection to the pod, per local one
}

TEST_CASE("port-forward: the pod's side closing ends the stream and the local connection") {
  Fixture f;
  TcpServer target([](int fd) { ::send(fd, "bye\n", 4, MSG_NOSIGNAL); });
  f.client.create(pod("etcd-0", target.port()));
  auto s = PortForwardStream::open(f.transport, "default", "etcd-0", 8080);
  std::string out;
  CHECK(s->read(out, k_wait) == StreamRead::Data);
  CHECK(out == "bye\n");
  CHECK(s->read(out, k_wait) == StreamRead::Closed);
  CHECK(error_of([&] { s->write("late"); }) ==
        "4: the WebSocket to " + f.server.url() + " is closed");

  PortForwarder fwd(f.transport, {"default", "etcd-0", 8080});
  const int c = connect_local(fwd.local_port());
  // The whole answer, then the end of the connection (recv 0) before the 1 MiB expected.
  CHECK(exchange(c, "", 1u << 20) == "bye\n");
  ::close(c);
}

TEST_CASE("port-forward: an unknown pod is NotFound naming the pod") {
  Fixture f;
  CHECK(error_of([&] { PortForwardStream::open(f.transport, "default", "nope", 8080); }) ==
        "8: pods \"nope\" not found");
}

TEST_CASE("port-forward: a port with nothing listening is the kubelet's error") {
  Fixture f;
  const json created = f.client.create(pod("etcd-0", 0));
  const std::string uid = created["metadata"]["uid"];
  const std::string expected =
      "4: error forwarding port 8080 to pod " + uid +
      ", uid : failed to execute portforward in network namespace \"/var/run/netns/cni-" + uid +
      "\": failed to connect to localhost:8080 inside namespace \"" + uid +
      "\", IPv4: dial tcp4 127.0.0.1:8080: connect: connection refused IPv6 dial tcp6 "
      "[::1]:8080: connect: connection refused ";
  auto s = PortForwardStream::open(f.transport, "default", "etcd-0", 8080);
  std::string out;
  CHECK(error_of([&] { s->read(out, k_wait); }) == expected);

  std::vector<std::string> errors;
  std::mutex m;
  {
    PortForwarder fwd(f.transport,
                      {"default", "etcd-0", 8080, 0, "127.0.0.1", [&](const std::string& e) {
                         std::lock_guard lock(m);
                         errors.push_back(e);
                       }});
    const int c = connect_local(fwd.local_port());
    CHECK(exchange(c, "", 1).empty());  // the local connection is closed
    ::close(c);
  }
  REQUIRE(errors.size() == 1);
  CHECK("4: " + errors[0] == expected);
}

TEST_CASE("port-forward: client certificate and token auth; a viewer may not forward") {
  TestServer server;
  TcpServer target(echo);
  {
    Transport admin(server.config("admin-cert"), {});
    Client(admin).create(pod("etcd-0", target.port()));
  }
  for (const char* context : {"admin-cert", "admin-token", "basic"}) {
    INFO(context);
    Transport t(server.config(context), {});
    auto s = PortForwardStream::open(t, "default", "etcd-0", 8080);
    s->write(context);
    CHECK(read_stream(*s, std::string(context).size()) == context);
  }
  Transport viewer(server.config("viewer-token"), {});
  CHECK(error_of([&] { PortForwardStream::open(viewer, "default", "etcd-0", 8080); }) ==
        "6: pods \"etcd-0\" is forbidden: User \"viewer\" cannot create resource "
        "\"pods/portforward\" in API group \"\" in the namespace \"default\"");
  RestConfig bad = server.config("admin-token");
  bad.token = "wrong";
  Transport wrong(bad, {});
  CHECK(error_of([&] { PortForwardStream::open(wrong, "default", "etcd-0", 8080); }) ==
        "6: the server rejected the credentials (401 Unauthorized)");
}

TEST_CASE("port-forward: TLS settings are those of the cluster (CA, tls-server-name, insecure)") {
  TestServer server;
  TcpServer target(echo);
  RestConfig cfg = server.config("admin-token");
  {
    Transport t(cfg, {});
    Client(t).create(pod("etcd-0", target.port()));
  }
  cfg.tls_server_name = "kubernetes.default.svc";
  {
    Transport t(cfg, {});
    auto s = PortForwardStream::open(t, "default", "etcd-0", 8080);
    s->write("sni");
    CHECK(read_stream(*s, 3) == "sni");
  }
  cfg.tls_server_name.clear();
  cfg.ca_pem = slurp(server.dir() + "/other-ca.crt");
  {
    Transport t(cfg, {});
    CHECK(error_of([&] { PortForwardStream::open(t, "default", "etcd-0", 8080); }) ==
          "4: TLS handshake with " + server.url() +
              " failed: SSL certificate problem: self-signed certificate in certificate chain "
              "(check certificate-authority in the kubeconfig)");
  }
  cfg.ca_pem.clear();
  cfg.insecure = true;
  Transport t(cfg, {});
  auto s = PortForwardStream::open(t, "default", "etcd-0", 8080);
  s->write("insecure");
  CHECK(read_stream(*s, 8) == "insecure");
}

TEST_CASE("port-forward: a local port that is taken is an Io error") {
  Fixture f;
  PortForwarder first(f.transport, {"default", "etcd-0", 8080});
  CHECK(error_of([&] {
          PortForwarder(f.transport, {"default", "etcd-0", 8080, first.local_port()});
        }) == "3: cannot listen on 127.0.0.1:" + std::to_string(first.local_port()) +
                  ": Address already in use");
}

TEST_CASE("port-forward: exec plugin credentials, run again after a 401") {
  TestServer server;
  TcpServer target(echo);
  {
    Transport admin(server.config("admin-cert"), {});
    Client(admin).create(pod("etcd-0", target.port()));
  }
  const std::string plugin = server.dir() + "/plugin.sh";
  // Each run prints a new token: exec-1, exec-2, ...
  ejob::testing::write_file(
      plugin,
      "#!/bin/sh\n"
      "n=$(cat \"$0.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0.count\"\n"
      "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"exec-%s\"}}' $n\n");
  chmod(plugin.c_str(), 0755);
  server.control("tokens", {{"exec-1", "admin"}, {"exec-2", "admin"}});
  RestConfig cfg = server.config("admin-token");
  cfg.token.clear();
  cfg.exec = ExecConfig{"client.authentication.k8s.io/v1", plugin, {}, {}, "Never", false};
  Transport t(cfg, {});
  {
    auto s = PortForwardStream::open(t, "default", "etcd-0", 8080);
    s->write("one");
    CHECK(read_stream(*s, 3) == "one");
  }
  CHECK(t.credentials().plugin_runs() == 1);
  server.control("tokens", {{"exec-1", nullptr}});  // revoked: the upgrade gets a 401
  auto s = PortForwardStream::open(t, "default", "etcd-0", 8080);
  s->write("two");
  CHECK(read_stream(*s, 3) == "two");
  CHECK(t.credentials().plugin_runs() == 2);
}

TEST_CASE("port-forward: through the kubeconfig's proxy-url (HTTP CONNECT)") {
  TestServer server;
  TcpServer target(echo);
  std::vector<std::string> seen;
  std::mutex m;
  TcpServer proxy([&](int fd) { connect_proxy(fd, seen, m); });
  RestConfig cfg = server.config("admin-token");
  {
    Transport t(cfg, {});
    Client(t).create(pod("etcd-0", target.port()));
  }
  cfg.proxy_url = "http://127.0.0.1:" + std::to_string(proxy.port());
  Transport t(cfg, {});
  auto s = PortForwardStream::open(t, "default", "etcd-0", 8080);
  s->write("via proxy");
  CHECK(read_stream(*s, 9) == "via proxy");
  s->close();
  std::lock_guard lock(m);
  CHECK(seen == std::vector<std::string>{"CONNECT 127.0.0.1:" + std::to_string(server.port()) +
                                         " HTTP/1.1"});
}

TEST_CASE("port-forward: a server that names another port in its prefixes is refused") {
  Fixture f;
  TcpServer target(echo);
  json p = pod("etcd-0", target.port());
  p["metadata"]["annotations"]["test.ejob.dev/announce-port"] = "9999";
  f.client.create(p);
  auto s = PortForwardStream::open(f.transport, "default", "etcd-0", 8080);
  std::string out;
  CHECK(error_of([&] { s->read(out, k_wait); }) ==
        "4: port-forward to pod default/etcd-0 port 8080: the server answered for port 9999");
}

TEST_CASE("port-forward: a server URL with a path (a proxy's /k8s/clusters/ID) prefixes requests") {
  TestServer server;
  TcpServer target(echo);
  server.control("config", {{"path_prefix", "/k8s/clusters/c-1"}});
  RestConfig cfg = server.config("admin-cert");
  {  // without the prefix nothing is found: the server really is behind it
    Transport t(cfg, {});
    Request r;
    r.target = "/api/v1/namespaces/default/pods";
    CHECK(t.send(r).status == 404);
  }
  server.control("requests/reset");
  int n = 0;
  for (const std::string path : {"/k8s/clusters/c-1", "/k8s/clusters/c-1/"}) {
    cfg.server = server.url() + path;
    Transport t(cfg, {});
    Client(t).create(pod("etcd-" + std::to_string(n), target.port()));
    auto s = PortForwardStream::open(t, "default", "etcd-" + std::to_string(n++), 8080);
    s->write(path);
    CHECK(read_stream(*s, path.size()) == path);
  }
  std::vector<std::string> seen;
  for (const json& r : server.requests())
    seen.push_back(r["method"].get<std::string>() + " " + r["path"].get<std::string>() + " " +
                   std::to_string(r["status"].get<int>()));
  CHECK(seen ==
        std::vector<std::string>{"POST /api/v1/namespaces/default/pods 201",
                                 "GET /api/v1/namespaces/default/pods/etcd-0/portforward 101",
                                 "POST /api/v1/namespaces/default/pods 201",
                                 "GET /api/v1/namespaces/default/pods/etcd-1/portforward 101"});
}
