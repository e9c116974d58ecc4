#include "src/kubeapi/kubeconfig.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/util/base64.hpp"
#include "src/util/error.hpp"

extern char** environ;

namespace ejob::kubeapi {
namespace {

namespace fs = std::filesystem;

/// One named entry (cluster, user or context) and the file that defined it.
struct Named {
  YAML::Node node;
  fs::path dir;
  fs::path file;  ///< the kubeconfig file it came from, for messages
};

/// The merge of every kubeconfig file: first definition of a name wins.
struct Merged {
  std::map<std::string, Named> clusters;
  std::map<std::string, Named> users;
  std::map<std::string, Named> contexts;
  std::string current_context;
  std::string origin;  ///< the file names, for messages
};

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string must_read(const fs::path& path, const std::string& what) {
  auto text = read_file(path);
  if (!text) throw Error(ErrorCode::Input, "cannot read " + what + " " + path.string());
  return *text;
}

/// A string field, or "" when absent or not a string. `node` may be missing or not a mapping
/// (a context without `context:`, a list item that is a string): yaml-cpp throws on a subscript
/// of those, so they are looked at first.
std::string scalar(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return "";
  const YAML::Node v = node[key];
  return v && v.IsScalar() ? v.as<std::string>() : std::string();
}

/// A boolean field (false when absent). Throws ejob::Error(Input) naming the field when it is
/// something else, as kubectl refuses such a file.
bool boolean(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return false;
  const YAML::Node v = node[key];
  bool out = false;
  if (!v || v.IsNull()) return false;
  if (!v.IsScalar() || !YAML::convert<bool>::decode(v, out))
    throw Error(ErrorCode::Input, std::string("kubeconfig: ") + key + " is not true or false");
  return out;
}

void merge_list(const YAML::Node& list, const char* inner, const fs::path& file,
                std::map<std::string, Named>& into) {
  if (!list || !list.IsSequence()) return;
  for (const YAML::Node& item : list) {
    if (!item.IsMap()) continue;  // kubectl skips nothing here, but has no name to file it under
    const std::string name = scalar(item, "name");
    if (!name.empty() && !into.count(name))
      into.emplace(name, Named{item[inner], file.parent_path(), file});
  }
}

void merge_file(const fs::path& path, Merged& merged) {
  const std::string text = must_read(path, "kubeconfig");
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::Input, "kubeconfig " + path.string() + " is not valid YAML: " + e.msg,
                Location{path.string(), e.mark.line + 1, e.mark.column + 1, {}});
  }
  if (!root.IsMap()) return;
  merge_list(root["clusters"], "cluster", path, merged.clusters);
  merge_list(root["users"], "user", path, merged.users);
  merge_list(root["contexts"], "context", path, merged.contexts);
  if (merged.current_context.empty()) merged.current_context = scalar(root, "current-context");
  merged.origin += (merged.origin.empty() ? "" : ":") + path.string();
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

/// The files to read, in order; empty when no kubeconfig applies.
std::vector<fs::path> config_files(const ConfigFlags& flags, const Environment& env) {
  if (!flags.kubeconfig.empty()) {
    if (!fs::exists(flags.kubeconfig))
      throw Error(ErrorCode::Input, "kubeconfig " + flags.kubeconfig + " does not exist");
    return {flags.kubeconfig};
  }
  std::vector<fs::path> files;
  if (auto list = env.get("KUBECONFIG"); list && !list->empty()) {
    for (const std::string& p : split(*list, ':'))
      if (!p.empty() && fs::exists(p)) files.emplace_back(p);
    return files;
  }
  if (auto home = env.get("HOME")) {
    fs::path def = fs::path(*home) / ".kube" / "config";
    if (fs::exists(def)) files.push_back(def);
  }
  return files;
}

/// Value of a `X-data` (base64) or `X` (file) pair; empty when neither is set.
std::string data_or_file(const Named& entry, const char* key) {
  const std::string data_key = std::string(key) + "-data";
  const std::string data = scalar(entry.node, data_key.c_str());
  if (!data.empty()) {
    std::string error;
    std::string decoded = base64_decode(data, error);
    if (!error.empty()) {
      const YAML::Mark mark = entry.node[data_key].Mark();
      throw Error(ErrorCode::Input,
                  "kubeconfig " + entry.file.string() + ": " + data_key + " is not valid base64 (" +
                      error + ")",
                  Location{entry.file.string(), mark.line + 1, mark.column + 1, {}});
    }
    return decoded;
  }
  const std::string file = scalar(entry.node, key);
  if (file.empty()) return {};
  fs::path path = file;
  if (path.is_relative()) path = entry.dir / path;
  return must_read(path, key);
}

ExecConfig read_exec(const YAML::Node& node, const fs::path& dir) {
  ExecConfig exec;
  exec.api_version = scalar(node, "apiVersion");
  exec.command = scalar(node, "command");
  if (exec.command.find('/') != std::string::npos && fs::path(exec.command).is_relative())
    exec.command = (dir / exec.command).lexically_normal().string();
  if (node["args"] && node["args"].IsSequence()) {
    for (const YAML::Node& a : node["args"]) {
      if (!a.IsScalar())
        throw Error(ErrorCode::Input, "kubeconfig: exec plugin args must be strings");
      exec.args.push_back(a.as<std::string>());
    }
  }
  if (node["env"] && node["env"].IsSequence())
    for (const YAML::Node& e : node["env"])
      exec.env.emplace_back(scalar(e, "name"), scalar(e, "value"));
  if (const std::string mode = scalar(node, "interactiveMode"); !mode.empty())
    exec.interactive_mode = mode;
  exec.provide_cluster_info = boolean(node, "provideClusterInfo");
  if (exec.api_version != "client.authentication.k8s.io/v1" &&
      exec.api_version != "client.authentication.k8s.io/v1beta1")
    throw Error(ErrorCode::Input, "kubeconfig: exec plugin apiVersion \"" + exec.api_version +
                                      "\" is not supported (use client.authentication.k8s.io/v1)");
  if (exec.command.empty()) throw Error(ErrorCode::Input, "kubeconfig: exec plugin has no command");
  return exec;
}

const Named& lookup(const std::map<std::string, Named>& map, const std::string& name,
                    const char* what, const std::string& origin) {
  auto it = map.find(name);
  if (it == map.end())
    throw Error(ErrorCode::Input,
                std::string(what) + " \"" + name + "\" not found in kubeconfig " + origin);
  return it->second;
}

/// Whether `url` is SCHEME://HOST[:PORT][/PATH] with one of `schemes`, a host, and no
/// character a URL cannot hold as it is (a space, a quote).
bool is_url(const std::string& url, std::initializer_list<std::string_view> schemes) {
  const size_t sep = url.find("://");
  if (sep == std::string::npos || std::find(schemes.begin(), schemes.end(),
                                            std::string_view(url).substr(0, sep)) == schemes.end())
    return false;
  const std::string rest = url.substr(sep + 3);
  const std::string host = rest.substr(0, rest.find_first_of("/:"));
  return !host.empty() && url.find_first_of(" \t\"<>\\^`{|}") == std::string::npos;
}

/// The cluster's server as a URL; `HOST:PORT` without a scheme is https, as client-go takes it.
std::string server_url(const Named& cluster) {
  std::string server = scalar(cluster.node, "server");
  if (server.empty())
    throw Error(ErrorCode::Input,
                "kubeconfig " + cluster.file.string() + ": cluster has no server");
  if (server.find("://") == std::string::npos) server = "https://" + server;
  if (!is_url(server, {"https", "http"}))
    throw Error(ErrorCode::Input, "kubeconfig " + cluster.file.string() + ": server \"" +
                                      scalar(cluster.node, "server") +
                                      "\" is not an http(s) URL with a host");
  while (server.back() == '/') server.pop_back();
  return server;
}

void apply_cluster(const Named& cluster, RestConfig& cfg) {
  cfg.server = server_url(cluster);
  cfg.ca_pem = data_or_file(cluster, "certificate-authority");
  cfg.insecure = boolean(cluster.node, "insecure-skip-tls-verify");
  if (cfg.insecure && !cfg.ca_pem.empty())
    throw Error(ErrorCode::Input,
                "kubeconfig: specifying a root certificates file with the insecure flag is not "
                "allowed");
  cfg.tls_server_name = scalar(cluster.node, "tls-server-name");
  cfg.proxy_url = scalar(cluster.node, "proxy-url");
  if (!cfg.proxy_url.empty() && !is_url(cfg.proxy_url, {"http", "https", "socks5"}))
    throw Error(ErrorCode::Input, "kubeconfig " + cluster.file.string() + ": proxy-url \"" +
                                      cfg.proxy_url +
                                      "\" is not an http, https or socks5 URL with a host");
}

void apply_user(const Named& user, RestConfig& cfg) {
  cfg.client_cert_pem = data_or_file(user, "client-certificate");
  cfg.client_key_pem = data_or_file(user, "client-key");
  if (cfg.client_cert_pem.empty() != cfg.client_key_pem.empty())
    throw Error(ErrorCode::Input,
                "kubeconfig " + user.file.string() + ": " +
                    (cfg.client_key_pem.empty() ? "client-certificate without client-key"
                                                : "client-key without client-certificate") +
                    ": the client certificate needs both (client-certificate[-data] and "
                    "client-key[-data])");
  cfg.token = scalar(user.node, "token");
  if (std::string file = scalar(user.node, "tokenFile"); !file.empty())
    cfg.token_file = fs::path(file).is_relative() ? (user.dir / file).string() : file;
  cfg.username = scalar(user.node, "username");
  cfg.password = scalar(user.node, "password");
  if (user.node && user.node.IsMap() && user.node["exec"] && user.node["exec"].IsMap())
    cfg.exec = read_exec(user.node["exec"], user.dir);
}

RestConfig resolve(const Merged& merged, const ConfigFlags& flags) {
  RestConfig cfg;
  cfg.context = flags.context.empty() ? merged.current_context : flags.context;
  if (cfg.context.empty())
    throw Error(ErrorCode::Input, "no context chosen: kubeconfig " + merged.origin +
                                      " has no current-context; pass --context");
  const Named& ctx = lookup(merged.contexts, cfg.context, "context", merged.origin);
  apply_cluster(lookup(merged.clusters, scalar(ctx.node, "cluster"), "cluster", merged.origin),
                cfg);
  if (const std::string user = scalar(ctx.node, "user"); !user.empty())
    apply_user(lookup(merged.users, user, "user", merged.origin), cfg);
  if (std::string ns = scalar(ctx.node, "namespace"); !ns.empty()) cfg.namespace_name = ns;
  return cfg;
}

}  // namespace

