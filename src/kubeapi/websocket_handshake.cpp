// The WebSocket opening handshake: a curl connection with the cluster's TLS settings
// (CURLOPT_CONNECT_ONLY: TCP, proxy tunnel and TLS only), then our own HTTP/1.1 upgrade.

#include <poll.h>

#include <algorithm>
#include <map>

#include "ejob/kubeapi/api_error.hpp"
#include "ejob/kubeapi/websocket.hpp"
#include "ejob/kubeapi/websocket_impl.hpp"
#include "ejob/util/error.hpp"

namespace ejob::kubeapi {
namespace {

constexpr std::size_t k_max_head = 64u << 10;
constexpr std::size_t k_max_error_body = 1u << 20;

/// curl_global_init before the first curl call (Transport initialises libcurl only with its
/// first request, which may not have happened yet).
void ensure_curl() {
  static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)init;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return std::string(s);
}

void set_blob(CURL* h, CURLoption opt, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(h, opt, &blob);
}

bool is_tls_failure(CURLcode c) {
  return c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CACERT_BADFILE ||
         c == CURLE_SSL_CERTPROBLEM || c == CURLE_SSL_CONNECT_ERROR;
}

/// Where curl connects: the URL (with the tls-server-name as host when one is set, as
/// Transport does, so SNI and verification use it), the CONNECT_TO entry that sends that name
/// to the server's address, and the Host header.
struct Route {
  std::string url;
  std::string connect_to;
  std::string host_header;
};

struct UrlFree {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
struct CurlStringFree {
  void operator()(char* p) const { curl_free(p); }
};
struct SlistFree {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using CurlString = std::unique_ptr<char, CurlStringFree>;

/// A part of a URL (host, port) as curl parses it; empty when absent or malformed.
std::string url_part(const std::string& url, CURLUPart part) {
  std::unique_ptr<CURLU, UrlFree> u(curl_url());
  char* text = nullptr;
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return {};
  curl_url_get(u.get(), part, &text, CURLU_DEFAULT_PORT);
  const CurlString owned(text);
  return owned ? std::string(owned.get()) : std::string();
}

Route route_for(const RestConfig& cfg) {
  Route r{cfg.server, "", ""};
  const std::string host = url_part(cfg.server, CURLUPART_HOST);
  const std::string port = url_part(cfg.server, CURLUPART_PORT);
  if (host.empty() || port.empty()) return r;
  r.host_header = host + ":" + port;
  if (!cfg.tls_server_name.empty()) {
    r.connect_to = cfg.tls_server_name + ":" + port + ":" + host + ":" + port;
    r.url = "https://" + cfg.tls_server_name + ":" + port;
    r.host_header = cfg.tls_server_name + ":" + port;
  }
  return r;
}

/// The TLS and proxy settings of the cluster, as Transport sets them for its requests.
void configure_tls(CURL* h, const RestConfig& cfg, const AuthMaterial& auth) {
  if (!cfg.ca_pem.empty()) set_blob(h, CURLOPT_CAINFO_BLOB, cfg.ca_pem);
  if (cfg.insecure) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (!auth.client_cert_pem.empty()) {
    set_blob(h, CURLOPT_SSLCERT_BLOB, auth.client_cert_pem);
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    set_blob(h, CURLOPT_SSLKEY_BLOB, auth.client_key_pem);
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
  }
  if (!cfg.proxy_url.empty()) {
    curl_easy_setopt(h, CURLOPT_PROXY, cfg.proxy_url.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
  }
}

/// Connects (TCP, proxy, TLS) as Transport would for a request to this server.
std::unique_ptr<WebSocket::Impl> connect(const RestConfig& cfg, const AuthMaterial& auth,
                                         const Route& route, const std::string& target) {
  auto s = std::make_unique<WebSocket::Impl>();
  s->server = cfg.server;
  s->easy.reset(curl_easy_init());
  CURL* h = s->easy.get();
  if (!h) throw Error(ErrorCode::Internal, "curl_easy_init failed");
  curl_easy_setopt(h, CURLOPT_URL, route.url.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(k_websocket_handshake_timeout.count()));
  configure_tls(h, cfg, auth);
  std::unique_ptr<curl_slist, SlistFree> connect_to;
  if (!route.connect_to.empty()) {
    connect_to.reset(curl_slist_append(nullptr, route.connect_to.c_str()));
    curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to.get());
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
  const CURLcode rc = curl_easy_perform(h);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  if (rc != CURLE_OK) {
    const std::string why = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    if (is_tls_failure(rc))
      throw Error(ErrorCode::Transport, "TLS handshake with " + cfg.server + " failed: " + why +
                                            " (check certificate-authority in the kubeconfig)");
    throw Error(ErrorCode::Transport, "GET " + cfg.server + target + ": " + why);
  }
  curl_socket_t sock = CURL_SOCKET_BAD;
  curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &sock);
  if (sock == CURL_SOCKET_BAD)
    throw Error(ErrorCode::Internal, "curl has no socket for " + cfg.server);
  s->sock = static_cast<int>(sock);
  return s;
}

/// The parsed answer to the upgrade request.
struct Head {
  long status = 0;
  std::map<std::string, std::string> headers;  ///< lower-case names
};

/// Reads until the end of the response head, keeping what follows it in s.in.
Head read_head(WebSocket::Impl& s, Clock::time_point deadline, const std::string& where) {
  std::size_t end;
  while ((end = s.in.find("\r\n\r\n")) == std::string::npos) {
    if (s.in.size() > k_max_head)
      throw Error(ErrorCode::Transport, where + ": answer head too long");
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    short revents = 0;
    if (left.count() <= 0 || !s.wait(POLLIN, static_cast<int>(left.count()), revents))
      throw Error(ErrorCode::Transport, where + ": no answer to the WebSocket upgrade in time");
    if (!s.pull()) throw Error(ErrorCode::Transport, where + ": the server closed the connection");
  }
  const std::string text = s.in.substr(0, end);
  s.in.erase(0, end + 4);
  Head head;
  std::size_t pos = text.find("\r\n");
  const std::string status_line = text.substr(0, pos);
  if (status_line.rfind("HTTP/1.", 0) != 0 || status_line.size() < 12)
    throw Error(ErrorCode::Transport, where + ": not an HTTP answer: " + status_line.substr(0, 80));
  head.status = std::strtol(status_line.c_str() + 9, nullptr, 10);
  while (pos != std::string::npos) {
    const std::size_t next = text.find("\r\n", pos + 2);
    const std::string line =
        text.substr(pos + 2, next == std::string::npos ? next : next - pos - 2);
    if (const std::size_t colon = line.find(':'); colon != std::string::npos)
      head.headers[lower(trim(line.substr(0, colon)))] =
          trim(std::string_view(line).substr(colon + 1));
    pos = next;
  }
  return head;
}

/// Reads the body of a non-101 answer (Content-Length, else until the connection ends).
std::string read_body(WebSocket::Impl& s, const Head& head, Clock::time_point deadline) {
  std::size_t want = k_max_error_body;
  if (auto it = head.headers.find("content-length"); it != head.headers.end())
    want = std::min<std::size_t>(std::strtoul(it->second.c_str(), nullptr, 10), k_max_error_body);
  while (s.in.size() < want && !s.eof) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    short revents = 0;
    if (left.count() <= 0 || !s.wait(POLLIN, static_cast<int>(left.count()), revents)) break;
    if (!s.pull()) s.eof = true;
  }
  return s.in.substr(0, std::min(want, s.in.size()));
}

bool has_token(const std::string& value, const std::string& token) {
  const std::string v = lower(value);
  std::size_t start = 0;
  while (start <= v.size()) {
    std::size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    if (trim(std::string_view(v).substr(start, comma - start)) == token) return true;
    start = comma + 1;
  }
  return false;
}

/// Checks a 101 answer; returns the chosen subprotocol.
std::string check_upgrade(const Head& head, const std::string& key,
                          const std::vector<std::string>& protocols, const std::string& where) {
  const auto header = [&](const std::string& name) {
    auto it = head.headers.find(name);
    return it == head.headers.end() ? std::string() : it->second;
  };
  if (lower(header("upgrade")) != "websocket" || !has_token(header("connection"), "upgrade"))
    throw Error(ErrorCode::Transport,
                where + ": the server answered 101 without upgrading to WebSocket");
  if (header("sec-websocket-accept") != websocket_accept(key))
    throw Error(ErrorCode::Transport, where + ": wrong Sec-WebSocket-Accept in the answer");
  std::string chosen = header("sec-websocket-protocol");
  if (!chosen.empty() && std::find(protocols.begin(), protocols.end(), chosen) == protocols.end())
    throw Error(ErrorCode::Transport,
                where + ": the server chose subprotocol " + chosen + ", which was not offered");
  return chosen;
}

std::string upgrade_request(const std::string& target, const Route& route, const std::string& key,
                            const std::vector<std::string>& protocols, const AuthMaterial& auth) {
  std::string req = "GET " + target + " HTTP/1.1\r\nHost: " + route.host_header +
                    "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                    "\r\nSec-WebSocket-Version: 13\r\nUser-Agent: ejob/0.1.0\r\n";
  if (!protocols.empty()) {
    req += "Sec-WebSocket-Protocol: ";
    for (std::size_t i = 0; i < protocols.size(); ++i) req += (i ? ", " : "") + protocols[i];
    req += "\r\n";
  }
  if (!auth.authorization.empty()) req += "Authorization: " + auth.authorization + "\r\n";
  return req + "\r\n";
}

}  // namespace

std::unique_ptr<WebSocket> WebSocket::open(Transport& transport, const std::string& target,
                                           const std::vector<std::string>& protocols) {
  ensure_curl();
  const RestConfig& cfg = transport.config();
  const Route route = route_for(cfg);
  const std::string where = "GET " + cfg.server + target;
  for (int attempt = 0;; ++attempt) {
    const AuthMaterial auth = transport.credentials().current();
    const auto deadline = Clock::now() + k_websocket_handshake_timeout;
    std::unique_ptr<Impl> s = connect(cfg, auth, route, target);
    const std::string key = base64_encode(random_bytes(16));
    s->send_raw(upgrade_request(target, route, key, protocols, auth));
    const Head head = read_head(*s, deadline, where);
    if (head.status == 101) {
      s->protocol = check_upgrade(head, key, protocols, where);
      return std::unique_ptr<WebSocket>(new WebSocket(std::move(s)));
    }
    const std::string body = read_body(*s, head, deadline);
    // As Transport: one more try after a 401 when the credentials can change.
    if (head.status == 401 && attempt == 0 && transport.credentials().refresh()) continue;
    throw error_from_status(head.status, body);
  }
}

}  // namespace ejob::kubeapi
