#pragma once
/// The local side of the commands the job layer does not cover yet (logs, describe), and what
/// every command needs to reach local jobs: the backend and which side a named job is on.
/// A local job (`ejob submit --local`, src/local) is followed and described with the same
/// commands, output shapes and exit codes as a cluster job.

#include <string>

#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/manifest_objects.hpp"
#include "ejob/job/local_backend.hpp"

namespace ejob::cli {

/// The local backend, run by this ejob executable; list() warnings go to stderr.
job::LocalBackend local_backend();

/// True when `name` is to be taken as a local job (job::named_target); ejob::Error(NotFound)
/// when it is none and no cluster is configured either.
bool targets_local_job(const KubeFlags& flags, const std::string& name);

/// `ejob logs NAME [-f]` of a local job; with -f it ends with the job's result.
void logs_local(const std::string& name, bool follow);

/// `ejob describe NAME` of a local job.
void describe_local(const std::string& name, Output output);

}  // namespace ejob::cli
