#pragma once
/// The store an agent shares with the other agents of a round (torch's c10d Store as the
/// elastic agent uses it): the etcd backend's EtcdStore or a TCPStore prefix for c10d. The
/// role-info exchange and the exit barrier are written once over it.

#include <cstdint>
#include <string>
#include <vector>

namespace ejob::agent {

/// set, a blocking multi-key get, add and an existence check.
class KeyValueStore {
 public:
  virtual ~KeyValueStore() = default;
  virtual void set(const std::string& key, const std::string& value) = 0;
  /// Waits until all keys exist and returns their values in order. Throws
  /// ejob::Error(Timeout) naming the missing keys when the store's timeout passes.
  virtual std::vector<std::string> get(const std::vector<std::string>& keys) = 0;
  /// Adds to a decimal counter (0 when absent) and returns the new value (torch 2.x's exit
  /// barrier counts its members so).
  virtual std::int64_t add(const std::string& key, std::int64_t delta) = 0;
  /// Whether `key` exists now (no waiting).
  virtual bool contains(const std::string& key) = 0;
};

/// torch's PrefixStore(prefix, store): key k is `<prefix>/k` in the store below.
class PrefixStore : public KeyValueStore {
 public:
  PrefixStore(KeyValueStore& store, std::string prefix)
      : m_store(store), m_prefix(std::move(prefix)) {}
  void set(const std::string& key, const std::string& value) override {
    m_store.set(m_prefix + "/" + key, value);
  }
  std::vector<std::string> get(const std::vector<std::string>& keys) override {
    std::vector<std::string> full;
    for (const auto& k : keys) full.push_back(m_prefix + "/" + k);
    return m_store.get(full);
  }
  std::int64_t add(const std::string& key, std::int64_t delta) override {
    return m_store.add(m_prefix + "/" + key, delta);
  }
  bool contains(const std::string& key) override { return m_store.contains(m_prefix + "/" + key); }

 private:
  KeyValueStore& m_store;
  std::string m_prefix;
};

/// share_and_gather as torch's store_util.synchronize: publish `data` under
/// `<prefix><rank>`, read all `<prefix>0..world-1`, write `<prefix><rank>.FIN`; rank 0 also
/// waits for every `.FIN`. Returns the values by rank.
std::vector<std::string> synchronize(KeyValueStore& store, const std::string& data, int rank,
                                     int world_size, const std::string& prefix);

/// torch 2.x's store_util.barrier: each member adds one to `<prefix>/num_members`, the last
/// sets `<prefix>/last_member`, and all wait for it.
void barrier(KeyValueStore& store, int world_size, const std::string& prefix);

}  // namespace ejob::agent
