/// `ejob delete NAME... [--all] [--wait]`: deletes ElasticJobs; the objects they own (etcd
/// Service and Pod, claims, the controller's worker pods and services) follow through owner
/// references, and the job's PersistentVolumes (cluster-scoped, so not ownable) are deleted by
/// label. --wait returns once the job and its pods are gone.

#include <iostream>
#include <thread>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/local_job.hpp"
#include "ejob/job/job_pods.hpp"
#include "ejob/job/job_wait.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/render/go_time.hpp"
#include "ejob/util/error.hpp"

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

std::string instance_selector(const std::string& name) {
  return "app.kubernetes.io/instance=" + name + "," + k_managed_by_ejob;
}

/// The job's remaining pods: its own (etcd) and the controller's workers.
size_t pods_left(kubeapi::Client& c, const std::string& ns, const std::string& name) {
  const kubeapi::ResourceInfo pods = c.resource("v1", "Pod");
  return c.list(pods, ns, {instance_selector(name)}).items.size() +
         c.list(pods, ns, {worker_selector(name)}).items.size();
}

void wait_gone(kubeapi::Client& c, const kubeapi::ResourceInfo& res, const std::string& ns,
               const std::string& name, std::optional<std::chrono::milliseconds> timeout) {
  const auto deadline = timeout ? std::chrono::steady_clock::now() + *timeout
                                : std::chrono::steady_clock::time_point::max();
  while (c.try_get(res, ns, name) || pods_left(c, ns, name) > 0) {
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error(ErrorCode::Timeout,
                  "elasticjob \"" + name + "\" was still being deleted after " +
                      render::gotime::duration_string(
                          std::chrono::duration_cast<std::chrono::nanoseconds>(*timeout).count()));
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

/// Deletes the objects of `kind` labelled as job `name`'s that are left: PersistentVolumes
/// (never owned), and objects of a job applied without ejob (kubectl, helm) and so not owned.
void delete_labelled(kubeapi::Client& c, const std::string& kind, const std::string& ns,
                     const std::string& name) {
  const kubeapi::ResourceInfo res = c.resource("v1", kind);
  const std::string where = res.namespaced ? ns : "";
  for (const auto& o : c.list(res, where, {instance_selector(name)}).items)
    c.remove(res, where, o["metadata"].value("name", ""));
}

/// The finalizers that keep a deleted object (the DELETE's answer) in place, "" when it went.
std::string holding_finalizers(const kubeapi::Json& answer) {
  if (json_text(json_at(answer, {"metadata", "deletionTimestamp"})).empty()) return "";
  std::string list;
  if (const auto& f = json_at(answer, {"metadata", "finalizers"}); f.is_array())
    for (const auto& one : f) list += (list.empty() ? "" : ", ") + json_text(one);
  return list.empty() ? "(none left)" : list;
}

/// Deletes one job and its objects; false when the job did not exist. Background
/// propagation: the job goes at once and the garbage collector takes what it owns, so
/// "deleted" is true when said (Foreground left it Terminating until the collector acted:
/// up to 30 s after a CRD install, forever without a collector). A job that finalizers hold
/// is said to be terminating.
bool delete_job(kubeapi::Client& c, const kubeapi::ResourceInfo& res, const std::string& ns,
                const std::string& name) {
  const auto answer = c.remove(res, ns, name, kubeapi::Propagation::Background);
  if (!answer) return false;
  for (const char* kind : {"Pod", "Service", "PersistentVolumeClaim", "PersistentVolume"})
    delete_labelled(c, kind, ns, name);
  if (const std::string held = holding_finalizers(*answer); !held.empty())
    std::cout << "elasticjob.elastic.pytorch.org \"" << name
              << "\" is terminating: its finalizers (" << held
              << ") hold it until their controllers release it\n";
  else
    std::cout << "elasticjob.elastic.pytorch.org \"" << name << "\" deleted\n";
  return true;
}

void run_delete(const DeleteFlags& f) {
  if (f.all == !f.names.empty())
    throw Error(ErrorCode::Usage,
                f.all ? "--all takes no job names" : "name the jobs to delete, or pass --all");
  const auto timeout = parse_wait_timeout(f.timeout, "--timeout");
  // Local jobs by name are stopped here (they are gone when delete_local returns); the rest
  // are the cluster's.
  std::vector<std::string> cluster_names;
  for (const std::string& name : f.names) {
    if (targets_local_job(f.kube, name))
      delete_local(name, f.keep);
    else
      cluster_names.push_back(name);
  }
  if (!f.all && cluster_names.empty()) return;
  KubeSession session = open_session(f.kube);
  kubeapi::Client& c = *session.client;
  const std::string ns =
      f.kube.name_space.empty() ? std::string(k_job_namespace) : f.kube.name_space;
  const kubeapi::ResourceInfo res = kubeapi::job_resource(c);
  std::vector<std::string> names = cluster_names;
  if (f.all)
    for (const auto& job : c.list(res, ns, {k_managed_by_ejob}).items)
      names.push_back(job["metadata"]["name"]);
  std::vector<std::string> missing;
  for (const std::string& name : names)
    if (!delete_job(c, res, ns, name)) missing.push_back(name);
  if (f.wait)
    for (const std::string& name : names) wait_gone(c, res, ns, name, timeout);
  if (f.all && names.empty()) std::cerr << "No jobs found in namespace " << ns << ".\n";
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "\"" : ", \"") + m + "\"";
    throw Error(ErrorCode::NotFound, "elasticjob " + list + " not found in namespace " + ns);
  }
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
