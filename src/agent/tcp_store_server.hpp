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
#include <memory>

namespace ejob::agent {

/// The store and its serving thread; stopped and joined on destruction.
class TcpStoreServer {
 public:
  /// Listens on `port` (0: a free one) on the wildcard address, dual-stack `::` first and
  /// `0.0.0.0` when IPv6 is unavailable, as torch's server does. Throws ejob::Error(Transport)
  /// when the port cannot be bound (e.g. another agent hosts the store already).
  explicit TcpStoreServer(int port);
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
  struct Loop;
  std::unique_ptr<Loop> m_loop;
};

}  // namespace ejob::agent
