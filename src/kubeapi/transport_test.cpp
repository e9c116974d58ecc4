#include "src/kubeapi/transport.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "src/kubeapi/api_error.hpp"
#include "src/kubeapi/client.hpp"
#include "src/util/base64.hpp"
#include "tests/kube/test_server.hpp"

using namespace ejob;
using namespace ejob::kubeapi;
using ejob::testing::SilentPort;
using ejob::testing::TestServer;
using ejob::testing::write_file;

extern char** environ;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// GET /api/v1/namespaces with this config; returns the HTTP status.
long list_namespaces(const RestConfig& cfg) {
  Transport t(cfg, {});
  return t.send({Method::Get, "/api/v1/namespaces"}).status;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::to_string(exit_code(e.code())) + ": " + e.message();
  }
  return "(no error)";
}

TransportOptions fast() {
  TransportOptions o;
  o.backoff_base = std::chrono::milliseconds(5);
  return o;
}

}  // namespace

TEST_CASE("transport: client certificate, token and basic auth are accepted") {
  TestServer server;
  CHECK(list_namespaces(server.config("admin-cert")) == 200);
  CHECK(list_namespaces(server.config("admin-token")) == 200);
  CHECK(list_namespaces(server.config("basic")) == 200);
  CHECK(list_namespaces(server.config("viewer-cert")) == 200);
}

TEST_CASE("transport: a bad token is Auth with the server's reason, a forbidden verb too") {
  TestServer server;
  RestConfig cfg = server.config("admin-token");
  cfg.token = "wrong";
  Transport t(cfg, {});
  Client c(t);
  CHECK(error_of([&] { c.get(c.resource("v1", "Namespace"), "", "default"); }) ==
        "6: the server rejected the credentials (401 Unauthorized)");
  Transport viewer(server.config("viewer-token"), {});
  Client v(viewer);
  nlohmann::json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "x"}}}};
  CHECK(error_of([&] { v.create(ns); }) ==
        "6: namespaces is forbidden: User \"viewer\" cannot create resource \"namespaces\" in API "
        "group \"\" at the cluster scope");
}

TEST_CASE("transport: a server certificate from another CA is refused unless insecure") {
  TestServer server;
  RestConfig cfg = server.config("admin-token");
  cfg.ca_pem = slurp(server.dir() + "/other-ca.crt");
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "4: TLS handshake with " + server.url() +
            " failed: SSL certificate problem: self-signed certificate in certificate chain "
            "(check certificate-authority in the kubeconfig)");
  cfg.ca_pem.clear();
  cfg.insecure = true;
  CHECK(list_namespaces(cfg) == 200);
}

TEST_CASE("transport: tls-server-name is used for SNI and verification") {
  TestServer server;
  RestConfig cfg = server.config("admin-token");
  cfg.tls_server_name = "kubernetes.default.svc";
  CHECK(list_namespaces(cfg) == 200);
  cfg.tls_server_name = "wrong.name";
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "4: TLS handshake with " + server.url() +
            " failed: SSL: no alternative certificate subject name matches target host name "
            "'wrong.name' (check the server name: the certificate names other hosts; use the "
            "name it was issued for in the server URL, or set tls-server-name in the "
            "kubeconfig)");
}

