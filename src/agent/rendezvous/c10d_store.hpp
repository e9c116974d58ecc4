#pragma once
/// The pieces of torch 1.13's c10d rendezvous backend (`c10d_rendezvous_backend.py`,
/// protocols/torch-c10d.md §2, §4.1): who hosts the TCPStore, the state kept as base64 of its
/// pickle under `torch.rendezvous.<run_id>` with the "no state yet" sentinel, and the round's
/// PrefixStore.

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "src/agent/rendezvous/dynamic_rendezvous.hpp"
#include "src/agent/rendezvous/round_announcer.hpp"
#include "src/agent/store/key_value_store.hpp"
#include "src/agent/store/tcp_store_client.hpp"

namespace ejob::agent {

/// base64 of "canimadam": what the state key holds before any agent wrote a state.
inline constexpr const char* k_c10d_no_state = "Y2FuaW1hZGFt";

/// The state a c10d store holds as `value` (base64 of its pickle); nullopt for the sentinel or
/// anything that does not decode (the agents that read it say so), for the store host's
/// observers.
std::optional<DynamicState> stored_state(const std::string& value);

/// Whether this machine hosts the store when `--rdzv_conf is_host` is not given, as torch
/// infers it: the endpoint host is `localhost`, a loopback address, this host's name, or its
/// canonical name or one of its addresses.
bool endpoint_is_local(const std::string& host);

/// The state under `torch.rendezvous.<run_id>` of a TCPStore (one connection of its own), and
/// how a waiting agent learns that others wrote it, the cheapest way the store allows:
/// - the agent hosting the store counts the writes in process (`host`);
/// - an agent of a store an ejob-agent hosts (`announced`) watches its news key
///   (round_announcer.hpp) on a second connection: a few events per round;
/// - on a store torch 1.13 hosts, the second connection watches the state key (WATCH_KEY:
///   every write, old and new state);
/// - else (torch 2.x's store: no WATCH_KEY) it sleeps and polls as torch does.
class C10dStateBackend : public StateBackend {
 public:
  /// Creates the key with the sentinel when absent (torch's first compare_set). `side_client`
  /// (a torch 1.13 connection, may be null) watches; `host` is the announcer of the store this
  /// agent hosts, or null.
  C10dStateBackend(std::unique_ptr<TcpStoreClient> client, const std::string& run_id,
                   std::unique_ptr<TcpStoreClient> side_client = nullptr,
                   const RoundAnnouncer* host = nullptr, bool announced = false);
  ~C10dStateBackend() override;
  std::optional<Stored> get_state() override;
  std::optional<Stored> set_state(const std::string& pickle,
                                  const std::optional<std::string>& token, bool& won) override;
  std::uint64_t changes_seen() override;
  void wait_for_changes(std::uint64_t seen, std::uint64_t writes,
                        std::chrono::milliseconds timeout) override;
  [[nodiscard]] bool wakes_on_every_write() override;
  [[nodiscard]] std::string where() const override;

 private:
  std::optional<Stored> decode(const std::string& stored) const;
  void watch_loop();

  std::unique_ptr<TcpStoreClient> m_client;
  std::string m_key;
  std::unique_ptr<TcpStoreClient> m_side_client;  ///< watches the state or the news
  const RoundAnnouncer* m_host;
  bool m_announced;  ///< the store's host writes news: watched instead of the state
  std::mutex m_watch_mutex;
  std::condition_variable m_watch_cv;
  std::uint64_t m_changes = 0;  ///< events watched: writes, or news
  bool m_watch_stop = false;
  bool m_watching = false;
  std::thread m_watch_thread;
};

/// A TCPStore as the agents' KeyValueStore (keys get torch's leading '/' from the client).
class TcpKeyValueStore : public KeyValueStore {
 public:
  explicit TcpKeyValueStore(TcpStoreClient& client) : m_client(client) {}
  void set(const std::string& key, const std::string& value) override;
  /// WAIT for all keys at once, then read them as torch does: one MULTI_GET (2.x), one GET
  /// each (1.13).
  std::vector<std::string> get(const std::vector<std::string>& keys) override;
  std::int64_t add(const std::string& key, std::int64_t delta) override {
    return m_client.add(key, delta);
  }
  bool contains(const std::string& key) override { return m_client.check({key}); }

 private:
  TcpStoreClient& m_client;
};

}  // namespace ejob::agent
