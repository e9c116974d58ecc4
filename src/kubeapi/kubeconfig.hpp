#pragma once
/// Kubeconfig loading as kubectl does it, and in-cluster configuration.
///
/// Rules (k8s.io/client-go/tools/clientcmd):
/// - `--kubeconfig FILE` alone when given (the file must exist); otherwise every file of the
///   `KUBECONFIG` list (':'-separated, missing files skipped), merged in order: the first file
///   that defines a cluster, user or context name wins, and so does the first current-context;
///   otherwise `~/.kube/config`; when none exists and `KUBERNETES_SERVICE_HOST/PORT` are set,
///   the in-cluster configuration.
/// - The context is `--context`, else current-context. The namespace is `-n`, else the
///   context's, else `default`.
/// - Relative file paths (certificate-authority, client-certificate, client-key, tokenFile,
///   and an exec command with a '/') are relative to the kubeconfig file that names them.
/// - `*-data` fields are base64; files are read at load time, except tokenFile, which
///   Credentials re-reads.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ejob::kubeapi {

/// An exec credential plugin (client.authentication.k8s.io/v1 or v1beta1).
struct ExecConfig {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string interactive_mode = "IfAvailable";  ///< Never, IfAvailable or Always
  bool provide_cluster_info = false;
};

/// Everything needed to reach and authenticate to one API server.
struct RestConfig {
  std::string context;  ///< the context's name ("in-cluster" for the in-cluster config)
  std::string server;   ///< https://host:port, no trailing '/'
  std::string ca_pem;   ///< trusted CA certificates (PEM); empty = system store
  bool insecure = false;
  std::string tls_server_name;
  std::string proxy_url;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;
  std::string token_file;
  std::string username;
  std::string password;
  std::optional<ExecConfig> exec;
  std::string namespace_name = "default";
};

/// The process environment and file locations, replaceable by tests.
struct Environment {
  std::map<std::string, std::string> vars;
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";

  /// The real process environment.
  static Environment from_process();
  /// The variable's value, or nullopt when unset.
  [[nodiscard]] std::optional<std::string> get(const std::string& name) const;
};

/// What the command line says about the configuration (empty = not given).
struct ConfigFlags {
  std::string kubeconfig;
  std::string context;
  std::string namespace_name;
};

/// Loads the configuration. Throws ejob::Error(Input) for an unreadable or malformed
/// kubeconfig, a missing context/cluster/user, or no configuration at all.
RestConfig load_config(const ConfigFlags& flags, const Environment& env);

/// True when some configuration applies (a kubeconfig file, or the in-cluster variables):
/// whether there is a cluster to talk to at all, before reading anything.
bool has_config(const ConfigFlags& flags, const Environment& env);

/// A context of the kubeconfig, and the namespace it names ("" when none).
struct KubeContext {
  std::string name;
  std::string namespace_name;
};

/// Every context of the kubeconfig files that apply (merged as load_config merges them, in
/// name order); none without a kubeconfig. Throws ejob::Error(Input) for a malformed file.
std::vector<KubeContext> list_contexts(const ConfigFlags& flags, const Environment& env);

/// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT, and token, ca.crt and
/// namespace from the service-account directory. Throws ejob::Error(Input) when incomplete.
RestConfig load_in_cluster(const Environment& env);

}  // namespace ejob::kubeapi
