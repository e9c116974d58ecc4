#include "src/agent/store/tcp_store_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/store/tcp_store_wire.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using namespace tcp_store;

/// Binds and listens this many times at most when only the listen fails (see listen_wildcard).
constexpr int k_listen_attempts = 20;

/// Binds a non-blocking listening socket of `family` on the wildcard address; -1 with errno,
/// and `at_listen` set when bind() passed and listen() failed.
int bind_wildcard(int family, int port, bool& at_listen) {
  at_listen = false;
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1, zero = 0;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_storage ss{};
  socklen_t len = 0;
  if (family == AF_INET6) {
    ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    auto* a = reinterpret_cast<sockaddr_in6*>(&ss);
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_any;
    a->sin6_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof *a;
  } else {
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_ANY);
    a->sin_port = htons(static_cast<std::uint16_t>(port));
    len = sizeof *a;
  }
  bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&ss), len) == 0;
  if (!bound || ::listen(fd, 2048) != 0) {
    int err = errno;
    ::close(fd);
    errno = err;
    at_listen = bound;
    return -1;
  }
  return fd;
}

/// A listening socket on `::` (dual-stack), else on `0.0.0.0` when IPv6 is unavailable.
/// Agents started together on one machine may all bind the port (SO_REUSEADDR lets sockets
/// that do not listen yet share it) and then all fail to listen, each seeing the others' bound
/// socket — and nobody hosts (1 start in 7 here). A failed listen is retried after a random
/// pause of a few ms, once the others closed theirs; a failed bind means another socket
/// listens there. -1 with errno when it cannot listen.
int listen_wildcard(int port, int& bound_port) {
  std::mt19937 rng(std::random_device{}());
  int fd = -1;
  for (int attempt = 0; attempt < k_listen_attempts; ++attempt) {
    bool at_listen = false;
    fd = bind_wildcard(AF_INET6, port, at_listen);
    if (fd < 0 && errno != EADDRINUSE) fd = bind_wildcard(AF_INET, port, at_listen);
    if (fd >= 0 || !at_listen) break;
    std::this_thread::sleep_for(
        std::chrono::microseconds(std::uniform_int_distribution<int>(1000, 10000)(rng)));
  }
  if (fd < 0) return -1;
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len);
  bound_port = ss.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port)
                                        : ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return fd;
}

/// A client connection: bytes received but not yet a whole command, bytes to send.
struct Connection {
  std::uint64_t id = 0;            ///< StoreObserver's number
  std::string peer;                ///< `address:port`, for messages
  std::optional<Dialect> dialect;  ///< known once its first bytes arrived
  bool wants_out = false;          ///< registered for EPOLLOUT (bytes wait for room)
  std::string in;
  std::string out;
};

std::string peer_name(const sockaddr_storage& ss) {
  char text[INET6_ADDRSTRLEN] = {};
  int port = 0;
  if (ss.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&ss);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  } else {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&ss);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  }
  return std::string(text) + ":" + std::to_string(port);
}

/// A WAIT not yet answered: which connection, how many keys still missing.
struct Waiter {
  int fd;
  std::size_t missing;
};

}  // namespace

struct TcpStoreServer::Loop {
  int listen_fd = -1;
  int wake_fd = -1;
  int clear_fd = -1;  ///< readable: clear() asks for the keys to be dropped
  int epoll_fd = -1;
  int port = 0;
  std::mutex clear_mutex;
  std::condition_variable clear_done;
  std::uint64_t clears = 0;  ///< clear requests served, under clear_mutex
  std::thread thread;
  std::atomic<std::size_t> connection_count{0};  ///< read by wait_until_idle
  std::map<int, Connection> connections;
  std::map<std::string, std::string> data;
  std::multimap<std::string, std::shared_ptr<Waiter>> waiters;  ///< by missing key
  std::multimap<std::string, int> watchers;                     ///< WATCH_KEY: key -> fd
  std::set<int> unsent;  ///< connections given bytes to send since the last flush
  StoreObserver* observer = nullptr;
  std::uint64_t accepted = 0;   ///< connections accepted so far (the last one's id)
  std::uint64_t writer = 0;     ///< the id of the connection whose command runs
  bool merge_attempts = false;  ///< for_workers(): keys of every `/worker/attempt_N` are one

