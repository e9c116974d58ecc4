#pragma once
/// What shell completion offers for the values only a cluster or this machine knows: the
/// kubeconfig's contexts and namespaces, and the names of the jobs a command can name. Each
/// answers quickly or not at all: completion must never hang a shell or print an error.

#include <chrono>
#include <string>
#include <vector>

#include "src/job/kube_session.hpp"

namespace ejob::job {

/// The kubeconfig's contexts, then `local` (this machine, as `--context local`).
std::vector<std::string> context_names(const KubeFlags& flags);

/// The namespaces the kubeconfig's contexts name, and the jobs' default (elastic-job).
std::vector<std::string> namespace_names(const KubeFlags& flags);

/// The local jobs, and the cluster's jobs in the flags' namespace when a cluster answers within
/// `timeout`; sorted, each once.
std::vector<std::string> job_names(const KubeFlags& flags, std::chrono::milliseconds timeout);

}  // namespace ejob::job
