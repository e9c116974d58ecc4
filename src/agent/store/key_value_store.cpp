#include "src/agent/store/key_value_store.hpp"

namespace ejob::agent {

std::vector<std::string> synchronize(KeyValueStore& store, const std::string& data, int rank,
                                     int world_size, const std::string& prefix) {
  store.set(prefix + std::to_string(rank), data);
  // torch gets the keys one by one (one request each); waiting for all of them in one get()
  // reads the same keys with N times fewer requests.
  std::vector<std::string> keys;
  for (int i = 0; i < world_size; ++i) keys.push_back(prefix + std::to_string(i));
  std::vector<std::string> values = store.get(keys);
  store.set(prefix + std::to_string(rank) + ".FIN", "FIN");
  if (rank == 0) {
    for (auto& k : keys) k += ".FIN";
    store.get(keys);
  }
  return values;
}

void barrier(KeyValueStore& store, int world_size, const std::string& prefix) {
  if (store.add(prefix + "/num_members", 1) == world_size)
    store.set(prefix + "/last_member", "<val_ignored>");
  store.get({prefix + "/last_member"});
}

}  // namespace ejob::agent