  std::optional<std::string> read_key(WireReader& r) const;

  void run();
  void accept_all();
  void read_from(int fd);
  void write_to(int fd);
  void drop(int fd);
  bool dialect_known(int fd);
  bool handle(int fd, WireReader& r, Query q);
  bool handle_torch2(int fd, WireReader& r, Query q);
  void key_created(const std::string& key);
  void notify(const std::string& key, WatchEvent e, const std::string& old_v,
              const std::string& new_v);
  void store(const std::string& key, const std::string& value);
  /// The bytes a connection is to be sent; the next flush sends them.
  std::string& out(int fd) {
    unsent.insert(fd);
    return connections[fd].out;
  }
  void reply_bytes(int fd, const std::string& v) { put_bytes(out(fd), v); }
  void reply_i64(int fd, std::int64_t v) { put_i64(out(fd), v); }
  void reply_byte(int fd, std::uint8_t b) { out(fd).push_back(static_cast<char>(b)); }
  void watch(int fd, std::uint32_t events);
  void serve(int fd, std::uint32_t events);
  void flush();
  bool op_wait(int fd, WireReader& r, bool blocking);
  bool op_compare_set(int fd, WireReader& r);
  bool op_add(int fd, WireReader& r);
  bool op_multi_get(int fd, WireReader& r);
  bool op_multi_set(WireReader& r);
  bool op_append(WireReader& r);
  void cancel_waits(int fd);
  void serve_clear();
};

namespace {

Error cannot_host(int port, int err) {
  return Error(ErrorCode::Transport, "cannot host the TCPStore on port " + std::to_string(port) +
                                         ": " + std::strerror(err));
}

}  // namespace

TcpStoreServer::TcpStoreServer(int port, StoreObserver* observer) {
  if (!open(port, observer)) throw cannot_host(port, errno);
}

std::unique_ptr<TcpStoreServer> TcpStoreServer::unless_taken(int port, StoreObserver* observer) {
  std::unique_ptr<TcpStoreServer> server(new TcpStoreServer());
  if (server->open(port, observer)) return server;
  if (errno == EADDRINUSE) return nullptr;
  throw cannot_host(port, errno);
}

bool TcpStoreServer::open(int port, StoreObserver* observer, bool merge_attempts) {
  m_loop = std::make_unique<Loop>();
  m_loop->observer = observer;
  m_loop->merge_attempts = merge_attempts;
  if (observer)
    for (auto& [key, value] : observer->initial()) m_loop->data[key] = value;
  m_loop->listen_fd = listen_wildcard(port, m_loop->port);
  if (m_loop->listen_fd < 0) return false;
  m_loop->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  m_loop->clear_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  m_loop->epoll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  for (int fd : {m_loop->wake_fd, m_loop->listen_fd, m_loop->clear_fd}) m_loop->watch(fd, EPOLLIN);
  m_loop->thread = start_helper_thread([loop = m_loop.get()] { loop->run(); });
  return true;
}

std::unique_ptr<TcpStoreServer> TcpStoreServer::for_workers() {
  std::unique_ptr<TcpStoreServer> server(new TcpStoreServer());
  if (!server->open(0, nullptr, true)) throw cannot_host(0, errno);
  return server;
}

TcpStoreServer::~TcpStoreServer() { stop(); }

int TcpStoreServer::port() const { return m_loop->port; }

