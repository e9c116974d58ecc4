#pragma once
/// What every command needs to reach local jobs (`ejob submit --local`, src/local): the local
/// backend, and which side a named job is on. A local job is listed, followed, described,
/// scaled, evicted and deleted with the same commands, output shapes and exit codes as a
/// cluster job, through job::Backend.

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

}  // namespace ejob::cli
