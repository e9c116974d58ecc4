#include "src/job/cluster_backend.hpp"

#include <algorithm>
#include <ctime>
#include <future>
#include <thread>

#include "src/job/cluster_submit.hpp"
#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_view.hpp"
#include "src/job/job_wait.hpp"
#include "src/kubeapi/api_error.hpp"
#include "src/render/go/time.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

std::string instance_selector(const std::string& name) {
  return "app.kubernetes.io/instance=" + name + "," + k_managed_by_ejob;
}

/// The job's remaining pods: its own (etcd) and the controller's workers.
size_t pods_left(kubeapi::Client& c, const Engine& e, const std::string& ns,
                 const std::string& name) {
  const kubeapi::ResourceInfo pods = c.resource("v1", "Pod");
  return c.list(pods, ns, {instance_selector(name)}).items.size() +
         c.list(pods, ns, {engine_worker_selector(e, name)}).items.size();
}

void wait_gone(kubeapi::Client& c, const Engine& e, const std::string& ns, const std::string& name,
               std::optional<std::chrono::milliseconds> timeout) {
  const auto deadline = timeout ? std::chrono::steady_clock::now() + *timeout
                                : std::chrono::steady_clock::time_point::max();
  while (c.try_get(engine_resource(e), ns, name) || pods_left(c, e, ns, name) > 0) {
    if (std::chrono::steady_clock::now() >= deadline)
      throw Error(ErrorCode::Timeout,
                  job_noun(e, name) + " was still being deleted after " +
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
/// "0, 1, 2" (or "none"): the replica indexes of `pods`.
std::string worker_indexes(const std::vector<Json>& pods) {
  std::string list;
  for (const Json& p : pods) list += (list.empty() ? "" : ", ") + std::to_string(replica_index(p));
  return list.empty() ? "none" : list;
}

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

/// Each engine's jobs made by ejob; nullopt when the cluster does not serve its kind (404).
std::optional<std::vector<Json>> engine_jobs(kubeapi::Client& c, const Engine& e,
                                             const std::string& ns) {
  try {
    return c.list(engine_resource(e), ns, {k_managed_by_ejob}).items;
  } catch (const kubeapi::ApiError& error) {
    if (error.http_status() == 404) return std::nullopt;
    throw;
  }
}

std::vector<Json> ClusterBackend::list() {
  // Every engine's jobs, asked side by side (one round trip); by namespace and name.
  std::vector<std::future<std::optional<std::vector<Json>>>> asks;
  for (const Engine* e : all_engines())
    asks.push_back(
        std::async(std::launch::async, [this, e] { return engine_jobs(m_client, *e, m_ns); }));
  std::vector<Json> jobs;
  bool served = false;
  for (auto& ask : asks)
    if (auto found = ask.get()) {
      served = true;
      for (Json& j : *found) jobs.push_back(std::move(j));
    }
  if (!served) throw no_engine_served();
  std::stable_sort(jobs.begin(), jobs.end(), [](const Json& a, const Json& b) {
    auto key = [](const Json& j) {
      return std::pair(json_text(json_at(j, {"metadata", "namespace"})),
                       json_text(json_at(j, {"metadata", "name"})));
    };
    return key(a) < key(b);
  });
  return jobs;
}

void ClusterBackend::wait(const std::string& name, const WaitOptions& options,
                          const Report& report) {
  wait_for_job(m_client, get_job(m_client, m_ns, name), options.timeout, options.max_preemptions,
               report);
}

Removed ClusterBackend::remove(const std::string& name, const RemoveOptions&) {
  // Background propagation: the job goes at once and the garbage collector takes what it
  // owns, so "deleted" is true when said (Foreground left it Terminating until the collector
  // acted: up to 30 s after a CRD install, forever without a collector).
  std::optional<Json> job;
  try {
    job = get_job(m_client, m_ns, name);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::NotFound) throw;
    return {};
  }
  const Engine& engine = job_engine(*job);
  m_removed[name] = &engine;
  const auto answer =
      m_client.remove(engine_resource(engine), m_ns, name, kubeapi::Propagation::Background,
                      kubeapi::DryRun::None, json_text(json_at(*job, {"metadata", "uid"})));
  if (!answer) return {};
  for (const char* kind : {"Pod", "Service", "PersistentVolumeClaim", "PersistentVolume"})
    delete_labelled(m_client, kind, m_ns, name);
  const std::string api_version = engine.api_version;
  return {true, holding_finalizers(*answer),
          std::string(engine.name) + "." + api_version.substr(0, api_version.find('/'))};
}

void ClusterBackend::wait_removed(const std::string& name,
                                  std::optional<std::chrono::milliseconds> timeout) {
  const auto it = m_removed.find(name);
  const Engine& engine =
      it != m_removed.end() ? *it->second : job_engine(get_job(m_client, m_ns, name));
  wait_gone(m_client, engine, m_ns, name, timeout);
}

const Engine& ClusterBackend::scale_job(const std::string& name, int nodes) {
  const Json job = get_job(m_client, m_ns, name);
  const Engine& engine = job_engine(job);
  m_client.merge_patch(engine_resource(engine), m_ns, name, scale_patch(engine, job, nodes));
  return engine;
}

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

/// An `Evicted` event of the pod, as the kubelet writes one for its own evictions: the
/// Eviction API leaves no trace once the pod is gone, and describe and --wait count a job's
/// preemptions from the pods' conditions and these events. A drill that may not write events
/// (RBAC) is still a drill: the event is left out.
void record_eviction(kubeapi::Client& c, const Json& pod, const std::string& why) {
  const Json& meta = pod["metadata"];
  Json event = {{"apiVersion", "v1"},
                {"kind", "Event"},
                {"metadata",
                 {{"generateName", meta.value("name", "") + "."},
                  {"namespace", meta.value("namespace", "")}}},
                {"involvedObject",
                 {{"kind", "Pod"},
                  {"apiVersion", "v1"},
                  {"name", meta.value("name", "")},
                  {"namespace", meta.value("namespace", "")},
                  {"uid", meta.value("uid", "")}}},
                {"reason", "Evicted"},
                {"message", why},
                {"type", "Warning"},
                {"source", {{"component", "ejob"}}},
                {"firstTimestamp", utc_now()},
                {"lastTimestamp", utc_now()},
                {"count", 1}};
  try {
    c.create(c.resource("v1", "Event"), event);
  } catch (const Error&) {
  }
}

}  // namespace

std::vector<std::string> ClusterBackend::evict(const std::string& name, const EvictRequest& r) {
  if (r.notice || !r.provider.empty())
    throw Error(ErrorCode::Usage,
                "--notice drills a local job (a cloud sends a cluster's notices itself); on a "
                "cluster, --node NODE cordons a node and evicts the job's workers on it");
  if (r.worker && !r.node.empty())
    throw Error(ErrorCode::Usage, "--worker and --node: one or the other");
  if (!r.node.empty()) return evict_node(name, r.node);
  if (!r.worker) throw Error(ErrorCode::Usage, "--worker or --node: what to evict");
  const Json job = get_job(m_client, m_ns, name);
  for (const Json& pod : job_pods(m_client, job))
    if (replica_index(pod) == *r.worker) {
      const std::string pod_name = json_text(json_at(pod, {"metadata", "name"}));
      m_client.evict(m_ns, pod_name);
      record_eviction(m_client, pod, "Evicted by ejob evict --worker (a spot reclaim drill)");
      return {"pod \"" + pod_name + "\" evicted"};
    }
  const Engine& engine = job_engine(job);
  throw Error(ErrorCode::NotFound,
              job_noun(engine, name) + " has no worker " + std::to_string(*r.worker) +
                  " (its workers: " + worker_indexes(job_pods(m_client, job)) + ")");
}

/// What a spot VM's reclaim does to a node, as `kubectl drain` drills it: the node cordoned
/// (no new pod goes there), then the job's workers on it evicted through the Eviction API
/// (disruption budgets apply); the job's controller makes them again elsewhere.
std::vector<std::string> ClusterBackend::evict_node(const std::string& name,
                                                    const std::string& node) {
  const Json job = get_job(m_client, m_ns, name);
  std::vector<Json> on_node;
  for (const Json& pod : job_pods(m_client, job))
    if (json_text(json_at(pod, {"spec", "nodeName"})) == node) on_node.push_back(pod);
  if (on_node.empty())
    throw Error(ErrorCode::NotFound,
                job_noun(job_engine(job), name) + " has no worker on node \"" + node + "\"");
  m_client.merge_patch(m_client.resource("v1", "Node"), "", node,
                       Json{{"spec", {{"unschedulable", true}}}});
  std::vector<std::string> done = {"node/" + node + " cordoned"};
  for (const Json& pod : on_node) {
    const std::string pod_name = json_text(json_at(pod, {"metadata", "name"}));
    m_client.evict(m_ns, pod_name);
    record_eviction(m_client, pod, "Evicted by ejob evict --node " + node + " (node cordoned)");
    done.push_back("pod \"" + pod_name + "\" evicted");
  }
  return done;
}

Description ClusterBackend::describe(const std::string& name) {
  return fetch_view(m_client, m_ns, name);
}

}  // namespace ejob::job