bool TcpStoreServer::wait_until_idle(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (m_loop->connection_count > 0) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

void TcpStoreServer::stop() {
  if (!m_loop->thread.joinable()) return;
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(m_loop->wake_fd, &one, sizeof one);
  m_loop->thread.join();
  for (auto& [fd, c] : m_loop->connections) ::close(fd);
  m_loop->connections.clear();
  ::close(m_loop->listen_fd);
  ::close(m_loop->wake_fd);
  ::close(m_loop->clear_fd);
  ::close(m_loop->epoll_fd);
}

void TcpStoreServer::clear() {
  std::unique_lock lock(m_loop->clear_mutex);
  std::uint64_t served = m_loop->clears;
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(m_loop->clear_fd, &one, sizeof one);
  m_loop->clear_done.wait(lock, [&] { return m_loop->clears > served; });
}

void TcpStoreServer::Loop::serve_clear() {
  std::uint64_t count = 0;
  [[maybe_unused]] auto n = ::read(clear_fd, &count, sizeof count);
  data.clear();
  std::lock_guard lock(clear_mutex);
  ++clears;
  clear_done.notify_all();
}

/// epoll, so that a store with hundreds of connections (agents, their watches, round stores)
/// costs each event only its own connection.
void TcpStoreServer::Loop::run() {
  std::array<epoll_event, 64> events{};
  while (true) {
    flush();
    int n = ::epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;
    for (int i = 0; i < n; ++i) {
      int fd = events[i].data.fd;
      if (fd == wake_fd) return;
      if (fd == listen_fd)
        accept_all();
      else if (fd == clear_fd)
        serve_clear();
      else
        serve(fd, events[i].events);
    }
  }
}

void TcpStoreServer::Loop::watch(int fd, std::uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  ::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

void TcpStoreServer::Loop::serve(int fd, std::uint32_t events) {
  if (!connections.count(fd)) return;  // dropped while handling another
  if (events & EPOLLOUT) {
    unsent.insert(fd);  // the flush sends it and stops waiting for room once it is out
    write_to(fd);
  }
  if (connections.count(fd) && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) read_from(fd);
}

/// Sends what connections were given, and waits for room (EPOLLOUT) only where bytes remain.
void TcpStoreServer::Loop::flush() {
  std::set<int> fds;
  fds.swap(unsent);
  for (int fd : fds) {
    if (!connections.count(fd)) continue;
    if (!connections[fd].out.empty()) write_to(fd);
    if (!connections.count(fd)) continue;
    Connection& c = connections[fd];
    if (c.wants_out == !c.out.empty()) continue;
    c.wants_out = !c.out.empty();
    epoll_event ev{};
    ev.events = c.wants_out ? EPOLLIN | EPOLLOUT : EPOLLIN;
    ev.data.fd = fd;
    ::epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &ev);
  }
}

void TcpStoreServer::Loop::accept_all() {
  while (true) {
    sockaddr_storage ss{};
    socklen_t len = sizeof ss;
    int fd =
        ::accept4(listen_fd, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    connections[fd].peer = peer_name(ss);
    connections[fd].id = ++accepted;
    connection_count = connections.size();
    watch(fd, EPOLLIN);
  }
}

void TcpStoreServer::Loop::drop(int fd) {
  if (observer) observer->closed(connections[fd].id);
  ::close(fd);  // which also takes it out of the epoll set
  connections.erase(fd);
  unsent.erase(fd);
  connection_count = connections.size();
  cancel_waits(fd);
  std::erase_if(watchers, [fd](const auto& w) { return w.second == fd; });
}

void TcpStoreServer::Loop::write_to(int fd) {
  Connection& c = connections[fd];
  ssize_t n = ::send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n < 0) return drop(fd);
  c.out.erase(0, static_cast<std::size_t>(n));
}

/// Reads what arrived and runs every whole command in it; a partial command waits for more.
void TcpStoreServer::Loop::read_from(int fd) {
  char buf[65536];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) return drop(fd);
  connections[fd].in.append(buf, static_cast<std::size_t>(n));
  if (!dialect_known(fd)) return;
  while (connections.count(fd) && !connections[fd].in.empty()) {
    WireReader r(connections[fd].in);
    std::uint8_t code = *r.byte();
    writer = connections[fd].id;
    bool whole = false;
    try {
      auto q = query_of(*connections[fd].dialect, code);
      if (!q)
        throw Error(ErrorCode::Input,
                    "unknown query type " + std::to_string(code) + " (torch " +
                        (*connections[fd].dialect == Dialect::Torch1 ? "1.13" : "2.x") +
                        " dialect)");
      whole = handle(fd, r, *q);
    } catch (const Error& e) {
      log_warning("TCPStore: dropping the client at " + connections[fd].peer +
                  ", which sent bad data: " + e.message());
      return drop(fd);
    }
    if (!connections.count(fd) || !whole) return;
    connections[fd].in.erase(0, r.consumed());
  }
  if (connections.count(fd) && !connections[fd].out.empty()) write_to(fd);
}

