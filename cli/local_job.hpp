#pragma once
/// The local backend of the commands (`ejob submit --local`, src/local), its warnings on
/// stderr. A local job is listed, followed, described, scaled, evicted and deleted with the
/// same commands, output shapes and exit codes as a cluster job, through job::Backend; which
/// side a named job is on is job::targets_local_job.

#include "src/job/local_backend.hpp"

namespace ejob::cli {

/// job::LocalBackend::of_this_executable(), its list() warnings on stderr.
job::LocalBackend local_backend();

}  // namespace ejob::cli
