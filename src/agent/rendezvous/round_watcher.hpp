#pragma once
/// Watches a final rendezvous round while its workers run, and signals an eventfd as soon as
/// the round needs this agent back: agents are waiting to join (`num_workers_waiting > 0`, the
/// membership change torchrun notices only at its next monitor tick) or the round was replaced.
/// A `closed` state does not signal (peers that finished first close the run).

#include <atomic>
#include <string>
#include <thread>

#include "src/agent/etcd/etcd_client.hpp"
#include "src/agent/rendezvous/membership_watcher.hpp"

namespace ejob::agent {

/// A background long-poll on `active_version`.
class EtcdRoundWatcher : public RoundWatcher {
 public:
  /// Starts watching `state_key` for changes away from final round `version`.
  EtcdRoundWatcher(const EtcdClientOptions& options, std::string state_key, std::string version);
  ~EtcdRoundWatcher() override;
  EtcdRoundWatcher(const EtcdRoundWatcher&) = delete;
  EtcdRoundWatcher& operator=(const EtcdRoundWatcher&) = delete;

  /// Readable (eventfd) once the round needs this agent to re-rendezvous.
  [[nodiscard]] int fd() const override { return m_fd; }
  /// Stops the watch and joins the thread.
  void stop() override;

 private:
  void run();
  bool needs_restart(const EtcdResult& r) const;

  EtcdClient m_client;
  std::string m_key;
  std::string m_version;
  int m_fd = -1;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

}  // namespace ejob::agent
