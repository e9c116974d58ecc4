#pragma once
/// How an agent turns the role infos every agent published into its workers' ranks (§1.6):
/// global ranks follow group ranks, role ranks follow agents sorted by (role, group rank).

#include <string>
#include <vector>

namespace ejob::agent {

class KeyValueStore;

/// What each agent publishes under `torchelastic/role_info<group_rank>`.
struct RoleInfo {
  std::string role;
  int rank = 0;  ///< the agent's group rank
  int local_world_size = 0;
};

/// `{"role": "default", "rank": 0, "local_world_size": 1}` as json.dumps writes it.
std::string to_json(const RoleInfo& info);

/// Parses a peer's role info. Throws ejob::Error(Input) when it is not that object.
RoleInfo parse_role_info(const std::string& text);

/// The ranks of this agent's workers.
struct WorkerRanks {
  int world_size = 0;
  std::vector<int> global_ranks;  ///< per local rank
  int role_world_size = 0;
  std::vector<int> role_ranks;  ///< per local rank
};

/// Computes this agent's worker ranks from all agents' infos (indexed by group rank).
WorkerRanks assign_ranks(const std::vector<RoleInfo>& infos, int group_rank);

/// torch 2.x's _assign_worker_ranks over the agents' store: every agent sets
/// torchelastic/role_info/<group rank>, group rank 0 writes every
/// torchelastic/assigned_ranks/<i> = [base rank, world size, base role rank, role world size]
/// (as json.dumps), and each agent reads its own. `round` names the round in errors.
WorkerRanks exchange_ranks_torch2(KeyValueStore& store, const RoleInfo& mine, int group_world_size,
                                  const std::string& round);

/// torch 2.x's fast path (TORCH_ELASTIC_WORKER_IDENTICAL=1): every agent runs
/// `local_world_size` workers of one role, so global rank = group_rank * local_world_size +
/// local rank, and the role's ranks and size are the global ones.
WorkerRanks identical_ranks(int group_rank, int group_world_size, int local_world_size);

}  // namespace ejob::agent