Environment Environment::from_process() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv = *e;
    auto eq = kv.find('=');
    if (eq != std::string_view::npos)
      env.vars.emplace(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return env;
}

std::optional<std::string> Environment::get(const std::string& name) const {
  auto it = vars.find(name);
  if (it == vars.end()) return std::nullopt;
  return it->second;
}

bool has_config(const ConfigFlags& flags, const Environment& env) {
  return !flags.kubeconfig.empty() || !config_files(flags, env).empty() ||
         (env.get("KUBERNETES_SERVICE_HOST") && env.get("KUBERNETES_SERVICE_PORT"));
}

RestConfig load_config(const ConfigFlags& flags, const Environment& env) {
  const std::vector<fs::path> files = config_files(flags, env);
  RestConfig cfg;
  if (files.empty()) {
    if (!env.get("KUBERNETES_SERVICE_HOST") || !env.get("KUBERNETES_SERVICE_PORT"))
      throw Error(ErrorCode::Input,
                  "no Kubernetes configuration: set KUBECONFIG, pass --kubeconfig, or create "
                  "~/.kube/config");
    cfg = load_in_cluster(env);
  } else {
    Merged merged;
    try {
      for (const fs::path& f : files) merge_file(f, merged);
      cfg = resolve(merged, flags);
    } catch (const YAML::Exception& e) {
      // a shape of file the readers above do not expect: refused, as kubectl refuses it
      throw Error(ErrorCode::Input, "kubeconfig " + merged.origin + ": " + e.msg);
    }
  }
  if (!flags.namespace_name.empty()) cfg.namespace_name = flags.namespace_name;
  return cfg;
}

