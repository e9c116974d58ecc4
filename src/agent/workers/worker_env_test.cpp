#include "src/agent/workers/worker_env.hpp"

#include <catch2/catch.hpp>

#include "src/agent/launch/launch_config.hpp"
#include "src/agent/workers/warm_start.hpp"

using namespace ejob::agent;

namespace {

/// The launch configuration of a command line, on a host with 4 CPUs and no GPU.
LaunchConfig config(std::vector<std::string> args, Environment env = {}) {
  return make_launch_config(parse_launch_options(args, env), env, HostInfo{4, 0});
}

}  // namespace

TEST_CASE("worker env: the table of §1.9") {
  LaunchConfig c = config({"--rdzv_backend=etcd", "--rdzv_id=r1", "--nproc_per_node=2",
                           "--max_restarts=3", "--role=trainer", "t.py"});
  WorkerIdentity id{1, 3, 3, 1, 2, 4, 4, "host0", 29501, 2, "/logs/attempt_2/1/error.json"};
  Environment env = worker_environment({{"PATH", "/bin"}, {"RANK", "99"}}, c, id);
  CHECK(env == Environment{{"PATH", "/bin"},
                           {"LOCAL_RANK", "1"},
                           {"RANK", "3"},
                           {"GROUP_RANK", "1"},
                           {"ROLE_RANK", "3"},
                           {"ROLE_NAME", "trainer"},
                           {"LOCAL_WORLD_SIZE", "2"},
                           {"WORLD_SIZE", "4"},
                           {"GROUP_WORLD_SIZE", "2"},
                           {"ROLE_WORLD_SIZE", "4"},
                           {"MASTER_ADDR", "host0"},
                           {"MASTER_PORT", "29501"},
                           {"TORCHELASTIC_RESTART_COUNT", "2"},
                           {"TORCHELASTIC_MAX_RESTARTS", "3"},
                           {"TORCHELASTIC_RUN_ID", "r1"},
                           {"TORCHELASTIC_USE_AGENT_STORE", "False"},
                           {"NCCL_ASYNC_ERROR_HANDLING", "1"},
                           {"OMP_NUM_THREADS", "1"},
                           {"TORCHELASTIC_ERROR_FILE", "/logs/attempt_2/1/error.json"}});
  Environment kept =
      worker_environment({{"OMP_NUM_THREADS", "8"}, {"NCCL_ASYNC_ERROR_HANDLING", "0"}}, c, id);
  CHECK(kept["OMP_NUM_THREADS"] == "8");
  CHECK(kept["NCCL_ASYNC_ERROR_HANDLING"] == "0");
}

TEST_CASE("worker env: torch 2.x's names and the agent store") {
  LaunchConfig c = config({"--rdzv_backend=c10d", "--rdzv_endpoint=h:1", "--rdzv_id=r1",
                           "--torch_version=2.6.0+debian", "t.py"});
  REQUIRE(c.torch == RdzvDialect::Torch2);
  WorkerIdentity id{0, 0, 0, 0, 1, 1, 1, "host0", 41000, 0, "/e.json"};
  id.use_agent_store = true;
  Environment env = worker_environment({}, c, id);
  CHECK(env["TORCHELASTIC_USE_AGENT_STORE"] == "True");
  CHECK(env["TORCH_NCCL_ASYNC_ERROR_HANDLING"] == "1");
  CHECK_FALSE(env.count("NCCL_ASYNC_ERROR_HANDLING"));
  CHECK_FALSE(env.count("OMP_NUM_THREADS"));  // one worker
  Environment kept = worker_environment({{"TORCH_NCCL_ASYNC_ERROR_HANDLING", "3"}}, c, id);
  CHECK(kept["TORCH_NCCL_ASYNC_ERROR_HANDLING"] == "3");
}

TEST_CASE("warm workers: --preload or PET_PRELOAD, the boot command, the release and its env") {
  CHECK_FALSE(can_start_warm(config({"t.py"})));
  LaunchConfig c = config({"--preload", "torch,numpy", "t.py", "--epochs=2"},
                          {{"PYTHON_EXEC", "/usr/bin/python3"}});
  REQUIRE(can_start_warm(c));
  CHECK(can_start_warm(config({"-m", "pkg.train"}, {{"PET_PRELOAD", "torch"}})));
  CHECK_THROWS_WITH(config({"--preload", "torch", "--no_python", "/bin/true"}),
                    Catch::Contains("--preload needs a python worker"));
  std::vector<std::string> boot = warm_argv(c, 3);
  REQUIRE(boot.size() == 6);
  CHECK(boot[0] == "/usr/bin/python3");
  CHECK(boot[1] == "-u");
  CHECK(boot[2] == "-c");
  CHECK(boot[4] == "3");
  CHECK(boot[5] == "torch,numpy");
  // What the pipe gets: the command after `python -u`, then the environment, NUL-separated.
  std::string message = warm_release_message(worker_argv(c, 0), {{"A", "1"}, {"B", "x=y"}});
  constexpr char expected[] = "2\0t.py\0--epochs=2\0A=1\0B=x=y\0";
  CHECK(message == std::string(expected, sizeof expected - 1));
  // Before the round, a worker's environment has everything but what the round decides.
  WorkerIdentity id;
  id.local_rank = 1;
  id.restart_count = 2;
  id.error_file = "/logs/attempt_2/1/error.json";
  Environment env = warm_environment(worker_environment({{"PATH", "/bin"}}, c, id));
  CHECK(env["LOCAL_RANK"] == "1");
  CHECK(env["TORCHELASTIC_RESTART_COUNT"] == "2");
  CHECK(env["PATH"] == "/bin");
  for (const char* key :
       {"RANK", "GROUP_RANK", "ROLE_RANK", "WORLD_SIZE", "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE",
        "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_USE_AGENT_STORE"})
    CHECK_FALSE(env.count(key));
}
