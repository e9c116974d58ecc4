#include "src/agent/store/tcp_store_client.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "src/agent/store/tcp_store_wire.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using namespace tcp_store;
using Clock = std::chrono::steady_clock;

/// One connection attempt to any address of host:port; -1 with errno set when all fail.
int try_connect(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0) {
    errno = EHOSTUNREACH;
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = res; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd >= 0 && ::connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      int saved = errno;
      ::close(fd);
      fd = -1;
      errno = saved;
    }
  }
  ::freeaddrinfo(res);
  return fd;
}

std::string with_slash(const std::string& key) { return "/" + key; }

}  // namespace

TcpStoreClient::TcpStoreClient(std::string host, int port, std::chrono::milliseconds timeout,
                               Dialect dialect)
    : m_host(std::move(host)), m_port(port), m_timeout(timeout), m_dialect(dialect) {
  connect();
}

std::string TcpStoreClient::query(Query q) const {
  auto code = query_code(m_dialect, q);
  if (!code)
    throw Error(ErrorCode::Input, "TCPStore " + endpoint() + ": this query is not part of torch " +
                                      (m_dialect == Dialect::Torch1 ? "1.13" : "2.x") +
                                      "'s store protocol");
  return std::string(1, static_cast<char>(*code));
}

/// torch 2.x's opening: VALIDATE with the magic, then PING with a nonce the server echoes.
void TcpStoreClient::handshake() {
  std::string m = query(Query::Validate);
  put_u32(m, k_validate_magic);
  auto nonce = static_cast<std::uint32_t>(::getpid()) ^
               static_cast<std::uint32_t>(Clock::now().time_since_epoch().count());
  m += query(Query::Ping);
  put_u32(m, nonce);
  send(m, "validate");
  std::string echo = receive(4, "ping");
  if (*WireReader(echo).u32() != nonce)
    fail("ping", "the server echoed another number (is it a torch 2.x TCPStore?)");
}

TcpStoreClient::~TcpStoreClient() { close(); }

std::string TcpStoreClient::endpoint() const { return m_host + ":" + std::to_string(m_port); }

void TcpStoreClient::fail(const std::string& what, const std::string& why) {
  close();  // the stream may hold half a reply: never reuse it
  throw Error(ErrorCode::Transport, "TCPStore " + endpoint() + ": " + what + ": " + why);
}

/// As torch: refused or reset connections are retried every second until the timeout.
void TcpStoreClient::connect() {
  if (m_lost)
    throw Error(ErrorCode::Transport, "TCPStore " + endpoint() +
                                          ": the store closed the connection earlier (has the "
                                          "agent hosting it ended?)");
  auto deadline = Clock::now() + m_timeout;
  // torch retries every second; a store that is a moment from listening (its agent started
  // beside this one) is found sooner from 10 ms doubling to that second.
  std::chrono::milliseconds pause{10};
  while (true) {
    m_fd = try_connect(m_host, m_port);
    if (m_fd >= 0) break;
    int err = errno;
    if ((err != ECONNREFUSED && err != ECONNRESET && err != EHOSTUNREACH) ||
        Clock::now() + pause > deadline)
      throw Error(ErrorCode::Transport,
                  "TCPStore " + endpoint() + ": cannot connect: " + std::strerror(err));
    std::this_thread::sleep_for(pause);
    pause = std::min<std::chrono::milliseconds>(pause * 2, std::chrono::seconds(1));
  }
  int one = 1;
  ::setsockopt(m_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (m_dialect == Dialect::Torch2) handshake();
}

void TcpStoreClient::close() {
  if (m_fd >= 0) ::close(m_fd);
  m_fd = -1;
  m_in.clear();  // half a reply of the old connection
  m_in_at = 0;
}

void TcpStoreClient::set_timeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }

void TcpStoreClient::send(const std::string& bytes, const std::string& what) {
  if (m_fd < 0) connect();
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::send(m_fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      m_lost = errno == EPIPE || errno == ECONNRESET;
      fail(what, std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
}

/// Replies are taken from what one recv() brought in: a watch event or a reply of three fields
/// costs one poll and one recv instead of two of each per field (at 128 agents, every state
/// change sends each of them an event).
std::string TcpStoreClient::receive(std::size_t n, const std::string& what) {
  auto deadline = Clock::now() + m_timeout;
  while (m_in.size() - m_in_at < n) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    pollfd p{m_fd, POLLIN, 0};
    int ready = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(left.count())) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      close();
      throw Error(ErrorCode::Timeout, "TCPStore " + endpoint() + ": " + what +
                                          ": no reply within " +
                                          std::to_string(m_timeout.count() / 1000.0) + " s");
    }
    fill(what);
  }
  std::string out = m_in.substr(m_in_at, n);
  m_in_at += n;
  if (m_in_at == m_in.size()) {
    m_in.clear();
    m_in_at = 0;
  }
  return out;
}

/// Appends what the socket holds, up to 64 KiB (one recv, after poll said it is readable).
void TcpStoreClient::fill(const std::string& what) {
  if (m_in_at > 0) {
    m_in.erase(0, m_in_at);
    m_in_at = 0;
  }
  char buf[65536];
  ssize_t got = ::recv(m_fd, buf, sizeof buf, MSG_DONTWAIT);
  if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
  if (got <= 0) {
    m_lost = got == 0 || errno == ECONNRESET;
    fail(what, got == 0 ? "the server closed the connection" : std::strerror(errno));
  }
  m_in.append(buf, static_cast<std::size_t>(got));
}

