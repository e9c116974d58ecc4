#include "ejob/cli/local_job.hpp"

#include <iostream>

#include "ejob/cli/job_describe.hpp"
#include "ejob/job/job_wait.hpp"
#include "ejob/job/jobs.hpp"
#include "ejob/local/local_jobs.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: requests, pods, views, status, waiting
namespace {

/// The ejob executable, for the supervisor it starts (argv[0] may be relative or on PATH).
std::string self_path() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ErrorCode::Internal, "cannot find the ejob executable: " + ec.message());
  return path.string();
}

}  // namespace

job::LocalBackend local_backend() {
  job::LocalBackend backend(self_path());
  backend.warn = [](const std::string& line) { std::cerr << "ejob: warning: " << line << '\n'; };
  backend.report_every = job::report_interval();
  return backend;
}

bool targets_local_job(const KubeFlags& flags, const std::string& name) {
  if (job::named_target(flags.context, job::local_job_exists(name)) == job::Where::Local)
    return true;
  if (!has_cluster(flags))
    throw Error(ErrorCode::NotFound,
                "no local job named \"" + name +
                    "\", and no cluster configured to look in (no kubeconfig)");
  return false;
}

}  // namespace ejob::cli
