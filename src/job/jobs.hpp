#pragma once
/// The job commands, written once over the backends (backend.hpp): which backend a command
/// takes, and the logic of the commands that act on several jobs or on more than one backend.

#include <string>
#include <vector>

#include "src/job/backend.hpp"
#include "src/job/kube_session.hpp"

namespace ejob::job {

/// Where `ejob submit` runs a job: locally with --local, `--context local` or `backend: local`
/// in its values; else on the cluster.
Where submit_target(bool local_flag, const std::string& context, bool values_say_local);

/// Where a command that names a job (logs, describe, delete, scale, evict) looks: `--context
/// local` means this machine; another --context means that cluster; without one, the local job
/// of that name when there is one, else the cluster.
Where named_target(const std::string& context, bool local_job_named);

/// True when `name` is to be taken as a local job (named_target); ejob::Error(NotFound) when it
/// is none and no cluster is configured either.
bool targets_local_job(const KubeFlags& flags, const std::string& name);

/// Every backend's jobs, backend after backend.
std::vector<Json> list_jobs(const std::vector<Backend*>& backends);

/// Removes jobs `names` from `backend`, reporting each one removed through `on_removed`; with
/// `wait`, then waits until each is over (timeout per job). The names that were not found are
/// reported together once the others are removed: ejob::Error(NotFound) `elasticjob "a", "b"
/// not found SCOPE` (scope: "in namespace ns", "on this machine").
void remove_jobs(Backend& backend, const std::vector<std::string>& names,
                 const RemoveOptions& options, bool wait,
                 std::optional<std::chrono::milliseconds> timeout,
                 const std::function<void(const std::string&, const Removed&)>& on_removed,
                 const std::string& scope);

}  // namespace ejob::job
