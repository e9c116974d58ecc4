#pragma once
/// A background thread that keeps an etcd key or directory alive by refreshing its TTL every
/// TTL/2 (`ttl=T&refresh=true&prevExist=true`), as torch's setup_lease_renewal does. It stops
/// when asked, or when the key no longer exists; transport failures are retried next period.

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "src/agent/etcd/etcd_client.hpp"

namespace ejob::agent {

/// Refreshes one key's TTL until destroyed or stop()ped.
class LeaseRenewer {
 public:
  /// Starts refreshing `key` (with its own etcd connection) every `ttl_s / 2` seconds.
  LeaseRenewer(const EtcdClientOptions& options, std::string key, int ttl_s);
  ~LeaseRenewer();
  LeaseRenewer(const LeaseRenewer&) = delete;
  LeaseRenewer& operator=(const LeaseRenewer&) = delete;

  /// Stops refreshing and joins the thread (idempotent).
  void stop();
  /// The key being kept alive.
  [[nodiscard]] const std::string& key() const { return m_key; }

 private:
  void run();

  EtcdClient m_client;
  std::string m_key;
  int m_ttl_s;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace ejob::agent
