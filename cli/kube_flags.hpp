#pragma once
/// The flags every cluster command shares (--kubeconfig, --context, -n, --request-timeout,
/// --debug) into job::KubeFlags, and the session they open with its notes on stderr (--debug
/// prints one line per request, never a header, token or key).

#include <CLI/CLI.hpp>
#include <string>

#include "src/job/kube_session.hpp"

namespace ejob::cli {

using job::KubeFlags;

/// Whether the command gets its -n/--namespace from here or has its own.
enum class NamespaceFlag { Add, Skip };

/// Adds the flags to a subcommand.
void add_kube_flags(CLI::App& app, KubeFlags& flags, NamespaceFlag ns = NamespaceFlag::Add);

/// --show-managed-fields, for commands with -o json/yaml.
void add_managed_fields_flag(CLI::App& app, bool& show);

/// job::open_session with its retries and --debug lines on stderr.
job::KubeSession open_session(const KubeFlags& flags, const std::string& name_space = "");

}  // namespace ejob::cli
