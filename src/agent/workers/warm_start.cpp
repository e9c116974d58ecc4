#include "src/agent/workers/warm_start.hpp"

namespace ejob::agent {
namespace {

/// The warm interpreter's program (`python -u -c BOOT FD MODULES`). A module that fails to
/// import is left for the script, which meets the same error where it imports it. An empty
/// message (the agent dropped the worker unused) ends it quietly.
constexpr const char* k_boot = R"(import os, sys
def _ejob_warm():
    fd, modules = int(sys.argv[1]), sys.argv[2]
    for name in filter(None, modules.split(",")):
        try:
            __import__(name)
        except BaseException:
            pass
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    parts = b"".join(chunks).split(b"\0")
    if len(parts) < 2:
        os._exit(0)
    n = int(parts[0])
    os.environb.clear()
    os.environb.update(e.split(b"=", 1) for e in parts[1 + n:] if e)
    return [os.fsdecode(a) for a in parts[1:1 + n]]
_ejob_argv = _ejob_warm()
del _ejob_warm
import runpy
if _ejob_argv[0] == "-m":
    sys.argv = _ejob_argv[1:]
    sys.path[0] = os.getcwd()
    runpy.run_module(_ejob_argv[1], run_name="__main__", alter_sys=True)
else:
    sys.argv = _ejob_argv
    sys.path[0] = os.path.dirname(os.path.realpath(_ejob_argv[0]))
    runpy.run_path(_ejob_argv[0], run_name="__main__")
)";

/// What only the round decides; everything else a worker gets is known before it.
constexpr const char* k_round_keys[] = {
    "RANK",        "GROUP_RANK",       "ROLE_RANK",
    "WORLD_SIZE",  "GROUP_WORLD_SIZE", "ROLE_WORLD_SIZE",
    "MASTER_ADDR", "MASTER_PORT",      "TORCHELASTIC_USE_AGENT_STORE"};

}  // namespace

bool can_start_warm(const LaunchConfig& config) {
  return !config.preload.empty() && config.command.size() >= 3 && config.command[1] == "-u";
}

std::vector<std::string> warm_argv(const LaunchConfig& config, int control_fd) {
  return {config.command[0], "-u", "-c", k_boot, std::to_string(control_fd), config.preload};
}

std::string warm_release_message(const std::vector<std::string>& worker_argv,
                                 const Environment& env) {
  std::string out = std::to_string(worker_argv.size() - 2);
  out += '\0';
  for (std::size_t i = 2; i < worker_argv.size(); ++i) (out += worker_argv[i]) += '\0';
  for (const auto& [k, v] : env) (((out += k) += '=') += v) += '\0';
  return out;
}

Environment warm_environment(Environment worker_env) {
  for (const char* key : k_round_keys) worker_env.erase(key);
  return worker_env;
}

}  // namespace ejob::agent
