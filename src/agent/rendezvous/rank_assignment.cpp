#include "src/agent/rendezvous/rank_assignment.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "src/agent/rendezvous/rdzv_state.hpp"
#include "src/agent/store/key_value_store.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// torch's _get_ranks: the total over [start, end) and the ranks of entry `index`.
std::pair<int, std::vector<int>> ranks_in(const std::vector<RoleInfo>& infos, size_t index,
                                          size_t start, size_t end) {
  int prefix = 0;
  int total = 0;
  for (size_t i = start; i < end; ++i) {
    if (index > i) prefix += infos[i].local_world_size;
    total += infos[i].local_world_size;
  }
  std::vector<int> ranks;
  for (int r = 0; r < infos[index].local_world_size; ++r) ranks.push_back(prefix + r);
  return {total, ranks};
}

}  // namespace

std::string to_json(const RoleInfo& info) {
  return "{\"role\": " + py_json_string(info.role) + ", \"rank\": " + std::to_string(info.rank) +
         ", \"local_world_size\": " + std::to_string(info.local_world_size) + "}";
}

namespace {

/// An integer field within [0, k_most_ranks]: what a rank or a worker count can be. A float
/// or a number out of int's range is refused, not converted (that would be undefined).
constexpr std::int64_t k_most_ranks = 1 << 20;

int rank_count(const nlohmann::json& j, const char* key, const std::string& text) {
  const nlohmann::json& v = j.at(key);
  bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= k_most_ranks
                                     : v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
                                           v.get<std::int64_t>() <= k_most_ranks;
  if (!fits)
    throw Error(ErrorCode::Input, std::string("malformed role info from a peer agent (") + key +
                                      " must be an integer from 0 to " +
                                      std::to_string(k_most_ranks) + "): " + text.substr(0, 200));
  return static_cast<int>(v.get<std::int64_t>());
}

}  // namespace

RoleInfo parse_role_info(const std::string& text) {
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    RoleInfo info;
    info.role = j.at("role").get<std::string>();
    info.rank = rank_count(j, "rank", text);
    info.local_world_size = rank_count(j, "local_world_size", text);
    return info;
  } catch (const nlohmann::json::exception&) {
    throw Error(ErrorCode::Input, "malformed role info from a peer agent: " + text.substr(0, 200));
  }
}

WorkerRanks assign_ranks(const std::vector<RoleInfo>& infos, int group_rank) {
  WorkerRanks out;
  auto me = static_cast<size_t>(group_rank);
  std::tie(out.world_size, out.global_ranks) = ranks_in(infos, me, 0, infos.size());
  std::vector<RoleInfo> sorted = infos;
  std::stable_sort(sorted.begin(), sorted.end(), [](const RoleInfo& a, const RoleInfo& b) {
    return a.role != b.role ? a.role < b.role : a.rank < b.rank;
  });
  size_t start = sorted.size(), end = 0, pos = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i].role != infos[me].role) continue;
    start = std::min(start, i);
    end = i + 1;
    if (sorted[i].rank == infos[me].rank) pos = i;
  }
  std::tie(out.role_world_size, out.role_ranks) = ranks_in(sorted, pos, start, end);
  return out;
}

WorkerRanks identical_ranks(int group_rank, int group_world_size, int local_world_size) {
  WorkerRanks r;
  r.world_size = group_world_size * local_world_size;
  r.role_world_size = r.world_size;
  for (int i = 0; i < local_world_size; ++i) {
    r.global_ranks.push_back(group_rank * local_world_size + i);
    r.role_ranks.push_back(group_rank * local_world_size + i);
  }
  return r;
}

namespace {

/// torch 2.x's group rank 0: reads every role_info/<i> and writes assigned_ranks/<i> = [base
/// global rank, global world size, base role rank, role world size] as json.dumps does;
/// global ranks follow group ranks, role ranks follow them within each role.
void write_assigned_ranks(KeyValueStore& store, int group_world_size) {
  std::vector<std::string> keys;
  for (int i = 0; i < group_world_size; ++i)
    keys.push_back("torchelastic/role_info/" + std::to_string(i));
  std::vector<RoleInfo> infos;
  for (const auto& s : store.get(keys)) infos.push_back(parse_role_info(s));
  int global = 0, base = 0;
  std::map<std::string, int> role_size, role_base;
  for (const auto& r : infos) {
    role_size[r.role] += r.local_world_size;
    global += r.local_world_size;
  }
  for (std::size_t i = 0; i < infos.size(); ++i) {
    const RoleInfo& r = infos[i];
    store.set("torchelastic/assigned_ranks/" + std::to_string(i),
              "[" + std::to_string(base) + ", " + std::to_string(global) + ", " +
                  std::to_string(role_base[r.role]) + ", " + std::to_string(role_size[r.role]) +
                  "]");
    base += r.local_world_size;
    role_base[r.role] += r.local_world_size;
  }
}

}  // namespace

WorkerRanks exchange_ranks_torch2(KeyValueStore& store, const RoleInfo& mine, int group_world_size,
                                  const std::string& round) {
  store.set("torchelastic/role_info/" + std::to_string(mine.rank), to_json(mine));
  if (mine.rank == 0) write_assigned_ranks(store, group_world_size);
  std::string key = "torchelastic/assigned_ranks/" + std::to_string(mine.rank);
  std::string text = store.get({key})[0];
  int v[4] = {};
  if (std::sscanf(text.c_str(), "[%d, %d, %d, %d]", &v[0], &v[1], &v[2], &v[3]) != 4)
    throw Error(ErrorCode::Input, key + " is not 4 ranks: " + text + " (round " + round + ")");
  WorkerRanks r;
  r.world_size = v[1];
  r.role_world_size = v[3];
  for (int i = 0; i < mine.local_world_size; ++i) {
    r.global_ranks.push_back(v[0] + i);
    r.role_ranks.push_back(v[2] + i);
  }
  return r;
}

}  // namespace ejob::agent