TEST_CASE("transport: exec plugin credentials are cached until they expire and renewed on 401") {
  TestServer server;
  const std::string plugin = server.dir() + "/plugin.sh";
  // Each run prints a new token ("exec-N") and records what it was given.
  write_file(
      plugin,
      "#!/bin/sh\n"
      "n=$(cat \"$0.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0.count\"\n"
      "echo \"$KUBERNETES_EXEC_INFO\" > \"$0.info\"; echo \"$MY_ENV $1\" > \"$0.args\"\n"
      "printf "
      "'{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
      "\"status\":{\"token\":\"exec-%s\",\"expirationTimestamp\":\"%s\"}}' $n \"$EXPIRES\"\n");
  chmod(plugin.c_str(), 0755);
  server.control("tokens", {{"exec-1", "admin"}, {"exec-2", "admin"}});
  RestConfig cfg = server.config("admin-token");
  cfg.token.clear();
  cfg.exec = ExecConfig{"client.authentication.k8s.io/v1beta1",
                        plugin,
                        {"arg1"},
                        {{"MY_ENV", "env1"}, {"EXPIRES", "2099-01-01T00:00:00Z"}},
                        "Never",
                        true};
  Transport t(cfg, {});
  CHECK(t.send({Method::Get, "/api/v1/namespaces"}).status == 200);
  CHECK(t.send({Method::Get, "/api/v1/namespaces"}).status == 200);
  CHECK(t.credentials().plugin_runs() == 1);
  CHECK(slurp(plugin + ".args") == "env1 arg1\n");
  auto info = nlohmann::json::parse(slurp(plugin + ".info"));
  CHECK(info["spec"]["interactive"] == false);
  CHECK(info["spec"]["cluster"]["server"] == server.url());
  CHECK(base64_decode(info["spec"]["cluster"]["certificate-authority-data"].get<std::string>()) ==
        slurp(server.dir() + "/ca.crt"));
  // Revoke the cached token: the 401 makes the client run the plugin again.
  server.control("tokens", {{"exec-1", nullptr}});
  CHECK(t.send({Method::Get, "/api/v1/namespaces"}).status == 200);
  CHECK(t.credentials().plugin_runs() == 2);
  // An expired credential is not reused.
  cfg.exec->env[1].second = "2000-01-01T00:00:00Z";
  write_file(plugin + ".count", "0\n");
  server.control("tokens", {{"exec-1", "admin"}});
  Transport expired(cfg, {});
  expired.send({Method::Get, "/api/v1/namespaces"});
  expired.send({Method::Get, "/api/v1/namespaces"});
  CHECK(expired.credentials().plugin_runs() == 2);
}

TEST_CASE("transport: exec plugin failures are Auth errors") {
  TestServer server;
  RestConfig cfg = server.config("admin-token");
  const std::string plugin = server.dir() + "/fail.sh";
  write_file(plugin, "#!/bin/sh\necho 'login required' >&2\nexit 3\n");
  chmod(plugin.c_str(), 0755);
  cfg.exec = ExecConfig{"client.authentication.k8s.io/v1", plugin, {}, {}, "Never", false};
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "6: exec plugin \"" + plugin + "\" failed with exit status 3");
  cfg.exec->command = server.dir() + "/missing-plugin";
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "6: exec plugin: cannot run \"" + server.dir() +
            "/missing-plugin\": No such file or directory");
  write_file(plugin,
             "#!/bin/sh\necho "
             "'{\"apiVersion\":\"client.authentication.k8s.io/"
             "v1beta1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"x\"}}'\n");
  cfg.exec->command = plugin;
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "6: exec plugin \"" + plugin +
            "\" returned apiVersion \"client.authentication.k8s.io/v1beta1\", configured with "
            "\"client.authentication.k8s.io/v1\"");
  cfg.exec->interactive_mode = "Always";
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "6: exec plugin \"" + plugin +
            "\" needs a terminal (interactiveMode: Always) and standard input is not one");
}

TEST_CASE("transport: in-cluster emulation reads the service-account token and CA") {
  TestServer server;
  const std::string sa = server.dir() + "/sa";
  std::filesystem::create_directory(sa);
  write_file(sa + "/token", "admin-token\n");
  write_file(sa + "/ca.crt", slurp(server.dir() + "/ca.crt"));
  write_file(sa + "/namespace", "elastic-job");
  Environment env;
  env.vars = {{"KUBERNETES_SERVICE_HOST", "127.0.0.1"},
              {"KUBERNETES_SERVICE_PORT", std::to_string(server.port())}};
  env.service_account_dir = sa;
  RestConfig cfg = load_config({}, env);
  Transport t(cfg, {});
  Client c(t);
  CHECK(c.default_namespace() == "elastic-job");
  CHECK(c.get(c.resource("v1", "Namespace"), "", "elastic-job")["metadata"]["name"] ==
        "elastic-job");
  // A rotated token is picked up after a 401.
  server.control("tokens", {{"rotated", "admin"}, {"admin-token", nullptr}});
  write_file(sa + "/token", "rotated");
  CHECK(c.get(c.resource("v1", "Namespace"), "", "default")["metadata"]["name"] == "default");
}

