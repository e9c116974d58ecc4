#include "src/agent/workers/worker_env.hpp"

namespace ejob::agent {

Environment worker_environment(const Environment& agent_env, const LaunchConfig& config,
                               const WorkerIdentity& id) {
  Environment env = agent_env;
  auto set = [&](const char* name, const std::string& value) { env[name] = value; };
  auto num = [](int v) { return std::to_string(v); };
  set("LOCAL_RANK", num(id.local_rank));
  set("RANK", num(id.global_rank));
  set("GROUP_RANK", num(id.group_rank));
  set("ROLE_RANK", num(id.role_rank));
  set("ROLE_NAME", config.role);
  set("LOCAL_WORLD_SIZE", num(config.nproc_per_node));
  set("WORLD_SIZE", num(id.world_size));
  set("GROUP_WORLD_SIZE", num(id.group_world_size));
  set("ROLE_WORLD_SIZE", num(id.role_world_size));
  set("MASTER_ADDR", id.master_addr);
  set("MASTER_PORT", num(id.master_port));
  set("TORCHELASTIC_RESTART_COUNT", num(id.restart_count));
  set("TORCHELASTIC_MAX_RESTARTS", num(config.max_restarts));
  set("TORCHELASTIC_RUN_ID", config.run_id);
  // False: the workers create their own TCPStore (hosted by global rank 0).
  set("TORCHELASTIC_USE_AGENT_STORE", id.use_agent_store ? "True" : "False");
  // torch 2.x renamed the variable (and sets it from the agent's own value, else 1).
  const char* nccl = config.torch == RdzvDialect::Torch2 ? "TORCH_NCCL_ASYNC_ERROR_HANDLING"
                                                         : "NCCL_ASYNC_ERROR_HANDLING";
  if (!env.count(nccl)) set(nccl, "1");
  if (!env.count("OMP_NUM_THREADS") && config.nproc_per_node > 1) set("OMP_NUM_THREADS", "1");
  set("TORCHELASTIC_ERROR_FILE", id.error_file);
  return env;
}

}  // namespace ejob::agent