std::vector<KubeContext> list_contexts(const ConfigFlags& flags, const Environment& env) {
  Merged merged;
  std::vector<KubeContext> contexts;
  try {
    for (const fs::path& f : config_files(flags, env)) merge_file(f, merged);
    for (const auto& [name, entry] : merged.contexts)
      contexts.push_back({name, scalar(entry.node, "namespace")});
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::Input, "kubeconfig " + merged.origin + ": " + e.msg);
  }
  return contexts;
}

RestConfig load_in_cluster(const Environment& env) {
  auto host = env.get("KUBERNETES_SERVICE_HOST");
  auto port = env.get("KUBERNETES_SERVICE_PORT");
  if (!host || !port || host->empty() || port->empty())
    throw Error(
        ErrorCode::Input,
        "in-cluster configuration needs KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT");
  const fs::path dir = env.service_account_dir;
  RestConfig cfg;
  cfg.context = "in-cluster";
  const bool ipv6 = host->find(':') != std::string::npos;
  cfg.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  cfg.token_file = (dir / "token").string();
  if (!fs::exists(cfg.token_file))
    throw Error(ErrorCode::Input, "in-cluster configuration: cannot read " + cfg.token_file);
  cfg.ca_pem = must_read(dir / "ca.crt", "service-account CA");
  if (auto ns = read_file(dir / "namespace")) {
    std::string trimmed = *ns;
    while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back())))
      trimmed.pop_back();
    if (!trimmed.empty()) cfg.namespace_name = trimmed;
  }
  return cfg;
}

}  // namespace ejob::kubeapi
