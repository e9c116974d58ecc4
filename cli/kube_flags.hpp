#pragma once
/// The flags every cluster command shares (--kubeconfig, --context, -n, --request-timeout,
/// --debug) and the client session they open. kubectl's rules for the kubeconfig apply
/// (src/kubeapi/kubeconfig.hpp); --debug prints one line per request on stderr, never a
/// header, token or key.

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "ejob/kubeapi/client.hpp"

namespace ejob::cli {

struct KubeFlags {
  std::string kubeconfig;
  std::string context;
  std::string name_space;
  /// As kubectl's: seconds ("30") or a Go duration ("1m30s"); 0 = no limit.
  std::string request_timeout = "60";
  bool debug = false;
};

/// Whether the command gets its -n/--namespace from here or has its own.
enum class NamespaceFlag { Add, Skip };

/// Adds the flags to a subcommand.
void add_kube_flags(CLI::App& app, KubeFlags& flags, NamespaceFlag ns = NamespaceFlag::Add);

/// --show-managed-fields, for commands with -o json/yaml.
void add_managed_fields_flag(CLI::App& app, bool& show);

/// --request-timeout as the transport takes it (0: no limit); ejob::Error(Usage) when it is
/// neither seconds nor a duration.
std::chrono::milliseconds request_timeout_of(const KubeFlags& flags);

/// True when the flags or the environment name a cluster (a kubeconfig, in-cluster).
bool has_cluster(const KubeFlags& flags);

/// The namespace of the job commands: -n, else the jobs' default namespace (elastic-job).
std::string job_namespace(const KubeFlags& flags);

/// True when the flags choose this machine instead of a cluster: `--context local`.
inline bool is_local_context(const KubeFlags& flags) { return flags.context == "local"; }

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
