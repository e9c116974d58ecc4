#pragma once
/// The cluster a command talks to, as its flags name it (--kubeconfig, --context, -n,
/// --request-timeout, --debug; cli/kube_flags.hpp adds them), and the client session they open.
/// kubectl's rules for the kubeconfig apply (src/kubeapi/kubeconfig.hpp).

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "src/kubeapi/client.hpp"

namespace ejob::job {

/// The values of the cluster flags every cluster command shares.
struct KubeFlags {
  std::string kubeconfig;
  std::string context;
  std::string name_space;
  /// As kubectl's: seconds ("30") or a Go duration ("1m30s"); 0 = no limit.
  std::string request_timeout = "60";
  bool debug = false;
  /// The team config's namespace is the default (team_config.hpp); cli/ turns it on.
  bool team_config = false;
};

/// --request-timeout as the transport takes it (0: no limit); ejob::Error(Usage) when it is
/// neither seconds nor a duration.
std::chrono::milliseconds request_timeout_of(const KubeFlags& flags);

/// True when the flags or the environment name a cluster (a kubeconfig, in-cluster).
bool has_cluster(const KubeFlags& flags);

/// The namespace of the job commands: -n, else the team config's (when flags.team_config),
/// else the jobs' default namespace (elastic-job).
std::string job_namespace(const KubeFlags& flags);

/// True when the flags choose this machine instead of a cluster: `--context local`.
inline bool is_local_context(const KubeFlags& flags) { return flags.context == "local"; }

/// A transport and a client on it, for one command run.
struct KubeSession {
  std::unique_ptr<kubeapi::Transport> transport;
  std::unique_ptr<kubeapi::Client> client;
  std::string context;  ///< the kubeconfig context's name ("in-cluster" inside a pod)
  std::string server;   ///< the API server's https://host:port
};

/// Where a session's notes go: a retry about to be made, and with --debug one line per
/// request (never a header, token or key).
struct SessionNotes {
  std::function<void(const std::string&)> retry;
  std::function<void(const std::string&)> debug;
};

/// Loads the configuration (kubeconfig, in-cluster) and opens a session. `name_space`
/// overrides the context's namespace when not empty. Throws ejob::Error(Input) for a bad
/// kubeconfig.
KubeSession open_session(const KubeFlags& flags, const std::string& name_space,
                         const SessionNotes& notes);

}  // namespace ejob::job
