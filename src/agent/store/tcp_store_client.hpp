#pragma once
/// A client of torch 1.13's or torch 2.x's TCPStore (protocols/torch-c10d.md §3, §8; the
/// dialect is the store's torch: our server speaks both), with the API of torch's
/// `TCPStore(is_master=False)`: every key gets a leading '/' on the wire, get() is WAIT then
/// GET, and a connection whose WAIT timed out is replaced (the server may still answer it).
/// Not thread-safe: one request at a time (callers serialize, as torch's client does).

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "src/agent/store/tcp_store_wire.hpp"

namespace ejob::agent {

/// One command connection to a store.
class TcpStoreClient {
 public:
  /// Connects to host:port, retrying on refusal (torch: every second; here from 10 ms
  /// doubling to a second) until `timeout` passes; `timeout` is also each reply's limit. Throws
  /// ejob::Error(Transport) naming the endpoint. A torch 2.x connection starts with VALIDATE and a
  /// PING whose echo is checked, as torch 2.x's client does (its servers drop a connection that
  /// does not).
  TcpStoreClient(std::string host, int port, std::chrono::milliseconds timeout,
                 tcp_store::Dialect dialect = tcp_store::Dialect::Torch1);
  ~TcpStoreClient();
  TcpStoreClient(const TcpStoreClient&) = delete;
  TcpStoreClient& operator=(const TcpStoreClient&) = delete;

  void set(const std::string& key, const std::string& value);
  /// Waits (up to the timeout) for the key, then reads it. Throws ejob::Error(Timeout).
  std::string get(const std::string& key);
  /// Reads a key this client knows exists (no WAIT first: one round trip instead of two).
  std::string get_existing(const std::string& key);
  /// Adds to a decimal counter (0 when absent); returns the new value.
  std::int64_t add(const std::string& key, std::int64_t delta);
  /// torch's compare_set: returns the value stored after the call (see §3.3).
  std::string compare_set(const std::string& key, const std::string& expected,
                          const std::string& desired);
  /// Whether all keys exist now.
  bool check(const std::vector<std::string>& keys);
  /// Waits until all keys exist. Throws ejob::Error(Timeout) after `timeout`.
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout);
  /// The number of keys in the whole store (every client's, every prefix).
  std::int64_t num_keys();
  /// Deletes a key; true when it existed.
  bool delete_key(const std::string& key);
  /// Sets several keys in one command (2.x MULTI_SET; 1.13 has none: one SET each).
  void multi_set(const std::vector<std::pair<std::string, std::string>>& pairs);
  /// Waits for several keys, then reads them (2.x MULTI_GET; 1.13: one GET each, sent together).
  std::vector<std::string> multi_get(const std::vector<std::string>& keys);
  /// Registers a watch on `key` (WATCH_KEY, torch 1.13 only): from then on this connection only
  /// receives its events (read them with next_event()); torch's server and ours send one for every
  /// SET, ADD, COMPARE_SET that changes the value, and DELETE_KEY.
  void watch_key(const std::string& key);
  /// Whether an event is waiting to be read within `timeout`.
  bool readable(std::chrono::milliseconds timeout);
  /// Reads one watch event (type, key, old value, new value) and returns the new value.
  std::string next_event();
  /// Changes the per-reply limit (torch's set_timeout).
  void set_timeout(std::chrono::milliseconds timeout);
  [[nodiscard]] tcp_store::Dialect dialect() const { return m_dialect; }
  /// `host:port`, for messages.
  [[nodiscard]] std::string endpoint() const;

 private:
  void connect();
  void handshake();
  [[nodiscard]] std::string query(tcp_store::Query q) const;
  void close();
  void send(const std::string& bytes, const std::string& what);
  std::string receive(std::size_t n, const std::string& what);
  void fill(const std::string& what);
  std::string receive_bytes(const std::string& what);
  std::int64_t receive_i64(const std::string& what);
  [[noreturn]] void fail(const std::string& what, const std::string& why);

  std::string m_host;
  int m_port;
  std::chrono::milliseconds m_timeout;
  tcp_store::Dialect m_dialect;
  int m_fd = -1;
  /// The server closed or reset the connection: as torch's client, this one is then done (the
  /// store's host has most likely ended; reconnecting would wait out a timeout for nothing).
  bool m_lost = false;
  /// Received and not yet taken: m_in from m_in_at.
  std::string m_in;
  std::size_t m_in_at = 0;
};

}  // namespace ejob::agent