/// Tells the dialect from a connection's first bytes: torch 2.x's begin with VALIDATE and its
/// magic (k_torch2_hello), torch 1.13's with any command. False while too few bytes arrived.
bool TcpStoreServer::Loop::dialect_known(int fd) {
  Connection& c = connections[fd];
  if (c.dialect) return true;
  std::size_t n = std::min(c.in.size(), k_torch2_hello.size());
  if (std::string_view(c.in).substr(0, n) != k_torch2_hello.substr(0, n)) {
    c.dialect = Dialect::Torch1;
    return true;
  }
  if (n < k_torch2_hello.size()) return false;
  c.dialect = Dialect::Torch2;
  return true;
}

/// torch 1.13's workers on an agent's store (TORCHELASTIC_USE_AGENT_STORE=True) put their keys
/// under PrefixStore(`/worker/attempt_<TORCHELASTIC_RESTART_COUNT>`), which the wire shows as
/// `//worker/attempt_N/key`; torch 2.x's use no prefix (`/key`). The agents of one round can
/// have spent different numbers of restarts, so a store that serves one round's workers only
/// reads every such key as `/key`: all of them meet, whatever their torch or their count.
std::optional<std::string> TcpStoreServer::Loop::read_key(WireReader& r) const {
  auto key = r.bytes();
  if (!key || !merge_attempts) return key;
  constexpr std::string_view prefix = "//worker/attempt_";
  if (!key->starts_with(prefix)) return key;
  std::size_t end = prefix.size();
  while (end < key->size() && std::isdigit(static_cast<unsigned char>((*key)[end]))) ++end;
  if (end == prefix.size() || end >= key->size() || (*key)[end] != '/') return key;
  return key->substr(end);
}

/// Runs one command if the buffer holds all of it (returns false, changing nothing, if not).
bool TcpStoreServer::Loop::handle(int fd, WireReader& r, Query q) {
  switch (q) {
    case Query::Set: {
      auto key = read_key(r);
      auto value = key ? r.bytes() : std::nullopt;
      if (!value) return false;
      store(*key, *value);
      return true;
    }
    case Query::CompareSet: return op_compare_set(fd, r);
    case Query::Get: {
      auto key = read_key(r);
      if (!key) return false;
      auto it = data.find(*key);
      if (it == data.end()) {
        drop(fd);  // as torch's server: a GET of a missing key ends the connection
        return true;
      }
      reply_bytes(fd, it->second);
      return true;
    }
    case Query::Add: return op_add(fd, r);
    case Query::Check: return op_wait(fd, r, false);
    case Query::Wait: return op_wait(fd, r, true);
    case Query::GetNumKeys: reply_i64(fd, static_cast<std::int64_t>(data.size())); return true;
    case Query::WatchKey: {
      auto key = read_key(r);
      if (!key) return false;
      watchers.emplace(*key, fd);
      reply_byte(fd, static_cast<std::uint8_t>(Status::CallbackRegistered));
      return true;
    }
    case Query::DeleteKey: {
      auto key = read_key(r);
      if (!key) return false;
      auto it = data.find(*key);
      reply_i64(fd, it == data.end() ? 0 : 1);
      if (it != data.end()) {
        std::string old = it->second;
        data.erase(it);
        notify(*key, WatchEvent::Deleted, old, "");
      }
      return true;
    }
    default: return handle_torch2(fd, r, q);
  }
}

