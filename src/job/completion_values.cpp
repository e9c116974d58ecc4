#include "src/job/completion_values.hpp"

#include <algorithm>
#include <set>

#include "src/job/cluster_backend.hpp"
#include "src/job/job_request.hpp"
#include "src/job/jobs.hpp"
#include "src/job/local_backend.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

std::vector<kubeapi::KubeContext> contexts_of(const KubeFlags& flags) {
  try {
    return kubeapi::list_contexts({flags.kubeconfig, flags.context, flags.name_space},
                                  kubeapi::Environment::from_process());
  } catch (const Error&) {  // a malformed kubeconfig: nothing to offer
    return {};
  }
}

/// The names of the cluster's jobs, or none when no cluster answers in time.
std::vector<std::string> cluster_job_names(const KubeFlags& flags,
                                           std::chrono::milliseconds timeout) {
  if (is_local_context(flags) || !has_cluster(flags)) return {};
  KubeFlags quick = flags;
  quick.request_timeout = std::to_string(std::max<long long>(1, timeout.count() / 1000));
  std::vector<std::string> names;
  try {
    KubeSession session = open_session(quick, job_namespace(flags), {});
    for (const Json& job : ClusterBackend(*session.client, job_namespace(flags)).list())
      names.push_back(job["metadata"].value("name", ""));
  } catch (const std::exception&) {  // unreachable, forbidden, no CRD: the local ones remain
  }
  return names;
}

}  // namespace

std::vector<std::string> context_names(const KubeFlags& flags) {
  std::vector<std::string> names;
  for (const kubeapi::KubeContext& c : contexts_of(flags)) names.push_back(c.name);
  names.emplace_back("local");
  return names;
}

std::vector<std::string> namespace_names(const KubeFlags& flags) {
  std::set<std::string> names = {std::string(k_job_namespace)};
  for (const kubeapi::KubeContext& c : contexts_of(flags))
    if (!c.namespace_name.empty()) names.insert(c.namespace_name);
  return {names.begin(), names.end()};
}

std::vector<std::string> job_names(const KubeFlags& flags, std::chrono::milliseconds timeout) {
  std::set<std::string> names;
  try {
    LocalBackend local = LocalBackend::of_this_executable();
    for (const Json& job : local.list()) names.insert(job["metadata"].value("name", ""));
  } catch (const std::exception&) {  // no state folder yet
  }
  for (std::string& name : cluster_job_names(flags, timeout)) names.insert(std::move(name));
  names.erase("");
  return {names.begin(), names.end()};
}

}  // namespace ejob::job
