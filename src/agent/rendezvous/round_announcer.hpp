#pragma once
/// What the agent hosting a c10d store tells the other ejob-agents of the same rendezvous
/// without their watching the state: a small "news" key, rewritten when the state's phase
/// changes (a round completes, nodes wait for the next one, the run closes). A watch of the
/// state key sends every watcher every write, old and new state (O(N) bytes each): N joins to
/// N watchers made the host's one thread send O(N³) bytes, and a running job of 128 agents
/// ~90 MB/s of heartbeats. The news key changes a few times per round. torch's agents never
/// read these keys; a store torch hosts has none, and ejob-agents watch the state there.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "src/agent/rendezvous/connection_liveness.hpp"
#include "src/agent/store/tcp_store_server.hpp"

namespace ejob::agent {

/// `ejob.rendezvous.<run_id>/announcer`: present from the store's start when its host announces.
std::string announcer_key(const std::string& run_id);
/// `ejob.rendezvous.<run_id>/news`: `<round> <complete> <waiting> <closed>` (0 or 1 each) of the
/// last state written, rewritten only when that changes.
std::string news_key(const std::string& run_id);

/// A StoreObserver of the host's TcpStoreServer: writes the news key, counts the writes of the
/// state key for the host's own agent (which waits on that count in process instead of through
/// a watch), and hands each written state, decoded once, to `liveness` when given.
class RoundAnnouncer : public StoreObserver {
 public:
  RoundAnnouncer(const std::string& run_id, ConnectionLiveness* liveness);

  void written(std::uint64_t connection, const std::string& key, const std::string& value) override;
  void closed(std::uint64_t connection) override;
  std::vector<std::pair<std::string, std::string>> initial() override;
  std::vector<std::pair<std::string, std::string>> derived(const std::string& key,
                                                           const std::string& value) override;

  /// Writes of the state key so far.
  [[nodiscard]] std::uint64_t writes() const;
  /// Waits until writes() reaches `until` or `timeout` passed.
  void wait_for_writes(std::uint64_t until, std::chrono::milliseconds timeout) const;

 private:
  std::string m_run_id;
  std::string m_key;  ///< the state key, as on the wire
  ConnectionLiveness* m_liveness;
  std::string m_news;     ///< the last news written (serving thread only)
  std::string m_pending;  ///< news of the write being told, for derived() (serving thread)
  mutable std::mutex m_mutex;
  mutable std::condition_variable m_written;
  std::uint64_t m_writes = 0;
};

}  // namespace ejob::agent
