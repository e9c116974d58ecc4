#include "ejob/cli/kube_flags.hpp"

#include <unistd.h>

#include <iostream>

#include "ejob/job/job_request.hpp"
#include "ejob/job/job_wait.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting

void add_kube_flags(CLI::App& app, KubeFlags& flags, NamespaceFlag ns) {
  app.add_option("--kubeconfig", flags.kubeconfig,
                 "Kubeconfig file (default: KUBECONFIG, ~/.kube/config)");
  app.add_option("--context", flags.context, "Kubeconfig context (default: current-context)");
  if (ns == NamespaceFlag::Add)
    app.add_option("-n,--namespace", flags.name_space, "Namespace (default: elastic-job)");
  app.add_option("--request-timeout", flags.request_timeout,
                 "How long one request may take, retries included: seconds or a duration such as "
                 "1m (0: no limit)");
  app.add_flag("--debug", flags.debug, "Print each API request on stderr (no credentials)");
}

std::chrono::milliseconds request_timeout_of(const KubeFlags& flags) {
  return parse_wait_timeout(flags.request_timeout, "--request-timeout")
      .value_or(std::chrono::milliseconds(0));
}

std::string job_namespace(const KubeFlags& flags) {
  return flags.name_space.empty() ? std::string(job::k_job_namespace) : flags.name_space;
}

bool has_cluster(const KubeFlags& flags) {
  return kubeapi::has_config({flags.kubeconfig, flags.context, flags.name_space},
                             kubeapi::Environment::from_process());
}

KubeSession open_session(const KubeFlags& flags, const std::string& name_space) {
  kubeapi::Environment env = kubeapi::Environment::from_process();
  kubeapi::RestConfig cfg =
      kubeapi::load_config({flags.kubeconfig, flags.context, name_space}, env);
  kubeapi::TransportOptions options;
  options.request_timeout = request_timeout_of(flags);
  options.on_retry = [](const std::string& line) { std::cerr << "ejob: " << line << '\n'; };
  if (flags.debug)
    options.debug = [](const std::string& line) { std::cerr << "ejob: debug: " << line << '\n'; };
  const auto terminal = isatty(0) ? kubeapi::Terminal::Yes : kubeapi::Terminal::No;
  KubeSession s;
  s.transport = std::make_unique<kubeapi::Transport>(std::move(cfg), std::move(options), terminal);
  s.client = std::make_unique<kubeapi::Client>(*s.transport);
  return s;
}

void add_managed_fields_flag(CLI::App& app, bool& show) {
  app.add_flag("--show-managed-fields", show,
               "Keep metadata.managedFields in -o json/yaml (hidden, as kubectl hides them)");
}

}  // namespace ejob::cli
