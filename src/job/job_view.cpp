#include "src/job/job_view.hpp"

#include <algorithm>
#include <future>
#include <set>

#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/kubeapi/exec_plugin.hpp"

namespace ejob::job {

using kubeapi::Json;
using Clock = std::chrono::system_clock;

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// Splits `text` at its dashes.
std::vector<std::string_view> dash_parts(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t dash = text.find('-', start);
    parts.push_back(text.substr(start, dash == std::string_view::npos ? dash : dash - start));
    if (dash == std::string_view::npos) return parts;
    start = dash + 1;
  }
}

/// A TrainJob's JobSet names its Jobs `NAME-RJOB-I` and their pods `NAME-RJOB-I-K-xxxxx`.
bool is_jobset_child(std::string_view kind, std::string_view rest) {
  const auto parts = dash_parts(rest);
  if (kind == "Job") return parts.size() == 2 && all_digits(parts[1]);
  return kind == "Pod" && parts.size() == 4 && all_digits(parts[1]) && all_digits(parts[2]) &&
         parts[3].size() == 5;
}

/// Whether an event is about one of job `name`'s objects by name: the etcd Pod and Service,
/// worker pods and their headless Services (`NAME-worker-I`, also `NAME-master-0`), and a
/// TrainJob's JobSet, Jobs and their pods.
bool names_job_object(const std::string& job, const Json& ev) {
  const std::string kind = json_text(json_at(ev, {"involvedObject", "kind"}));
  const std::string name = json_text(json_at(ev, {"involvedObject", "name"}));
  if (kind == "JobSet") return name == job;
  if (kind != "Pod" && kind != "Service" && kind != "Job") return false;
  const std::string rest = short_pod_name(job, name);
  if (rest == name) return false;
  if (is_jobset_child(kind, rest)) return true;
  if (kind == "Job") return false;
  if (rest == "etcd" || rest == "etcd-service") return true;
  for (std::string_view role : {"worker-", "master-"})
    if (rest.size() > role.size() && rest.compare(0, role.size(), role) == 0 &&
        all_digits(std::string_view(rest).substr(role.size())))
      return true;
  return false;
}

constexpr const char* k_eviction_reasons[] = {"Evicted", "Preempted", "TaintManagerEviction"};

bool is_eviction_event(const Json& ev) {
  const std::string reason = json_text(ev.value("reason", Json()));
  return json_text(json_at(ev, {"involvedObject", "kind"})) == "Pod" &&
         std::find(std::begin(k_eviction_reasons), std::end(k_eviction_reasons), reason) !=
             std::end(k_eviction_reasons);
}

}  // namespace

/// When an event last happened: lastTimestamp, else eventTime, else firstTimestamp.
std::string event_time(const Json& ev) {
  for (const char* key : {"lastTimestamp", "eventTime", "firstTimestamp"})
    if (std::string t = json_text(ev.value(key, Json())); !t.empty()) return t;
  return json_text(json_at(ev, {"metadata", "creationTimestamp"}));
}

std::string event_first_time(const Json& ev) {
  for (const char* key : {"firstTimestamp", "eventTime"})
    if (std::string t = json_text(ev.value(key, Json())); !t.empty()) return t;
  return event_time(ev);
}

std::vector<Json> job_events(const Json& job, const std::vector<Json>& events) {
  const std::string uid = json_text(json_at(job, {"metadata", "uid"}));
  const std::string name = json_text(json_at(job, {"metadata", "name"}));
  std::vector<Json> out;
  for (const Json& ev : events)
    if ((!uid.empty() && json_text(json_at(ev, {"involvedObject", "uid"})) == uid) ||
        names_job_object(name, ev))
      out.push_back(ev);
  std::stable_sort(out.begin(), out.end(), [](const Json& a, const Json& b) {
    const auto ta = kubeapi::parse_rfc3339(event_time(a));
    const auto tb = kubeapi::parse_rfc3339(event_time(b));
    return ta.value_or(Clock::time_point{}) < tb.value_or(Clock::time_point{});
  });
  return out;
}

