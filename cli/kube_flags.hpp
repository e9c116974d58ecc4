#pragma once
/// The flags every cluster command shares (--kubeconfig, --context, -n, --request-timeout,
/// --debug) and the client session they open. kubectl's rules for the kubeconfig apply
/// (src/kubeapi/kubeconfig.hpp); --debug prints one line per request on stderr, never a
/// header, token or key.

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "ejob/kubeapi/client.hpp"

namespace ejob::cli {

struct KubeFlags {
  std::string kubeconfig;
  std::string context;
  std::string name_space;
  int request_timeout_s = 60;
  bool debug = false;
};

/// Whether the command gets its -n/--namespace from here or has its own.
enum class NamespaceFlag { Add, Skip };

/// Adds the flags to a subcommand.
void add_kube_flags(CLI::App& app, KubeFlags& flags, NamespaceFlag ns = NamespaceFlag::Add);

/// --show-managed-fields, for commands with -o json/yaml.
void add_managed_fields_flag(CLI::App& app, bool& show);

/// A transport and a client on it, for one command run.
struct KubeSession {
  std::unique_ptr<kubeapi::Transport> transport;
  std::unique_ptr<kubeapi::Client> client;
};

/// Loads the configuration (kubeconfig, in-cluster) and opens a session. `name_space`
/// overrides the context's namespace when not empty. Throws ejob::Error(Input) for a bad
/// kubeconfig.
KubeSession open_session(const KubeFlags& flags, const std::string& name_space = "");

}  // namespace ejob::cli
