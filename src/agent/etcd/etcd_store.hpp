#pragma once
/// torch's EtcdStore (the c10d Store of the etcd rendezvous): under a store directory, key
/// `<dir>/<b64(key)>` holds `b64(value)`; get() lists the directory and long-polls a recursive
/// watch until every wanted key is a direct child.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "src/agent/store/key_value_store.hpp"

namespace ejob::agent {

class EtcdClient;

/// A store over one etcd directory. Transient transport failures are retried until the
/// operation's deadline (etcd may restart under a running job).
class EtcdStore : public KeyValueStore {
 public:
  /// `dir` is the store directory, e.g. `/torchelastic/p2p/run_x/rdzv/v_1/kv`.
  EtcdStore(EtcdClient& client, std::string dir, std::chrono::milliseconds timeout);

  /// Writes a key.
  void set(const std::string& key, const std::string& value) override;
  /// Waits until all keys exist and returns their values in order. Throws
  /// ejob::Error(Timeout) naming the missing keys when the store timeout passes.
  std::vector<std::string> get(const std::vector<std::string>& keys) override;
  /// Adds `delta` to a decimal counter (0 when absent) and returns the new value.
  std::int64_t add(const std::string& key, std::int64_t delta) override;
  bool contains(const std::string& key) override;

 private:
  EtcdClient& m_client;
  std::string m_dir;
  std::chrono::milliseconds m_timeout;
};

}  // namespace ejob::agent
