#pragma once
/// The local side of the job commands: a job that runs on this machine (`ejob submit --local`,
/// src/local) is listed, followed, described, scaled, evicted and deleted with the same
/// commands, output shapes and exit codes as a cluster job.
///
/// Which side a command takes: `submit` runs locally with `--local` or `--context local`; the
/// commands that name a job take the local job of that name when one exists (unless a
/// --context other than `local` is given), else the cluster's.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ejob/cli/job.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/manifest_objects.hpp"

namespace ejob::cli {

/// How `submit --local` runs.
struct LocalSubmitPlan {
  Output output = Output::Text;
  bool wait = false;
  bool follow = false;  ///< --follow: print the workers' logs while waiting
  std::optional<std::chrono::milliseconds> timeout;
};

/// Renders the job, starts it on this machine, prints what `submit` prints, and with --wait
/// waits for its end (exit statuses as a cluster job's).
void submit_local(const JobRequest& request, const LocalSubmitPlan& plan);

/// True when `name` is to be taken as a local job (see the file comment).
bool targets_local_job(const KubeFlags& flags, const std::string& name);

/// The local jobs as `ejob list` shows them: each its ElasticJob object with a status written
/// from the local state and the annotation `ejob.io/where: local` (job_where).
std::vector<kubeapi::Json> local_job_objects();

/// `ejob logs NAME [-f]` of a local job; with -f it ends with the job's result.
void logs_local(const std::string& name, bool follow);

/// `ejob describe NAME` of a local job.
void describe_local(const std::string& name, Output output);

/// `ejob delete NAME` of a local job: stops every process, removes the state unless `keep`.
void delete_local(const std::string& name, bool keep);

}  // namespace ejob::cli