/// The queries only torch 2.x sends (query_of() yields them for 2.x connections only).
bool TcpStoreServer::Loop::handle_torch2(int fd, WireReader& r, Query q) {
  switch (q) {
    case Query::Validate: {
      auto magic = r.u32();
      if (!magic) return false;
      if (*magic != k_validate_magic)
        throw Error(ErrorCode::Input, "a VALIDATE with the wrong magic number");
      return true;
    }
    case Query::Ping: {
      auto nonce = r.u32();
      if (!nonce) return false;
      put_u32(out(fd), *nonce);  // torch's client checks the echo
      return true;
    }
    case Query::Append: return op_append(r);
    case Query::MultiGet: return op_multi_get(fd, r);
    case Query::MultiSet: return op_multi_set(r);
    case Query::CancelWait:
      cancel_waits(fd);
      reply_byte(fd, static_cast<std::uint8_t>(Status::WaitCanceled));
      return true;
    default: throw Error(ErrorCode::Input, "a query this dialect does not have");
  }
}

/// MULTI_GET: a key list; every value in order. A missing key ends the connection, as GET.
bool TcpStoreServer::Loop::op_multi_get(int fd, WireReader& r) {
  auto count = r.i64();
  if (!count) return false;
  if (*count < 0 || *count > 1000000)
    throw Error(ErrorCode::Input, "a key list of " + std::to_string(*count) + " keys");
  std::vector<std::string> keys;
  for (std::int64_t i = 0; i < *count; ++i) {
    auto key = read_key(r);
    if (!key) return false;
    keys.push_back(std::move(*key));
  }
  for (const auto& k : keys)
    if (!data.count(k)) {
      drop(fd);
      return true;
    }
  for (const auto& k : keys) reply_bytes(fd, data[k]);
  return true;
}

/// MULTI_SET: u64 count, then (key, value) pairs; no reply. Applied only once all arrived.
bool TcpStoreServer::Loop::op_multi_set(WireReader& r) {
  auto count = r.i64();
  if (!count) return false;
  if (*count < 0 || *count > 1000000)
    throw Error(ErrorCode::Input, "a MULTI_SET of " + std::to_string(*count) + " keys");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::int64_t i = 0; i < *count; ++i) {
    auto key = read_key(r);
    auto value = key ? r.bytes() : std::nullopt;
    if (!value) return false;
    pairs.emplace_back(std::move(*key), std::move(*value));
  }
  for (const auto& [k, v] : pairs) store(k, v);
  return true;
}

/// APPEND: key, bytes added at the end of its value (created when absent); no reply.
bool TcpStoreServer::Loop::op_append(WireReader& r) {
  auto key = read_key(r);
  auto value = key ? r.bytes() : std::nullopt;
  if (!value) return false;
  auto it = data.find(*key);
  store(*key, it == data.end() ? *value : it->second + *value);
  return true;
}

/// Forgets every WAIT of a connection (CANCEL_WAIT, or the connection ended).
void TcpStoreServer::Loop::cancel_waits(int fd) {
  std::erase_if(waiters, [fd](const auto& w) { return w.second->fd == fd; });
}

