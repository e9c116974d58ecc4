#pragma once
/// Which torch the workers run, and so which dialect of torchrun this agent speaks (store
/// protocol, rendezvous state, agent keys, worker environment; protocols/torch-c10d.md §8):
/// from --torch_version, else read from the worker interpreter's installed torch.

#include <optional>
#include <string>

#include "src/agent/rendezvous/dynamic_state.hpp"

namespace ejob::agent {

/// The dialect of a torch version string (`1.13.1`, `2.6.0+debian`): major 1 speaks 1.13's,
/// major 2 and later 2.x's. Throws ejob::Error(Usage) for a string that is no torch version.
RdzvDialect dialect_of_torch_version(const std::string& version);

/// The `__version__` of the torch `python` would import, read from torch/version.py without
/// importing torch (which takes seconds); nullopt when that python has no torch or does not
/// run.
std::optional<std::string> installed_torch_version(const std::string& python);

}  // namespace ejob::agent
