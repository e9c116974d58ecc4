#include "ejob/job/jobs.hpp"

#include "ejob/util/error.hpp"

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

}  // namespace ejob::job
