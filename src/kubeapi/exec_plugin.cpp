#include "src/kubeapi/exec_plugin.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>

#include "src/util/base64.hpp"
#include "src/util/error.hpp"

extern char** environ;

namespace ejob::kubeapi {
namespace {

using nlohmann::json;

/// The file descriptors of a pipe, closed when this goes out of scope.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0)
      throw Error(ErrorCode::Internal, "pipe: " + std::string(strerror(errno)));
  }
  ~Pipe() {
    for (int f : fd)
      if (f >= 0) close(f);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void close_end(int i) {
    close(fd[i]);
    fd[i] = -1;
  }
};

std::string exec_info(const RestConfig& cfg, bool interactive) {
  json spec = {{"interactive", interactive}};
  if (cfg.exec->provide_cluster_info) {
    json cluster = {{"server", cfg.server}};
    if (!cfg.ca_pem.empty()) cluster["certificate-authority-data"] = base64_encode(cfg.ca_pem);
    if (cfg.insecure) cluster["insecure-skip-tls-verify"] = true;
    if (!cfg.tls_server_name.empty()) cluster["tls-server-name"] = cfg.tls_server_name;
    if (!cfg.proxy_url.empty()) cluster["proxy-url"] = cfg.proxy_url;
    spec["cluster"] = cluster;
  }
  return json{{"kind", "ExecCredential"}, {"apiVersion", cfg.exec->api_version}, {"spec", spec}}
      .dump();
}

std::vector<std::string> plugin_env(const RestConfig& cfg, bool interactive) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  for (const auto& [k, v] : cfg.exec->env) env.push_back(k + "=" + v);
  env.push_back("KUBERNETES_EXEC_INFO=" + exec_info(cfg, interactive));
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Runs the command; returns its stdout, throws on spawn failure or non-zero exit.
std::string run(const RestConfig& cfg, bool interactive) {
  const ExecConfig& exec = *cfg.exec;
  std::vector<std::string> argv = {exec.command};
  argv.insert(argv.end(), exec.args.begin(), exec.args.end());
  std::vector<std::string> envp = plugin_env(cfg, interactive);
  auto c_argv = c_strings(argv);
  auto c_envp = c_strings(envp);
  Pipe out;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  if (!interactive) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, exec.command.c_str(), &actions, nullptr, c_argv.data(), c_envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    throw Error(ErrorCode::Auth,
                "exec plugin: cannot run \"" + exec.command + "\": " + strerror(rc));
  out.close_end(1);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out.fd[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status));
    throw Error(ErrorCode::Auth, "exec plugin \"" + exec.command + "\" failed with " + how);
  }
  return text;
}

ExecCredential parse(const RestConfig& cfg, const std::string& text) {
  const std::string& cmd = cfg.exec->command;
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception&) {
    throw Error(ErrorCode::Auth,
                "exec plugin \"" + cmd + "\" did not print an ExecCredential (invalid JSON)");
  }
  if (!doc.is_object() || doc.value("kind", "") != "ExecCredential")
    throw Error(ErrorCode::Auth, "exec plugin \"" + cmd + "\" did not print an ExecCredential");
  if (doc.value("apiVersion", "") != cfg.exec->api_version)
    throw Error(ErrorCode::Auth, "exec plugin \"" + cmd + "\" returned apiVersion \"" +
                                     doc.value("apiVersion", "") + "\", configured with \"" +
                                     cfg.exec->api_version + "\"");
  const json status = doc.value("status", json::object());
  ExecCredential cred;
  cred.token = status.value("token", "");
  cred.client_cert_pem = status.value("clientCertificateData", "");
  cred.client_key_pem = status.value("clientKeyData", "");
  if (cred.token.empty() && (cred.client_cert_pem.empty() || cred.client_key_pem.empty()))
    throw Error(
        ErrorCode::Auth,
        "exec plugin \"" + cmd + "\" returned neither a token nor a client certificate and key");
  if (const std::string exp = status.value("expirationTimestamp", ""); !exp.empty()) {
    cred.expires = parse_rfc3339(exp);
    if (!cred.expires)
      throw Error(
          ErrorCode::Auth,
          "exec plugin \"" + cmd + "\" returned a malformed expirationTimestamp \"" + exp + "\"");
  }
  return cred;
}

}  // namespace

ExecCredential run_exec_plugin(const RestConfig& cfg, Terminal terminal) {
  const std::string& mode = cfg.exec->interactive_mode;
  if (mode == "Always" && terminal == Terminal::No)
    throw Error(ErrorCode::Auth,
                "exec plugin \"" + cfg.exec->command +
                    "\" needs a terminal (interactiveMode: Always) and standard input is not one");
  const bool interactive = mode != "Never" && terminal == Terminal::Yes;
  return parse(cfg, run(cfg, interactive));
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
             &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  std::string_view rest = std::string_view(text).substr(static_cast<size_t>(consumed));
  if (!rest.empty() && rest[0] == '.') {
    size_t i = 1;
    while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    rest.remove_prefix(i);
  }
  long offset = 0;
  if (rest == "Z" || rest == "z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':') {
    const int h = std::stoi(std::string(rest.substr(1, 2)));
    const int m = std::stoi(std::string(rest.substr(4, 2)));
    offset = (rest[0] == '+' ? 1 : -1) * (h * 3600 + m * 60);
  } else {
    return std::nullopt;
  }
  // Far-future expiries are clamped: system_clock counts nanoseconds and ends in 2262.
  const time_t t = std::min<time_t>(timegm(&tm), 4102444800 /* 2100-01-01 */);
  return std::chrono::system_clock::from_time_t(t - offset);
}

}  // namespace ejob::kubeapi