std::vector<Eviction> job_evictions(const JobView& view) {
  const std::string job = json_text(json_at(view.job, {"metadata", "name"}));
  std::vector<std::pair<std::string, Eviction>> found;  // (time, eviction)
  std::set<std::string> seen;                           // pod uids, or names when no uid
  for (const Json& pod : view.workers) {
    const auto why = disruption_of(pod);
    if (!why) continue;
    std::string when;
    const Json& conditions = json_at(pod, {"status", "conditions"});
    if (conditions.is_array())
      for (const Json& c : conditions)
        if (json_text(c.value("type", Json())) == "DisruptionTarget")
          when = json_text(c.value("lastTransitionTime", Json()));
    const std::string name = json_text(json_at(pod, {"metadata", "name"}));
    seen.insert(json_text(json_at(pod, {"metadata", "uid"})));
    found.push_back({when, {short_pod_name(job, name), when, *why}});
  }
  for (const Json& ev : job_events(view.job, view.events)) {
    if (!is_eviction_event(ev)) continue;
    const std::string uid = json_text(json_at(ev, {"involvedObject", "uid"}));
    const std::string name = json_text(json_at(ev, {"involvedObject", "name"}));
    if (!seen.insert(uid.empty() ? name : uid).second) continue;
    const std::string when = event_time(ev);
    found.push_back(
        {when,
         {short_pod_name(job, name), when,
          json_text(ev.value("reason", Json())) + ": " + json_text(ev.value("message", Json()))}});
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    // A time not known (a pod's status.reason alone) sorts last.
    return kubeapi::parse_rfc3339(a.first).value_or(Clock::time_point::max()) <
           kubeapi::parse_rfc3339(b.first).value_or(Clock::time_point::max());
  });
  std::vector<Eviction> out;
  for (auto& [when, e] : found) out.push_back(std::move(e));
  return out;
}

std::string job_status(const Json& job) {
  if (!json_text(json_at(job, {"metadata", "deletionTimestamp"})).empty()) return "Terminating";
  const auto status = job.value("status", Json::object());
  // A TrainJob (and its JobSet) says Complete where the others say Succeeded.
  static constexpr const char* k_order[] = {"Succeeded",  "Complete", "Completed", "Failed",
                                            "Restarting", "Running",  "Suspended", "Created"};
  bool seen[std::size(k_order)] = {};
  for (const auto& c : status.value("conditions", Json::array())) {
    if (c.value("status", "") != "True") continue;
    for (std::size_t i = 0; i < std::size(k_order); ++i)
      if (c.value("type", "") == k_order[i]) seen[i] = true;
  }
  for (std::size_t i = 0; i < std::size(k_order); ++i)
    if (seen[i]) return i == 1 || i == 2 ? "Succeeded" : k_order[i];
  // A TrainJob and its JobSet have no Running condition: their jobs' counts say it.
  for (const char* key : {"jobsStatus", "replicatedJobsStatus"})
    if (const Json& jobs = status.value(key, Json::array()); jobs.is_array())
      for (const Json& j : jobs)
        if (j.value("active", 0) > 0) return "Running";
  if (status.value("active", 0) > 0) return "Running";  // a Job
  return "Pending";
}

namespace {

/// What the engine's controller made to run a TrainJob: its JobSet (named as the job) and
/// the JobSet's Jobs.
std::vector<Json> trainjob_runs(kubeapi::Client& c, const std::string& ns,
                                const std::string& name) {
  std::vector<Json> out;
  const auto jobset = c.find_resource("jobset.x-k8s.io/v1alpha2", "JobSet");
  if (!jobset) return out;
  if (auto set = c.try_get(*jobset, ns, name)) out.push_back(std::move(*set));
  for (Json& j :
       c.list(c.resource("batch/v1", "Job"), ns, {"jobset.sigs.k8s.io/jobset-name=" + name}).items)
    out.push_back(std::move(j));
  return out;
}

}  // namespace

JobView fetch_view(kubeapi::Client& c, const std::string& ns, const std::string& name) {
  // The job beside its own pods and the events: one round trip; then, knowing the job's
  // engine, its workers (and a TrainJob's JobSet and Jobs): a second one.
  auto own = std::async(std::launch::async, [&] {
    return c
        .list(c.resource("v1", "Pod"), ns,
              {"app.kubernetes.io/instance=" + name + ",app.kubernetes.io/component=etcd," +
               k_managed_by_ejob})
        .items;
  });
  auto events =
      std::async(std::launch::async, [&] { return c.list(c.resource("v1", "Event"), ns).items; });
  JobView view;
  try {
    view.job = get_job(c, ns, name);
  } catch (...) {
    own.wait(), events.wait();
    throw;
  }
  const Engine& engine = job_engine(view.job);
  auto runs = std::async(std::launch::async, [&] {
    return engine.id == EngineId::TrainJob ? trainjob_runs(c, ns, name) : std::vector<Json>{};
  });
  view.workers = job_pods(c, view.job);
  view.runs = runs.get();
  view.own_pods = keep_owned(own.get(), view.job["metadata"].value("uid", ""));
  view.events = events.get();
  return view;
}

}  // namespace ejob::job