/// CHECK (non-blocking: READY or NOT_READY) and WAIT (STOP_WAITING now or when the last key
/// is created).
bool TcpStoreServer::Loop::op_wait(int fd, WireReader& r, bool blocking) {
  auto count = r.i64();
  if (!count) return false;
  if (*count < 0 || *count > 1000000)
    throw Error(ErrorCode::Input, "a key list of " + std::to_string(*count) + " keys");
  std::vector<std::string> missing;
  for (std::int64_t i = 0; i < *count; ++i) {
    auto key = read_key(r);
    if (!key) return false;
    if (!data.count(*key)) missing.push_back(*key);
  }
  if (!blocking) {
    reply_byte(fd, static_cast<std::uint8_t>(missing.empty() ? Status::Ready : Status::NotReady));
  } else if (missing.empty()) {
    reply_byte(fd, static_cast<std::uint8_t>(Status::StopWaiting));
  } else {
    auto waiter = std::make_shared<Waiter>(Waiter{fd, missing.size()});
    for (const auto& k : missing) waiters.emplace(k, waiter);
  }
  return true;
}

/// torch 1.13's rules, including its answer for an absent key with a non-empty `expected`:
/// `expected` itself, with nothing stored (protocols/torch-c10d.md §3.3).
bool TcpStoreServer::Loop::op_compare_set(int fd, WireReader& r) {
  auto key = read_key(r);
  auto expected = key ? r.bytes() : std::nullopt;
  auto desired = expected ? r.bytes() : std::nullopt;
  if (!desired) return false;
  auto it = data.find(*key);
  if (it == data.end()) {
    if (expected->empty()) store(*key, *desired);
    reply_bytes(fd, expected->empty() ? *desired : *expected);
  } else {
    if (it->second == *expected) store(*key, *desired);
    reply_bytes(fd, data[*key]);
  }
  return true;
}

/// ADD on a decimal counter; a value that is not a number ends the connection, as in torch.
bool TcpStoreServer::Loop::op_add(int fd, WireReader& r) {
  auto key = read_key(r);
  auto delta = key ? r.i64() : std::nullopt;
  if (!delta) return false;
  std::int64_t value = 0;
  if (auto it = data.find(*key); it != data.end()) {
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data())
      throw Error(ErrorCode::Input, "ADD on the non-numeric value of " + *key);
  }
  // Past int64 the sum wraps around, as torch's server's `value + delta` does on the machines
  // it runs on (two's complement), without the overflow C++ leaves undefined.
  value = static_cast<std::int64_t>(static_cast<std::uint64_t>(value) +
                                    static_cast<std::uint64_t>(*delta));
  store(*key, std::to_string(value));
  reply_i64(fd, value);
  return true;
}

void TcpStoreServer::Loop::store(const std::string& key, const std::string& value) {
  auto it = data.find(key);
  bool created = it == data.end();
  std::string old = created ? "" : it->second;
  data[key] = value;
  if (observer) observer->written(writer, key, value);
  notify(key, created ? WatchEvent::Created : WatchEvent::Updated, old, value);
  if (created) key_created(key);
  if (!observer) return;
  auto derived = observer->derived(key, value);
  if (derived.empty()) return;
  std::uint64_t client = std::exchange(writer, 0);
  for (const auto& [k, v] : derived) store(k, v);
  writer = client;
}

void TcpStoreServer::Loop::key_created(const std::string& key) {
  auto [first, last] = waiters.equal_range(key);
  for (auto it = first; it != last; ++it)
    if (--it->second->missing == 0)
      reply_byte(it->second->fd, static_cast<std::uint8_t>(Status::StopWaiting));
  waiters.erase(first, last);
}

void TcpStoreServer::Loop::notify(const std::string& key, WatchEvent e, const std::string& old_v,
                                  const std::string& new_v) {
  auto [first, last] = watchers.equal_range(key);
  for (auto it = first; it != last; ++it) {
    std::string& out = this->out(it->second);
    out.push_back(static_cast<char>(e));
    put_bytes(out, key);
    put_bytes(out, old_v);
    put_bytes(out, new_v);
  }
}

}  // namespace ejob::agent
