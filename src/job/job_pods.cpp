#include "src/job/job_pods.hpp"

#include <algorithm>
#include <charconv>

#include "src/job/cluster_submit.hpp"
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

std::string worker_selector(const std::string& name) {
  return "group-name=elastic.pytorch.org,job-name=" + name;
}

Json get_job(kubeapi::Client& client, const std::string& ns, const std::string& name) {
  const kubeapi::ResourceInfo own = job::cluster::own_job_resource();
  std::optional<Json> job = client.try_get(own, ns, name);
  if (!job) {
    const kubeapi::ResourceInfo served = job::cluster::job_resource(client);  // CRD missing: throws
    if (served.plural != own.plural || served.version != own.version)
      job = client.try_get(served, ns, name);
  }
  if (!job)
    throw Error(ErrorCode::NotFound, "elasticjob \"" + name + "\" not found in namespace " + ns);
  return std::move(*job);
}

std::vector<Json> worker_pods(kubeapi::Client& client, const std::string& ns,
                              const std::string& name) {
  std::vector<Json> out =
      client.list(client.resource("v1", "Pod"), ns, {worker_selector(name)}).items;
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
  const Json& meta = json_at(job, {"metadata"});
  return keep_owned(worker_pods(client, json_text(json_at(meta, {"namespace"})),
                                json_text(json_at(meta, {"name"}))),
                    json_text(json_at(meta, {"uid"})));
}

bool owned_by(const Json& obj, const std::string& uid) {
  const Json& refs = json_at(obj, {"metadata", "ownerReferences"});
  if (uid.empty() || !refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(),
                     [&](const Json& r) { return json_text(json_at(r, {"uid"})) == uid; });
}

int replica_index(const Json& pod) {
  const std::string label = json_text(json_at(pod, {"metadata", "labels", "replica-index"}));
  int value = -1;
  const auto [end, ec] = std::from_chars(label.data(), label.data() + label.size(), value);
  return ec == std::errc() && end == label.data() + label.size() && value >= 0 ? value : -1;
}

std::string short_pod_name(const std::string& job, const std::string& pod) {
  if (pod.size() > job.size() + 1 && pod.compare(0, job.size(), job) == 0 && pod[job.size()] == '-')
    return pod.substr(job.size() + 1);
  return pod;
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
