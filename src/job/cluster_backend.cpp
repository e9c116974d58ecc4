#include "src/job/cluster_backend.hpp"

#include <thread>

#include "src/job/cluster_submit.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_view.hpp"
#include "src/job/job_wait.hpp"
#include "src/render/go/time.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

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
                      render::go::gotime::duration_string(
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
std::string holding_finalizers(const Json& answer) {
  if (json_text(json_at(answer, {"metadata", "deletionTimestamp"})).empty()) return "";
  std::string list;
  if (const auto& f = json_at(answer, {"metadata", "finalizers"}); f.is_array())
    for (const auto& one : f) list += (list.empty() ? "" : ", ") + json_text(one);
  return list.empty() ? "(none left)" : list;
}

}  // namespace

Submitted ClusterBackend::submit(const RenderObjects& render, const SubmitOptions& options) {
  job::cluster::SubmitOptions o;
  o.naming = options.exact_name ? job::cluster::NameChoice::Exact : job::cluster::NameChoice::Drawn;
  o.dry_run = options.server_dry_run ? kubeapi::DryRun::All : kubeapi::DryRun::None;
  o.name_space = m_ns;
  o.create_namespace = options.create_namespace;
  job::cluster::SubmitResult r = job::cluster::submit_job(m_client, render, o);
  return {r.job["metadata"].value("name", ""), std::move(r.objects), {}, ""};
}

std::vector<Json> ClusterBackend::list() {
  const kubeapi::ResourceInfo res = job::cluster::job_resource(m_client);
  return m_client.list(res, m_ns, {k_managed_by_ejob}).items;
}

void ClusterBackend::wait(const std::string& name, std::optional<std::chrono::milliseconds> timeout,
                          const Report& report) {
  wait_for_job(m_client, get_job(m_client, m_ns, name), timeout, report);
}

Removed ClusterBackend::remove(const std::string& name, const RemoveOptions&) {
  // Background propagation: the job goes at once and the garbage collector takes what it
  // owns, so "deleted" is true when said (Foreground left it Terminating until the collector
  // acted: up to 30 s after a CRD install, forever without a collector).
  const kubeapi::ResourceInfo res = job::cluster::job_resource(m_client);
  const auto answer = m_client.remove(res, m_ns, name, kubeapi::Propagation::Background);
  if (!answer) return {};
  for (const char* kind : {"Pod", "Service", "PersistentVolumeClaim", "PersistentVolume"})
    delete_labelled(m_client, kind, m_ns, name);
  return {true, holding_finalizers(*answer)};
}

void ClusterBackend::wait_removed(const std::string& name,
                                  std::optional<std::chrono::milliseconds> timeout) {
  wait_gone(m_client, job::cluster::job_resource(m_client), m_ns, name, timeout);
}

void ClusterBackend::scale(const std::string& name, int) {
  throw Error(ErrorCode::Usage, "\"" + name +
                                    "\" is a cluster job: its ElasticJob controller scales it "
                                    "between workers.min and workers.max itself");
}

void ClusterBackend::evict(const std::string& name, int index, int) {
  m_client.evict(m_ns, name + "-worker-" + std::to_string(index));
}

Description ClusterBackend::describe(const std::string& name) {
  return fetch_view(m_client, m_ns, name);
}

}  // namespace ejob::job
