#pragma once
/// A TCPStore server that torch 1.13 and torch 2.x clients (and TcpStoreClient) use as they
/// use `TCPStore(is_master=True)` (protocols/torch-c10d.md §3, §8); each connection's dialect
/// is told from its first bytes (2.x's begin with VALIDATE), so one store serves both. One
/// thread, every connection
/// non-blocking, commands parsed as bytes arrive — a client that stops in the middle of a
/// command stalls nobody (torch's own server blocks on it). WAITs are answered when the last
/// missing key is created by SET, ADD or COMPARE_SET; idle connections (torch's callback
/// connection) are simply kept.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ejob::agent {

/// Told, on the serving thread, who writes what and which connections end: what the agent
/// hosting the rendezvous store learns about the other agents beyond the shared state.
/// Connections are numbered from 1 in the order accepted (a number is never reused).
class StoreObserver {
 public:
  virtual ~StoreObserver() = default;
  /// `connection` stored `value` under `key` (SET, a COMPARE_SET that won, ADD, APPEND,
  /// MULTI_SET), with the wire's key (torch's leading '/').
  virtual void written(std::uint64_t connection, const std::string& key,
                       const std::string& value) = 0;
  /// `connection` ended: the peer closed it or was dropped.
  virtual void closed(std::uint64_t connection) = 0;
  /// Keys (wire form) the store holds from its start, before any client connects.
  virtual std::vector<std::pair<std::string, std::string>> initial() { return {}; }
  /// Keys the store is to write itself after `key` got `value` (they wake WAITs and watches as
  /// a client's write would, and are told to written() with connection 0).
  virtual std::vector<std::pair<std::string, std::string>> derived(const std::string& /*key*/,
                                                                   const std::string& /*value*/) {
    return {};
  }
};

/// The store and its serving thread; stopped and joined on destruction.
class TcpStoreServer {
 public:
  /// Listens on `port` (0: a free one) on the wildcard address, dual-stack `::` first and
  /// `0.0.0.0` when IPv6 is unavailable, as torch's server does. Throws ejob::Error(Transport)
  /// when the port cannot be bound (e.g. another agent hosts the store already).
  /// `observer` (may be null) must outlive the server.
  explicit TcpStoreServer(int port, StoreObserver* observer = nullptr);
  /// As the constructor, but nullptr when another socket listens on `port` already (an agent
  /// that only inferred it hosts then becomes a client); without an exception, whose first
  /// throw costs a static binary milliseconds of unwinder set-up.
  static std::unique_ptr<TcpStoreServer> unless_taken(int port, StoreObserver* observer = nullptr);
  /// The store group rank 0's agent hosts for one round's workers, on a free port: keys a
  /// torch 1.13 worker puts under `/worker/attempt_N` are read without that prefix, so that
  /// workers of agents with different restart counts (and torch 2.x's) share them.
  static std::unique_ptr<TcpStoreServer> for_workers();
  ~TcpStoreServer();
  TcpStoreServer(const TcpStoreServer&) = delete;
  TcpStoreServer& operator=(const TcpStoreServer&) = delete;

  /// The port it listens on.
  [[nodiscard]] int port() const;
  /// Waits until no client is connected (true) or `timeout` passed (false).
  bool wait_until_idle(std::chrono::milliseconds timeout);
  /// Drops every key (connections and pending WAITs stay); returns once the serving thread
  /// has done it, so nothing a client sends afterwards can see the old keys.
  void clear();
  /// Closes every connection and the listening socket.
  void stop();

 private:
  TcpStoreServer() = default;
  /// Listens and starts serving; false (errno set) when it cannot listen.
  bool open(int port, StoreObserver* observer, bool merge_attempts = false);

  struct Loop;
  std::unique_ptr<Loop> m_loop;
};

}  // namespace ejob::agent
