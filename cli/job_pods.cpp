#include "ejob/cli/job_pods.hpp"

#include <algorithm>
#include <charconv>

#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using kubeapi::Json;

namespace {

const Json& member(const Json& obj, const char* key) {
  static const Json k_null;
  if (!obj.is_object()) return k_null;
  auto it = obj.find(key);
  return it == obj.end() ? k_null : *it;
}

std::string text(const Json& j) { return j.is_string() ? j.get<std::string>() : std::string(); }

int number(const Json& j) { return j.is_number() ? j.get<int>() : 0; }

}  // namespace

std::string worker_selector(const std::string& name) {
  return "group-name=elastic.pytorch.org,job-name=" + name;
}

Json get_job(kubeapi::Client& client, const std::string& ns, const std::string& name) {
  const kubeapi::ResourceInfo own = kubeapi::own_job_resource();
  std::optional<Json> job = client.try_get(own, ns, name);
  if (!job) {
    const kubeapi::ResourceInfo served = kubeapi::job_resource(client);  // CRD missing: throws
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
    return text(member(member(a, "metadata"), "name")) <
           text(member(member(b, "metadata"), "name"));
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
  const Json& meta = member(job, "metadata");
  return keep_owned(
      worker_pods(client, text(member(meta, "namespace")), text(member(meta, "name"))),
      text(member(meta, "uid")));
}

bool owned_by(const Json& obj, const std::string& uid) {
  const Json& refs = member(member(obj, "metadata"), "ownerReferences");
  if (uid.empty() || !refs.is_array()) return false;
  return std::any_of(refs.begin(), refs.end(),
                     [&](const Json& r) { return text(member(r, "uid")) == uid; });
}

int replica_index(const Json& pod) {
  const std::string label =
      text(member(member(member(pod, "metadata"), "labels"), "replica-index"));
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
  const Json& containers = member(member(pod, "spec"), "containers");
  if (containers.is_array())
    for (const Json& c : containers) names.push_back(text(member(c, "name")));
  const std::string pod_name = text(member(member(pod, "metadata"), "name"));
  if (!wanted.empty()) {
    if (std::find(names.begin(), names.end(), wanted) != names.end()) return wanted;
    std::string choices;
    for (const auto& n : names) choices += (choices.empty() ? "" : " ") + n;
    throw Error(ErrorCode::Usage, "container " + wanted + " is not valid for pod " + pod_name +
                                      ": choose one of [" + choices + "]");
  }
  const std::string annotated = text(member(member(member(pod, "metadata"), "annotations"),
                                            "kubectl.kubernetes.io/default-container"));
  if (!annotated.empty() && std::find(names.begin(), names.end(), annotated) != names.end())
    return annotated;
  if (names.empty()) throw Error(ErrorCode::Api, "pod " + pod_name + " has no containers");
  return names.front();
}

ContainerState container_state(const Json& pod, const std::string& container) {
  ContainerState out;
  out.reason = "PodInitializing";
  const Json& statuses = member(member(pod, "status"), "containerStatuses");
  if (!statuses.is_array()) return out;
  for (const Json& s : statuses) {
    if (text(member(s, "name")) != container) continue;
    out.restarts = number(member(s, "restartCount"));
    const Json& state = member(s, "state");
    if (const Json& t = member(state, "terminated"); t.is_object()) {
      out.phase = ContainerState::Phase::Terminated;
      out.reason = text(member(t, "reason"));
      out.exit_code = number(member(t, "exitCode"));
    } else if (member(state, "running").is_object()) {
      out.phase = ContainerState::Phase::Running;
      out.reason.clear();
    } else {
      out.reason = text(member(member(state, "waiting"), "reason"));
    }
    return out;
  }
  return out;
}

int pod_restarts(const Json& pod) {
  int sum = 0;
  const Json& statuses = member(member(pod, "status"), "containerStatuses");
  if (statuses.is_array())
    for (const Json& s : statuses) sum += number(member(s, "restartCount"));
  return sum;
}

std::optional<std::string> disruption_of(const Json& pod) {
  const Json& status = member(pod, "status");
  if (text(member(status, "reason")) == "Evicted")
    return "Evicted: " + text(member(status, "message"));
  const Json& conditions = member(status, "conditions");
  if (conditions.is_array())
    for (const Json& c : conditions)
      if (text(member(c, "type")) == "DisruptionTarget" && text(member(c, "status")) == "True")
        return text(member(c, "reason")) + ": " + text(member(c, "message"));
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

}  // namespace ejob::cli