std::int64_t TcpStoreClient::receive_i64(const std::string& what) {
  std::string raw = receive(8, what);
  return *WireReader(raw).i64();
}

std::string TcpStoreClient::receive_bytes(const std::string& what) {
  auto n = static_cast<std::uint64_t>(receive_i64(what));
  if (n > k_max_bytes) fail(what, "the server sent a length of " + std::to_string(n) + " bytes");
  return receive(static_cast<std::size_t>(n), what);
}

void TcpStoreClient::set(const std::string& key, const std::string& value) {
  std::string m = query(Query::Set);
  put_bytes(m, with_slash(key));
  put_bytes(m, value);
  send(m, "set " + key);
}

std::string TcpStoreClient::get(const std::string& key) {
  wait({key}, m_timeout);
  return get_existing(key);
}

std::string TcpStoreClient::get_existing(const std::string& key) {
  std::string m = query(Query::Get);
  put_bytes(m, with_slash(key));
  send(m, "get " + key);
  return receive_bytes("get " + key);
}

std::int64_t TcpStoreClient::add(const std::string& key, std::int64_t delta) {
  std::string m = query(Query::Add);
  put_bytes(m, with_slash(key));
  put_i64(m, delta);
  send(m, "add " + key);
  return receive_i64("add " + key);
}

std::string TcpStoreClient::compare_set(const std::string& key, const std::string& expected,
                                        const std::string& desired) {
  std::string m = query(Query::CompareSet);
  put_bytes(m, with_slash(key));
  put_bytes(m, expected);
  put_bytes(m, desired);
  send(m, "compare_set " + key);
  return receive_bytes("compare_set " + key);
}

bool TcpStoreClient::check(const std::vector<std::string>& keys) {
  std::string m = query(Query::Check);
  put_i64(m, static_cast<std::int64_t>(keys.size()));
  for (const auto& k : keys) put_bytes(m, with_slash(k));
  send(m, "check");
  std::string status = receive(1, "check");
  if (status[0] != static_cast<char>(Status::Ready) &&
      status[0] != static_cast<char>(Status::NotReady))
    fail("check", "unexpected reply byte " + std::to_string(status[0]));
  return status[0] == static_cast<char>(Status::Ready);
}

void TcpStoreClient::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::string names;
  for (const auto& k : keys) names += (names.empty() ? "" : ", ") + k;
  std::string m = query(Query::Wait);
  put_i64(m, static_cast<std::int64_t>(keys.size()));
  for (const auto& k : keys) put_bytes(m, with_slash(k));
  send(m, "wait for " + names);
  auto saved = m_timeout;
  m_timeout = timeout;
  std::string status;
  try {
    status = receive(1, "wait for " + names);
  } catch (...) {
    m_timeout = saved;
    throw;  // receive() closed the connection: a late STOP_WAITING cannot confuse the next reply
  }
  m_timeout = saved;
  if (status[0] != static_cast<char>(Status::StopWaiting))
    fail("wait for " + names, "unexpected reply byte " + std::to_string(status[0]));
}

void TcpStoreClient::watch_key(const std::string& key) {
  std::string m = query(Query::WatchKey);
  put_bytes(m, with_slash(key));
  send(m, "watch " + key);
  if (receive(1, "watch " + key)[0] != static_cast<char>(Status::CallbackRegistered))
    fail("watch " + key, "the server did not register the watch");
}

bool TcpStoreClient::readable(std::chrono::milliseconds timeout) {
  if (m_fd < 0) fail("watch", "the connection is closed");
  if (m_in_at < m_in.size()) return true;
  pollfd p{m_fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(timeout.count())) > 0;
}

std::string TcpStoreClient::next_event() {
  receive(1, "watch event");
  receive_bytes("watch event");  // the key
  receive_bytes("watch event");  // the old value
  return receive_bytes("watch event");
}

void TcpStoreClient::multi_set(const std::vector<std::pair<std::string, std::string>>& pairs) {
  if (m_dialect == Dialect::Torch1) {
    for (const auto& [k, v] : pairs) set(k, v);
    return;
  }
  std::string m = query(Query::MultiSet);
  put_i64(m, static_cast<std::int64_t>(pairs.size()));
  for (const auto& [k, v] : pairs) {
    put_bytes(m, with_slash(k));
    put_bytes(m, v);
  }
  send(m, "multi_set");
}

std::vector<std::string> TcpStoreClient::multi_get(const std::vector<std::string>& keys) {
  std::vector<std::string> values;
  wait(keys, m_timeout);
  std::string m;
  if (m_dialect == Dialect::Torch1) {
    // 1.13 has no MULTI_GET: one GET per key, all sent at once (the server answers a
    // connection's queries in order), so that a round of N agents costs each one round trip
    // and not N.
    for (const auto& k : keys) {
      m += query(Query::Get);
      put_bytes(m, with_slash(k));
    }
  } else {
    m = query(Query::MultiGet);
    put_i64(m, static_cast<std::int64_t>(keys.size()));
    for (const auto& k : keys) put_bytes(m, with_slash(k));
  }
  send(m, "multi_get");
  for (const auto& k : keys) values.push_back(receive_bytes("multi_get " + k));
  return values;
}

std::int64_t TcpStoreClient::num_keys() {
  send(query(Query::GetNumKeys), "num_keys");
  return receive_i64("num_keys");
}

bool TcpStoreClient::delete_key(const std::string& key) {
  std::string m = query(Query::DeleteKey);
  put_bytes(m, with_slash(key));
  send(m, "delete " + key);
  return receive_i64("delete " + key) == 1;
}

}  // namespace ejob::agent
