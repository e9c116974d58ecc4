#include "src/job/kube_session.hpp"

#include <unistd.h>

#include "src/job/job_request.hpp"
#include "src/job/job_wait.hpp"
#include "src/job/team_config.hpp"

namespace ejob::job {

std::chrono::milliseconds request_timeout_of(const KubeFlags& flags) {
  return parse_wait_timeout(flags.request_timeout, "--request-timeout")
      .value_or(std::chrono::milliseconds(0));
}

std::string job_namespace(const KubeFlags& flags) {
  if (!flags.name_space.empty()) return flags.name_space;
  const std::string team = flags.team_config ? team_setting(team_config(), "namespace") : "";
  return team.empty() ? std::string(k_job_namespace) : team;
}

bool has_cluster(const KubeFlags& flags) {
  return kubeapi::has_config({flags.kubeconfig, flags.context, flags.name_space},
                             kubeapi::Environment::from_process());
}

KubeSession open_session(const KubeFlags& flags, const std::string& name_space,
                         const SessionNotes& notes) {
  kubeapi::Environment env = kubeapi::Environment::from_process();
  kubeapi::RestConfig cfg =
      kubeapi::load_config({flags.kubeconfig, flags.context, name_space}, env);
  kubeapi::TransportOptions options;
  options.request_timeout = request_timeout_of(flags);
  options.on_retry = notes.retry;
  if (flags.debug) options.debug = notes.debug;
  const auto terminal = isatty(0) ? kubeapi::Terminal::Yes : kubeapi::Terminal::No;
  KubeSession s;
  s.context = cfg.context;
  s.server = cfg.server;
  s.transport = std::make_unique<kubeapi::Transport>(std::move(cfg), std::move(options), terminal);
  s.client = std::make_unique<kubeapi::Client>(*s.transport);
  return s;
}

}  // namespace ejob::job
