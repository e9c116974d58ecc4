#include "src/kubeapi/url_fetch.hpp"

#include <fcntl.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tests/kube/test_server.hpp"

using namespace ejob::kubeapi;
using ejob::testing::SilentPort;
using ejob::testing::TestServer;

extern char** environ;

namespace {

/// tests/kube/http_docs.py on 127.0.0.1 at a free port; it exits when its stdin closes, which
/// the destructor does before waiting for it.
class DocServer {
 public:
  DocServer() {
    int in[2];
    int out[2];
    REQUIRE(pipe2(in, O_CLOEXEC) == 0);
    REQUIRE(pipe2(out, O_CLOEXEC) == 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    std::string py = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    std::string script = std::string(EJOB_SOURCE_DIR) + "/tests/kube/http_docs.py";
    char* argv[] = {py.data(), script.data(), nullptr};
    const int rc = posix_spawnp(&m_pid, py.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    m_stdin = in[1];
    REQUIRE(rc == 0);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    m_port = nlohmann::json::parse(line).at("port").get<int>();
  }
  ~DocServer() {
    close(m_stdin);
    int status = 0;
    waitpid(m_pid, &status, 0);
  }
  DocServer(const DocServer&) = delete;
  DocServer& operator=(const DocServer&) = delete;

  [[nodiscard]] int port() const { return m_port; }
  [[nodiscard]] std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(m_port) + path;
  }

 private:
  pid_t m_pid = -1;
  int m_stdin = -1;
  int m_port = 0;
};

/// Options over an environment of exactly these variables (none of the runner's proxies).
UrlFetchOptions with_env(std::map<std::string, std::string> vars) {
  UrlFetchOptions o;
  o.env = Environment{};
  o.env->vars = std::move(vars);
  return o;
}

std::string error_of(const std::string& url, const UrlFetchOptions& options = with_env({})) {
  try {
    fetch_url(url, options);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

/// The name OpenSSL gives a certificate in a hashed directory (`openssl x509 -hash`).
std::string subject_hash(const std::string& pem_file) {
  FILE* f = std::fopen(pem_file.c_str(), "r");
  REQUIRE(f != nullptr);
  X509* cert = PEM_read_X509(f, nullptr, nullptr, nullptr);
  std::fclose(f);
  REQUIRE(cert != nullptr);
  char hash[9];
  std::snprintf(hash, sizeof hash, "%08lx", X509_subject_name_hash(cert));
  X509_free(cert);
  return hash;
}

const std::string k_schema =
    "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\"}\n";

}  // namespace

TEST_CASE("url_fetch: a 200's body (gzip-decoded), Go's request headers, ejob's User-Agent") {
  DocServer server;
  CHECK(fetch_url(server.url("/schema.json"), with_env({})) == k_schema);
  const auto seen = nlohmann::json::parse(fetch_url(server.url("/headers"), with_env({})));
  CHECK(seen.at("user-agent") == "ejob/0.1.0");
  CHECK(seen.at("accept-encoding") == "gzip");
  CHECK_FALSE(seen.contains("accept"));
}

TEST_CASE("url_fetch: another status is Helm's error with Go's status text") {
  DocServer server;
  CHECK(error_of(server.url("/missing.json")) ==
        "HTTP request to " + server.url("/missing.json") + " returned status 404 (Not Found)");
  CHECK(error_of(server.url("/teapot")) ==
        "HTTP request to " + server.url("/teapot") + " returned status 418 (I'm a teapot)");
  // Go returns a redirect without a Location as the answer.
  CHECK(error_of(server.url("/no-location")) ==
        "HTTP request to " + server.url("/no-location") + " returned status 302 (Found)");
}

TEST_CASE("url_fetch: a refused connection is Go's dial error") {
  const std::string url = "http://127.0.0.1:" + std::to_string(SilentPort::refusing()) + "/x.json";
  const std::string port = url.substr(17, url.find('/', 17) - 17);
  CHECK(error_of(url) == "HTTP request failed for " + url + ": Get \"" + url +
                             "\": dial tcp 127.0.0.1:" + port + ": connect: connection refused");
}

TEST_CASE("url_fetch: redirects are followed as Go's client does, the 10th fails") {
  DocServer server;
  CHECK(fetch_url(server.url("/hops/1"), with_env({})) == "{\"hops\": 0}");
  CHECK(fetch_url(server.url("/hops/9"), with_env({})) == "{\"hops\": 0}");
  CHECK(error_of(server.url("/hops/10")) == "HTTP request failed for " + server.url("/hops/10") +
                                                ": Get \"/hops/0\": stopped after 10 redirects");
  CHECK(error_of(server.url("/to-ftp")) == "HTTP request failed for " + server.url("/to-ftp") +
                                               ": Get \"ftp://127.0.0.1/x\": unsupported "
                                               "protocol scheme \"ftp\"");
}

TEST_CASE("url_fetch: the timeout covers the head and the body, in Go's words") {
  DocServer server;
  UrlFetchOptions o = with_env({});
  o.timeout = std::chrono::milliseconds(300);
  CHECK(error_of(server.url("/slow-head"), o) ==
        "HTTP request failed for " + server.url("/slow-head") + ": Get \"" +
            server.url("/slow-head") +
            "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)");
  CHECK(error_of(server.url("/slow-body"), o) ==
        "context deadline exceeded (Client.Timeout or context cancellation while reading body)");
}

TEST_CASE("url_fetch: a body cut short is the JSON decoder's error, as Helm's loader returns it") {
  DocServer server;
  CHECK(error_of(server.url("/short-body")) == "unexpected EOF");
}

TEST_CASE("url_fetch: https trusts the system's CAs, or SSL_CERT_FILE's as Go does") {
  TestServer server;  // TLS with a certificate of its own CA (ca.crt) for 127.0.0.1
  const std::string url = server.url() + "/version";
  const auto version = nlohmann::json::parse(
      fetch_url(url, with_env({{"SSL_CERT_FILE", server.dir() + "/ca.crt"}})));
  CHECK(version.contains("gitVersion"));
  CHECK(error_of(url) == "HTTP request failed for " + url + ": Get \"" + url +
                             "\": tls: failed to verify certificate: x509: certificate signed by "
                             "unknown authority");
  // A directory of certificates named by their subject's hash, as OpenSSL looks them up.
  const std::string dir = server.dir() + "/certs";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(server.dir() + "/ca.crt",
                             dir + "/" + subject_hash(server.dir() + "/ca.crt") + ".0");
  CHECK(fetch_url(url, with_env({{"SSL_CERT_DIR", dir}})) ==
        fetch_url(url, with_env({{"SSL_CERT_FILE", server.dir() + "/ca.crt"}})));
  // Plain HTTP to it: the server closes the connection without an answer.
  const std::string plain = "http" + url.substr(5);
  CHECK(error_of(plain) == "HTTP request failed for " + plain + ": Get \"" + plain + "\": EOF");
}

TEST_CASE("url_fetch: a body past the limit is refused") {
  DocServer server;
  UrlFetchOptions o = with_env({});
  o.max_body = std::size_t{2} << 20;
  CHECK(fetch_url(server.url("/big/2097152"), o).size() == 2097152);
  CHECK(error_of(server.url("/big/2097153"), o) ==
        "HTTP request failed for " + server.url("/big/2097153") + ": Get \"" +
            server.url("/big/2097153") +
            "\": the body is larger than 2 MiB, as much as ejob reads of a schema document");
}

TEST_CASE("url_fetch: proxies from the environment as Go picks them") {
  DocServer proxy;
  const std::string refusing = "http://127.0.0.1:" + std::to_string(SilentPort::refusing());
  const std::string remote = "http://schemas.example.invalid/a.json";
  const std::string proxied = "{\"proxied\": \"schemas.example.invalid/a.json\"}";
  CHECK(fetch_url(remote, with_env({{"HTTP_PROXY", proxy.url("")}})) == proxied);
  CHECK(fetch_url(remote, with_env({{"http_proxy", proxy.url("")}})) == proxied);
  // Go reads HTTP_PROXY first; an empty one counts as unset.
  CHECK(fetch_url(remote, with_env({{"HTTP_PROXY", proxy.url("")}, {"http_proxy", refusing}})) ==
        proxied);
  CHECK(fetch_url(remote, with_env({{"HTTP_PROXY", ""}, {"http_proxy", proxy.url("")}})) ==
        proxied);
  // Loopback hosts never go through the proxy; NO_PROXY names the others.
  DocServer server;
  CHECK(fetch_url(server.url("/schema.json"), with_env({{"HTTP_PROXY", refusing}})) == k_schema);
  CHECK(fetch_url("http://localhost:" + std::to_string(server.port()) + "/schema.json",
                  with_env({{"HTTP_PROXY", refusing}})) == k_schema);
  CHECK(error_of(remote,
                 with_env({{"HTTP_PROXY", proxy.url("")}, {"NO_PROXY", "example.invalid"}})) ==
        "HTTP request failed for " + remote + ": Get \"" + remote +
            "\": dial tcp: lookup schemas.example.invalid: no such host");
  CHECK(error_of(remote, with_env({{"HTTP_PROXY", refusing}})) ==
        "HTTP request failed for " + remote + ": Get \"" + remote +
            "\": proxyconnect tcp: dial tcp " + refusing.substr(7) +
            ": connect: connection refused");
  // https uses HTTPS_PROXY (a CONNECT tunnel) and never HTTP_PROXY.
  const std::string secure = "https://schemas.example.invalid/a.json";
  CHECK(error_of(secure, with_env({{"HTTPS_PROXY", refusing}})) ==
        "HTTP request failed for " + secure + ": Get \"" + secure +
            "\": proxyconnect tcp: dial tcp " + refusing.substr(7) +
            ": connect: connection refused");
  CHECK(error_of(secure, with_env({{"HTTP_PROXY", refusing}})) ==
        "HTTP request failed for " + secure + ": Get \"" + secure +
            "\": dial tcp: lookup schemas.example.invalid: no such host");
  // A CGI program (REQUEST_METHOD set) must not trust HTTP_PROXY, which a request can set.
  CHECK(error_of(remote, with_env({{"HTTP_PROXY", proxy.url("")}, {"REQUEST_METHOD", "GET"}})) ==
        "HTTP request failed for " + remote + ": Get \"" + remote +
            "\": refusing to use HTTP_PROXY value in CGI environment; see "
            "golang.org/s/cgihttpproxy");
}

TEST_CASE("url_fetch: a URL that does not parse is Helm's request error") {
  CHECK(error_of("http://[bad/x.json")
            .rfind("failed to create HTTP request for http://[bad/x.json: parse "
                   "\"http://[bad/x.json\": ",
                   0) == 0);
}

TEST_CASE("url_fetch: Go's status texts") {
  CHECK(go_status_text(200) == "OK");
  CHECK(go_status_text(103) == "Early Hints");
  CHECK(go_status_text(413) == "Request Entity Too Large");
  CHECK(go_status_text(425) == "Too Early");
  CHECK(go_status_text(511) == "Network Authentication Required");
  CHECK(go_status_text(306).empty());
  CHECK(go_status_text(599).empty());
}
