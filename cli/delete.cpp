/// `ejob delete NAME... [--all] [--wait]`: deletes ElasticJobs; the objects they own (etcd
/// Service and Pod, claims, the controller's worker pods and services) follow through owner
/// references, and the job's PersistentVolumes (cluster-scoped, so not ownable) are deleted by
/// label. --wait returns once the job and its pods are gone.

#include <iostream>
#include <thread>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/cluster_submit.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_table.hpp"
#include "src/job/job_wait.hpp"
#include "src/job/jobs.hpp"
#include "src/render/go/time.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

struct DeleteFlags {
  KubeFlags kube;
  std::vector<std::string> names;
  bool all = false;
  bool wait = false;
  std::string timeout = "300";
  bool keep = false;  ///< local jobs: keep the state folder
};

/// What delete says of a job it removed.
void say_removed(const std::string& name, const job::Removed& r, bool local) {
  const std::string what = (local || r.kind.empty() ? "elasticjob" : r.kind) + " \"" + name + "\"";
  if (!r.held_by.empty())
    std::cout << what << " is terminating: its finalizers (" << r.held_by
              << ") hold it until their controllers release it\n";
  else
    std::cout << what << " deleted" << (local ? " (local)" : "") << "\n";
}

void run_delete(const DeleteFlags& f) {
  if (f.all == !f.names.empty())
    throw Error(ErrorCode::Usage,
                f.all ? "--all takes no job names" : "name the jobs to delete, or pass --all");
  const auto timeout = parse_wait_timeout(f.timeout, "--timeout");
  // Local jobs by name are stopped first (gone when their removal returns); the rest are the
  // cluster's.
  std::vector<std::string> local_names, cluster_names;
  for (const std::string& name : f.names)
    (targets_local_job(f.kube, name) ? local_names : cluster_names).push_back(name);
  job::LocalBackend local = local_backend();
  const job::RemoveOptions options{f.keep};
  job::remove_jobs(
      local, local_names, options, false, timeout,
      [](const std::string& n, const job::Removed& r) { say_removed(n, r, true); },
      "on this machine");
  if (!f.all && cluster_names.empty()) return;
  KubeSession session = open_session(f.kube);
  const std::string ns = job_namespace(f.kube);
  job::ClusterBackend cluster(*session.client, ns);
  if (f.all)
    for (const auto& j : cluster.list()) cluster_names.push_back(j["metadata"]["name"]);
  if (f.all && cluster_names.empty()) std::cerr << "No jobs found in namespace " << ns << ".\n";
  job::remove_jobs(
      cluster, cluster_names, options, f.wait, timeout,
      [](const std::string& n, const job::Removed& r) { say_removed(n, r, false); },
      "in namespace " + ns);
}

}  // namespace

void register_delete(CLI::App& app) {
  auto flags = std::make_shared<DeleteFlags>();
  CLI::App* cmd = app.add_subcommand("delete", "Delete jobs and everything they own");
  cmd->add_option("names", flags->names, "Job names");
  add_kube_flags(*cmd, flags->kube);
  cmd->add_flag("--all", flags->all, "Every ejob job in the namespace");
  cmd->add_flag("--keep", flags->keep, "Local jobs: keep their logs and state after stopping them");
  cmd->add_flag("--wait", flags->wait, "Return once the jobs and their pods are gone");
  cmd->add_option("--timeout", flags->timeout,
                  "How long --wait waits: seconds or a duration such as 5m (0: no limit)");
  cmd->callback([flags] { run_delete(*flags); });
}

}  // namespace ejob::cli
