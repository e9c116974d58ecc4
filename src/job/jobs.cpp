#include "src/job/jobs.hpp"

#include "src/job/local_backend.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

Where submit_target(bool local_flag, const std::string& context, bool values_say_local) {
  return local_flag || context == "local" || values_say_local ? Where::Local : Where::Cluster;
}

Where named_target(const std::string& context, bool local_job_named) {
  if (context == "local") return Where::Local;
  return context.empty() && local_job_named ? Where::Local : Where::Cluster;
}

std::vector<Json> list_jobs(const std::vector<Backend*>& backends) {
  std::vector<Json> jobs;
  for (Backend* b : backends)
    for (Json& job : b->list()) jobs.push_back(std::move(job));
  return jobs;
}

void remove_jobs(Backend& backend, const std::vector<std::string>& names,
                 const RemoveOptions& options, bool wait,
                 std::optional<std::chrono::milliseconds> timeout,
                 const std::function<void(const std::string&, const Removed&)>& on_removed,
                 const std::string& scope) {
  std::vector<std::string> removed;
  std::string missing;
  for (const std::string& name : names) {
    const Removed r = backend.remove(name, options);
    if (!r.found) {
      missing += (missing.empty() ? "\"" : ", \"") + name + "\"";
      continue;
    }
    removed.push_back(name);
    on_removed(name, r);
  }
  if (wait)
    for (const std::string& name : removed) backend.wait_removed(name, timeout);
  if (!missing.empty())
    throw Error(ErrorCode::NotFound, "elasticjob " + missing + " not found " + scope);
}

bool targets_local_job(const KubeFlags& flags, const std::string& name) {
  if (named_target(flags.context, local_job_exists(name)) == Where::Local) return true;
  if (!has_cluster(flags))
    throw Error(ErrorCode::NotFound,
                "no local job named \"" + name +
                    "\", and no cluster configured to look in (no kubeconfig)");
  return false;
}

}  // namespace ejob::job