TEST_CASE("transport: 429 and 5xx are retried for idempotent requests, honouring Retry-After") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  server.control("faults", {{"kinds", {"429"}}, {"times", 2}, {"retry_after", 0}});
  CHECK(t.send({Method::Get, "/api/v1/namespaces"}).status == 200);
  CHECK(t.requests_sent() == 3);
  server.control("faults", {{"kinds", {"503", "500"}}, {"times", 3}});
  CHECK(t.send({Method::Get, "/api/v1/namespaces"}).status == 200);
  CHECK(t.requests_sent() == 7);
}

TEST_CASE("transport: a POST is not repeated after a 5xx or a dropped connection") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  nlohmann::json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "x"}}}};
  server.control("faults", {{"kinds", {"500"}}, {"times", 1}, {"methods", {"POST"}}});
  CHECK(error_of([&] { c.create(ns); }) == "5: Internal error occurred: injected fault");
  CHECK(t.requests_sent() == 1);
  // curl itself sends a request again, once, when a kept-alive connection closes before any
  // answer; the fresh connection's failure is ours to report.
  server.control("faults", {{"kinds", {"drop"}}, {"times", 2}, {"methods", {"POST"}}});
  CHECK(error_of([&] { c.create(ns); }) ==
        "4: POST " + server.url() +
            "/api/v1/namespaces?fieldManager=ejob: Empty reply from server");
  CHECK(t.requests_sent() == 2);
  server.control("faults", {{"kinds", {"429"}}, {"times", 1}, {"methods", {"POST"}}});
  CHECK(c.create(ns)["metadata"]["name"] == "x");
  CHECK(t.requests_sent() == 4);
}

TEST_CASE("transport: retries give up after max_attempts with the last answer") {
  TestServer server;
  TransportOptions o = fast();
  o.max_attempts = 3;
  Transport t(server.config("admin-cert"), o);
  server.control("faults", {{"kinds", {"503"}}, {"rate", 1.0}});
  CHECK(t.send({Method::Get, "/version"}).status == 503);
  CHECK(t.requests_sent() == 3);
}

TEST_CASE("transport: a refused connection fails at once, without retries") {
  std::vector<std::string> lines;
  TransportOptions o = fast();
  o.debug = [&](const std::string& l) { lines.push_back(l); };
  RestConfig refused;
  refused.server = "http://127.0.0.1:" + std::to_string(SilentPort::refusing());
  Transport t(refused, o);
  const std::string e = error_of([&] { t.send({Method::Get, "/api/v1/namespaces"}); });
  CHECK(e.rfind("4: GET http://127.0.0.1:", 0) == 0);
  CHECK(e.find("attempts") == std::string::npos);
  CHECK(t.requests_sent() == 1);
  CHECK(lines.size() == 1);
}

TEST_CASE("transport: the request timeout bounds the whole request, retries included") {
  // A hung server: the first attempt uses the whole deadline, so nothing is left to retry
  // with (before, each of max_attempts attempts had the full timeout).
  SilentPort hung;
  TransportOptions o = fast();
  o.request_timeout = std::chrono::milliseconds(300);
  Transport t(hung.config(), o);
  const std::string e = error_of([&] { t.send({Method::Get, "/api/v1/namespaces"}); });
  CHECK(e.rfind("4: GET http://127.0.0.1:" + std::to_string(hung.port()) + "/api/v1/namespaces: ",
                0) == 0);
  CHECK(t.requests_sent() == 1);
  // Retries stop when the next would start past the deadline, not only after max_attempts:
  // a 429's Retry-After of 1 s does not fit in 300 ms.
  TestServer server;
  Transport u(server.config("admin-cert"), o);
  server.control("faults", {{"kinds", {"429"}}, {"rate", 1.0}, {"retry_after", 1}});
  CHECK(u.send({Method::Get, "/version"}).status == 429);
  CHECK(u.requests_sent() == 1);
}

