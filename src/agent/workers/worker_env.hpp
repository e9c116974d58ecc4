#pragma once
/// The environment of each worker process (§1.9 of the protocol notes): the agent's own
/// environment overridden by the rank variables, MASTER_*, TORCHELASTIC_* and defaults.

#include <string>

#include "src/agent/launch/launch_config.hpp"

namespace ejob::agent {

/// Who one worker is in the current round.
struct WorkerIdentity {
  int local_rank = 0;
  int global_rank = 0;
  int role_rank = 0;
  int group_rank = 0;
  int group_world_size = 0;
  int world_size = 0;
  int role_world_size = 0;
  std::string master_addr;
  int master_port = 0;
  int restart_count = 0;
  std::string error_file;
  /// torch 2.x: MASTER_ADDR:MASTER_PORT is a store the group-rank-0 agent hosts, which the
  /// workers join as clients (TORCHELASTIC_USE_AGENT_STORE=True).
  bool use_agent_store = false;
};

/// The full environment of one worker, as the torchrun of config.torch sets it.
/// OMP_NUM_THREADS=1 is added when the agent has none and runs more than one worker;
/// NCCL_ASYNC_ERROR_HANDLING (1.13) or TORCH_NCCL_ASYNC_ERROR_HANDLING (2.x) defaults to 1.
Environment worker_environment(const Environment& agent_env, const LaunchConfig& config,
                               const WorkerIdentity& id);

}  // namespace ejob::agent
