#include "src/job/job_pods.hpp"

#include <algorithm>
#include <charconv>
#include <future>

#include "src/job/engine.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

using kubeapi::Json;

namespace {

int number(const Json& j) { return j.is_number() ? j.get<int>() : 0; }

}  // namespace

const Json& json_at(const Json& obj, std::initializer_list<const char*> path) {
  static const Json k_null;
  const Json* cur = &obj;
  for (const char* key : path) {
    if (!cur->is_object()) return k_null;
    auto it = cur->find(key);
    if (it == cur->end()) return k_null;
    cur = &*it;
  }
  return *cur;
}

std::string json_text(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number_integer()) return std::to_string(j.get<long>());
  if (j.is_number()) return std::to_string(static_cast<long>(j.get<double>()));
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  return "";
}

namespace {

/// Each engine's job `name`, asked side by side at the paths their CRDs define: one round
/// trip. A 404 is the same answer for "no such job" and "no such kind".
std::vector<Json> jobs_named(kubeapi::Client& client, const std::string& ns,
                             const std::string& name) {
  std::vector<std::future<std::optional<Json>>> asks;
  for (const Engine* e : all_engines())
    asks.push_back(std::async(std::launch::async, [&client, &ns, &name, e] {
      return client.try_get(engine_resource(*e), ns, name);
    }));
  std::vector<Json> found;
  std::exception_ptr failed;
  for (auto& ask : asks) try {
      if (auto job = ask.get()) found.push_back(std::move(*job));
    } catch (...) {
      failed = std::current_exception();
    }
  if (failed && found.empty()) std::rethrow_exception(failed);
  return found;
}

/// Why job `name` was not found: no engine served (saying how to install one), or none of
/// the served ones has a job of that name.
Error job_not_found(kubeapi::Client& client, const std::string& ns, const std::string& name) {
  const std::vector<const Engine*> served = served_engines(client);
  if (served.empty()) return no_engine_served();
  if (served.size() == 1)
    return Error(ErrorCode::NotFound, job_noun(*served[0], name) + " not found in namespace " + ns);
  std::string kinds;
  for (const Engine* e : served) kinds += (kinds.empty() ? "" : ", ") + std::string(e->name);
  return Error(ErrorCode::NotFound, "job \"" + name + "\" not found in namespace " + ns + " (no " +
                                        kinds + " of that name)");
}

}  // namespace

Json get_job(kubeapi::Client& client, const std::string& ns, const std::string& name) {
  std::vector<Json> found = jobs_named(client, ns, name);
  if (found.empty()) throw job_not_found(client, ns, name);
  // The same name under two engines: the newest is the one meant (RFC 3339 sorts by time).
  auto newest = std::max_element(found.begin(), found.end(), [](const Json& a, const Json& b) {
    return json_text(json_at(a, {"metadata", "creationTimestamp"})) <
           json_text(json_at(b, {"metadata", "creationTimestamp"}));
  });
  return std::move(*newest);
}

std::vector<Json> worker_pods(kubeapi::Client& client, const Engine& engine, const std::string& ns,
                              const std::string& name) {
  std::vector<Json> out =
      client.list(client.resource("v1", "Pod"), ns, {engine_worker_selector(engine, name)}).items;
  std::stable_sort(out.begin(), out.end(), [](const Json& a, const Json& b) {
    const int ia = replica_index(a);
    const int ib = replica_index(b);
    if (ia != ib) return ia < ib;
    return json_text(json_at(a, {"metadata", "name"})) <
           json_text(json_at(b, {"metadata", "name"}));
  });
  return out;
}

std::vector<Json> keep_owned(std::vector<Json> objects, const std::string& uid) {
  objects.erase(std::remove_if(objects.begin(), objects.end(),
                               [&](const Json& o) { return !owned_by(o, uid); }),
                objects.end());
  return objects;
}

std::vector<Json> job_pods(kubeapi::Client& client, const Json& job) {
  const Engine& engine = job_engine(job);
  const Json& meta = json_at(job, {"metadata"});
  std::vector<Json> pods = worker_pods(client, engine, json_text(json_at(meta, {"namespace"})),
                                       json_text(json_at(meta, {"name"})));
  return runs_job_only(engine, job, std::move(pods));
}

std::vector<Json> runs_job_only(const Engine& engine, const Json& job, std::vector<Json> pods) {
  pods.erase(std::remove_if(pods.begin(), pods.end(),
                            [&](const Json& p) { return !runs_job(engine, job, p); }),
             pods.end());
  return pods;
}

bool owned_by(const Json& obj, const std::string& uid) {
  const Json& refs = json_at(obj, {"metadata", "ownerReferences"});
  if (uid.empty() || !refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(),
                     [&](const Json& r) { return json_text(json_at(r, {"uid"})) == uid; });
}

