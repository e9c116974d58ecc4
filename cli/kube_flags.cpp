#include "cli/kube_flags.hpp"

#include <iostream>

namespace ejob::cli {

void add_kube_flags(CLI::App& app, KubeFlags& flags, NamespaceFlag ns) {
  flags.team_config = true;  // the team config's namespace is the default
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

void add_managed_fields_flag(CLI::App& app, bool& show) {
  app.add_flag("--show-managed-fields", show,
               "Keep metadata.managedFields in -o json/yaml (hidden, as kubectl hides them)");
}

job::KubeSession open_session(const KubeFlags& flags, const std::string& name_space) {
  job::SessionNotes notes;
  // Requests run side by side (one per engine, say): each note goes out in one write, so
  // that two threads' lines never interleave on the terminal.
  notes.retry = [](const std::string& line) { std::cerr << ("ejob: " + line + '\n'); };
  notes.debug = [](const std::string& line) { std::cerr << ("ejob: debug: " + line + '\n'); };
  return job::open_session(flags, name_space, notes);
}

}  // namespace ejob::cli
