#pragma once
/// Warm workers (ejob's --preload, PET_PRELOAD): each worker's python starts, and imports the
/// modules named, while the agent still waits for its round — python and `import torch` take
/// seconds in a worker image (0.8 s on the development VM), which torchrun spends only after
/// the round. Once the round is complete the agent sends the worker its command and
/// environment through a pipe; the interpreter replaces its environment with that one and runs
/// the script as `python -u SCRIPT ARGS` (or `-m MODULE`) would: runpy with `__main__`,
/// sys.argv and sys.path[0] set. What differs from a cold start: the preloaded modules were
/// imported before the script ran (a script that changes the environment before it imports
/// one of them, e.g. OMP_NUM_THREADS before torch, sees its change ignored for that module),
/// and tracebacks show two frames of runpy. Hence off unless asked for.

#include <string>
#include <vector>

#include "src/agent/launch/launch_config.hpp"

namespace ejob::agent {

/// Whether config's workers can start warm: modules to preload and a `python -u` command.
bool can_start_warm(const LaunchConfig& config);

/// The warm interpreter's command: config's python with the boot program, which reads the
/// pipe `control_fd` after importing config.preload.
std::vector<std::string> warm_argv(const LaunchConfig& config, int control_fd);

/// What the agent writes into a warm worker's pipe: the worker's command after `python -u`
/// and its whole environment, NUL-separated.
std::string warm_release_message(const std::vector<std::string>& worker_argv,
                                 const Environment& env);

/// The environment a warm worker starts with: the worker environment without what only the
/// round decides (RANK, WORLD_SIZE, MASTER_ADDR, ... ; sent at release).
Environment warm_environment(Environment worker_env);

}  // namespace ejob::agent