int replica_index(const Json& pod) {
  // ElasticJob's controller, training-operator's, and a Job's completion index (TrainJob).
  std::string label;
  for (const char* key : {"replica-index", "training.kubeflow.org/replica-index",
                          "batch.kubernetes.io/job-completion-index"})
    if (label.empty()) label = json_text(json_at(pod, {"metadata", "labels", key}));
  int value = -1;
  const auto [end, ec] = std::from_chars(label.data(), label.data() + label.size(), value);
  return ec == std::errc() && end == label.data() + label.size() && value >= 0 ? value : -1;
}

std::string short_pod_name(const std::string& job, const std::string& pod) {
  if (pod.size() > job.size() + 1 && pod.compare(0, job.size(), job) == 0 && pod[job.size()] == '-')
    return pod.substr(job.size() + 1);
  return pod;
}

std::string pod_label(const std::string& job, const Json& pod) {
  const std::string rjob =
      json_text(json_at(pod, {"metadata", "labels", "jobset.sigs.k8s.io/replicatedjob-name"}));
  const int index = replica_index(pod);
  if (!rjob.empty() && index >= 0) return rjob + "-" + std::to_string(index);
  return short_pod_name(job, json_text(json_at(pod, {"metadata", "name"})));
}

std::string log_container(const Json& pod, const std::string& wanted) {
  std::vector<std::string> names;
  const Json& containers = json_at(pod, {"spec", "containers"});
  if (containers.is_array())
    for (const Json& c : containers) names.push_back(json_text(json_at(c, {"name"})));
  const std::string pod_name = json_text(json_at(pod, {"metadata", "name"}));
  if (!wanted.empty()) {
    if (std::find(names.begin(), names.end(), wanted) != names.end()) return wanted;
    std::string choices;
    for (const auto& n : names) choices += (choices.empty() ? "" : " ") + n;
    throw Error(ErrorCode::Usage, "container " + wanted + " is not valid for pod " + pod_name +
                                      ": choose one of [" + choices + "]");
  }
  const std::string annotated = json_text(
      json_at(pod, {"metadata", "annotations", "kubectl.kubernetes.io/default-container"}));
  if (!annotated.empty() && std::find(names.begin(), names.end(), annotated) != names.end())
    return annotated;
  if (names.empty()) throw Error(ErrorCode::Api, "pod " + pod_name + " has no containers");
  return names.front();
}

ContainerState container_state(const Json& pod, const std::string& container) {
  ContainerState out;
  out.reason = "PodInitializing";
  const Json& statuses = json_at(pod, {"status", "containerStatuses"});
  if (!statuses.is_array()) return out;
  for (const Json& s : statuses) {
    if (json_text(json_at(s, {"name"})) != container) continue;
    out.restarts = number(json_at(s, {"restartCount"}));
    const Json& state = json_at(s, {"state"});
    if (const Json& t = json_at(state, {"terminated"}); t.is_object()) {
      out.phase = ContainerState::Phase::Terminated;
      out.reason = json_text(json_at(t, {"reason"}));
      out.exit_code = number(json_at(t, {"exitCode"}));
    } else if (json_at(state, {"running"}).is_object()) {
      out.phase = ContainerState::Phase::Running;
      out.reason.clear();
    } else {
      out.reason = json_text(json_at(state, {"waiting", "reason"}));
    }
    return out;
  }
  return out;
}

int pod_restarts(const Json& pod) {
  int sum = 0;
  const Json& statuses = json_at(pod, {"status", "containerStatuses"});
  if (statuses.is_array())
    for (const Json& s : statuses) sum += number(json_at(s, {"restartCount"}));
  return sum;
}

std::optional<std::string> disruption_of(const Json& pod) {
  const Json& status = json_at(pod, {"status"});
  if (json_text(json_at(status, {"reason"})) == "Evicted")
    return "Evicted: " + json_text(json_at(status, {"message"}));
  const Json& conditions = json_at(status, {"conditions"});
  if (conditions.is_array())
    for (const Json& c : conditions)
      if (json_text(json_at(c, {"type"})) == "DisruptionTarget" &&
          json_text(json_at(c, {"status"})) == "True")
        return json_text(json_at(c, {"reason"})) + ": " + json_text(json_at(c, {"message"}));
  return std::nullopt;
}

std::vector<std::string> LineSplitter::add(std::string_view chunk) {
  std::vector<std::string> lines;
  for (size_t nl; (nl = chunk.find('\n')) != std::string_view::npos;) {
    m_pending.append(chunk.substr(0, nl));
    lines.push_back(std::move(m_pending));
    m_pending.clear();
    chunk.remove_prefix(nl + 1);
  }
  m_pending.append(chunk);
  return lines;
}

std::string LineSplitter::rest() { return std::exchange(m_pending, {}); }

}  // namespace ejob::job