TEST_CASE("transport: --debug lines carry method, URL and status but no credentials") {
  TestServer server;
  std::vector<std::string> lines;
  TransportOptions o;
  o.debug = [&](const std::string& l) { lines.push_back(l); };
  Transport t(server.config("admin-token"), o);
  t.send({Method::Get, "/api/v1/namespaces/default"});
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("GET " + server.url() + "/api/v1/namespaces/default 200 in ", 0) == 0);
  CHECK(lines[0].find("admin-token") == std::string::npos);
}

TEST_CASE("transport: connections are reused") {
  TestServer server;
  Transport t(server.config("admin-cert"), {});
  for (int i = 0; i < 5; ++i) t.send({Method::Get, "/api/v1/namespaces"});
  // One TLS connection: the server saw all five requests come from the same client port.
  auto seen = server.requests();
  REQUIRE(seen.size() == 5);
  for (const auto& r : seen) CHECK(r["peer"] == seen[0]["peer"]);
}

TEST_CASE("transport: a new client certificate from the exec plugin gets a new connection") {
  TestServer server;
  const std::string plugin = server.dir() + "/plugin.sh";
  // Run 1 prints the viewer's certificate, later runs the admin's; each credential has expired
  // already, so every request runs the plugin again.
  write_file(plugin,
             "#!/bin/sh\n"
             "n=$(cat \"$0.count\" 2>/dev/null || echo 0); n=$((n+1)); echo $n > \"$0.count\"\n"
             "who=admin; [ $n = 1 ] && who=viewer\n"
             "python3 -c 'import json,sys; d=sys.argv[1]; print(json.dumps({\"apiVersion\": "
             "\"client.authentication.k8s.io/v1beta1\", \"kind\": \"ExecCredential\", "
             "\"status\": {\"clientCertificateData\": open(d + \".crt\").read(), "
             "\"clientKeyData\": open(d + \".key\").read(), \"expirationTimestamp\": "
             "\"2000-01-01T00:00:00Z\"}}))' \"$(dirname \"$0\")/$who\"\n");
  chmod(plugin.c_str(), 0755);
  RestConfig cfg = server.config("admin-token");
  cfg.token.clear();
  cfg.exec = ExecConfig{"client.authentication.k8s.io/v1beta1", plugin, {}, {}, "Never", true};
  Transport t(cfg, {});
  const std::string ns =
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"cert-change"}})";
  const Request create{Method::Post, "/api/v1/namespaces", ns, "application/json"};
  CHECK(t.send(create).status == 403);  // the viewer may not
  CHECK(t.send(create).status == 201);  // the admin's certificate, on a connection of its own
  CHECK(t.credentials().plugin_runs() == 2);
  auto seen = server.requests();
  REQUIRE(seen.size() == 2);
  CHECK(seen[0]["peer"] != seen[1]["peer"]);
}

TEST_CASE("transport: a client key that does not match the certificate is reported") {
  TestServer server;
  RestConfig cfg = server.config("admin-cert");
  cfg.client_key_pem = slurp(server.dir() + "/viewer.key");
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "4: TLS handshake with " + server.url() +
            " failed: cannot use the client key: error:05800074:x509 certificate routines::key "
            "values mismatch (check the client certificate and key of the credentials)");
  cfg.client_key_pem = "not a key";
  CHECK(error_of([&] { list_namespaces(cfg); }) ==
        "4: TLS handshake with " + server.url() +
            " failed: cannot read the client key: error:1E08010C:DECODER routines::unsupported "
            "(check the client certificate and key of the credentials)");
}

