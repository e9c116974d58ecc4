// The WebSocket opening handshake: a connection from the Transport (TCP, proxy tunnel and TLS
// with the cluster's settings), then our own HTTP/1.1 upgrade on it.

#include <poll.h>

#include <algorithm>
#include <map>

#include "src/kubeapi/api_error.hpp"
#include "src/kubeapi/websocket.hpp"
#include "src/kubeapi/websocket_impl.hpp"
#include "src/util/base64.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

constexpr std::size_t k_max_head = 64u << 10;
constexpr std::size_t k_max_error_body = 1u << 20;

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

std::string upgrade_request(const RawConnection& conn, const std::string& target,
                            const std::string& key, const std::vector<std::string>& protocols) {
  std::string req = conn.request_head("GET", target) +
                    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key +
                    "\r\nSec-WebSocket-Version: 13\r\n";
  if (!protocols.empty()) {
    req += "Sec-WebSocket-Protocol: ";
    for (std::size_t i = 0; i < protocols.size(); ++i) req += (i ? ", " : "") + protocols[i];
    req += "\r\n";
  }
  return req + "\r\n";
}

}  // namespace

std::unique_ptr<WebSocket> WebSocket::open(Transport& transport, const std::string& target,
                                           const std::vector<std::string>& protocols) {
  const std::string where = "GET " + transport.config().server + target;
  for (int attempt = 0;; ++attempt) {
    const auto deadline = Clock::now() + k_websocket_handshake_timeout;
    auto s = std::make_unique<Impl>();
    s->server = transport.config().server;
    s->conn = transport.connect(target, k_websocket_handshake_timeout);
    s->sock = s->conn->socket();
    const std::string key = base64_encode(random_bytes(16));
    s->send_raw(upgrade_request(*s->conn, target, key, protocols));
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