namespace {

constexpr const char* k_nghttpd = "/usr/sbin/nghttpd";

/// nghttpd (Debian's nghttp2-server), a real HTTP/2 server: TLS with ALPN h2 only, serving
/// `dir`/htdocs on 127.0.0.1 at a free port, its frame log (-v) in `dir`/nghttpd.log.
class Nghttpd {
 public:
  explicit Nghttpd(const std::string& dir) : m_log(dir + "/nghttpd.log") {
    if (access(k_nghttpd, X_OK) != 0)
      FAIL("nghttpd is missing (Debian package nghttp2-server): run ./dev.sh test");
    const std::string htdocs = dir + "/htdocs";
    mkdir(htdocs.c_str(), 0755);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, m_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<std::string> args = {
        "nghttpd",          "-v", "-a", "127.0.0.1", "-d", htdocs, "0", dir + "/server.key",
        dir + "/server.crt"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int rc = posix_spawn(&m_pid, k_nghttpd, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
    m_port = listening_port();
  }
  ~Nghttpd() {
    kill(m_pid, SIGTERM);
    int status = 0;
    waitpid(m_pid, &status, 0);
  }
  Nghttpd(const Nghttpd&) = delete;
  Nghttpd& operator=(const Nghttpd&) = delete;

  [[nodiscard]] int port() const { return m_port; }

  /// The connections nghttpd's log shows (each is "[id=N]").
  [[nodiscard]] std::set<std::string> connections() const {
    std::set<std::string> ids;
    std::istringstream log(slurp(m_log));
    for (std::string line; std::getline(log, line);)
      if (line.rfind("[id=", 0) == 0) ids.insert(line.substr(0, line.find(']') + 1));
    return ids;
  }

 private:
  /// The port of the process's listening socket: its socket inodes (/proc/PID/fd) looked up
  /// among the listening TCP sockets (/proc/net/tcp, state 0A). nghttpd does not print it.
  int listening_port() const {
    for (int attempt = 0; attempt < 500; ++attempt) {
      std::set<std::string> inodes;
      const std::string fds = "/proc/" + std::to_string(m_pid) + "/fd";
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(fds, ec)) {
        const std::string target = std::filesystem::read_symlink(e.path(), ec).string();
        if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
      }
      std::istringstream tcp(slurp("/proc/net/tcp"));
      for (std::string line; std::getline(tcp, line);) {
        std::istringstream fields(line);
        std::string sl, local, remote, state, queues, timer, retr, uid, timeout, inode;
        fields >> sl >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >>
            inode;
        if (state == "0A" && inodes.count(inode))
          return std::stoi(local.substr(local.find(':') + 1), nullptr, 16);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    FAIL("nghttpd did not start listening; its log: " + slurp(m_log));
    return 0;
  }

  std::string m_log;
  pid_t m_pid = -1;
  int m_port = 0;
};

}  // namespace

TEST_CASE("transport: HTTP/2 where the server offers it, both requests on one connection") {
  TestServer server;  // its PKI: ca.crt, server.crt (127.0.0.1) and server.key
  const std::string version = R"({"major": "1", "minor": "32", "gitVersion": "v1.32.0-h2"})";
  std::filesystem::create_directories(server.dir() + "/htdocs");
  write_file(server.dir() + "/htdocs/version", version);
  Nghttpd h2(server.dir());
  RestConfig cfg = server.config("admin-token");
  cfg.server = "https://127.0.0.1:" + std::to_string(h2.port());
  Transport t(cfg, {});
  for (int i = 0; i < 2; ++i) {
    const Response r = t.send({Method::Get, "/version"});
    CHECK(r.status == 200);
    CHECK(r.body == version);
    CHECK(r.version == HttpVersion::Http2);
  }
  CHECK(h2.connections() == std::set<std::string>{"[id=1]"});
  // The test API server offers only http/1.1 (ALPN), and the same transport code says so.
  Transport http1(server.config("admin-token"), {});
  CHECK(http1.send({Method::Get, "/version"}).version == HttpVersion::Http1_1);
}
