#include "src/job/job_wait.hpp"

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_view.hpp"
#include "src/render/go/time.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

using kubeapi::Json;

namespace {

/// "5m3s": a wait's length as Go prints durations, to the second.
std::string took(std::chrono::steady_clock::duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d);
  return render::go::gotime::duration_string(static_cast<int64_t>(s.count()) * 1'000'000'000);
}

/// The job's Failed condition's message, else its reason.
std::string failure_of(const Json& job) {
  for (const Json& c : job.value("status", Json::object()).value("conditions", Json::array()))
    if (c.value("type", "") == "Failed" && c.value("status", "") == "True") {
      std::string m = c.value("message", "");
      return m.empty() ? c.value("reason", "") : m;
    }
  return "";
}

/// Fails the wait for a job that failed: Preempted when its workers were evicted or
/// preempted (current pods, or events of pods gone since), else JobFailed.
[[noreturn]] void fail(kubeapi::Client& c, const Json& job, const std::string& how_long) {
  const std::string name = job["metadata"].value("name", "");
  const std::string ns = job["metadata"].value("namespace", "");
  const std::string noun = job_noun(job_engine(job), name);
  JobView view;
  view.job = job;
  view.workers = job_pods(c, job);
  view.events = c.list(c.resource("v1", "Event"), ns).items;
  const std::vector<Eviction> evictions = job_evictions(view);
  const std::string look = " (see `ejob describe " + name + " -n " + ns + "` and `ejob logs " +
                           name + " -n " + ns + "`)";
  std::string what = failure_of(job);
  what = what.empty() ? "" : ": " + what;
  if (!evictions.empty()) {
    std::string list;
    for (const Eviction& e : evictions) list += (list.empty() ? "" : "; ") + e.pod + " " + e.why;
    throw Error(ErrorCode::Preempted, noun + " failed after " + how_long +
                                          " when its workers were preempted or evicted (" + list +
                                          ")" + what + look);
  }
  throw Error(ErrorCode::JobFailed, noun + " failed after " + how_long + what + look);
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_wait_timeout(const std::string& value,
                                                            const std::string& flag) {
  long seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec == std::errc() && end == value.data() + value.size() && seconds >= 0) {
    if (seconds == 0) return std::nullopt;
    return std::chrono::seconds(seconds);
  }
  std::string error;
  const auto ns = render::go::gotime::parse_duration(value, error);
  if (!ns || *ns < 0)
    throw Error(ErrorCode::Usage, flag + " takes seconds or a duration such as 90m, got \"" +
                                      value + "\"" + (error.empty() ? "" : " (" + error + ")"));
  if (*ns == 0) return std::nullopt;
  return std::chrono::milliseconds(std::max<int64_t>(*ns / 1'000'000, 1));
}

std::chrono::milliseconds report_interval() {
  const char* env = std::getenv("EJOB_WAIT_REPORT_INTERVAL");
  long seconds = 0;
  if (env && std::from_chars(env, env + std::strlen(env), seconds).ec == std::errc() && seconds > 0)
    return std::chrono::seconds(seconds);
  return std::chrono::seconds(30);
}

namespace {

/// Why nothing acts on a job that has neither status nor pods: the engine's operator
/// Deployment (ElasticJob: elastic-job/elastic-job-k8s-controller, as pytorch/elastic's
/// manifests install it; PyTorchJob: kubeflow/training-operator; TrainJob:
/// kubeflow-system/kubeflow-trainer-controller-manager) is missing or has no ready replica.
std::string operator_hint(kubeapi::Client& c, const Engine& e) {
  const std::string where = std::string(e.controller_namespace) + "/" + e.controller;
  const std::string who = std::string("the ") + e.kind + " operator";
  try {
    const auto deployment =
        c.try_get(c.resource("apps/v1", "Deployment"), e.controller_namespace, e.controller);
    if (!deployment)
      return who + " is not installed (no Deployment " + where + "; " + e.install + ")";
    const long ready = json_at(*deployment, {"status", "readyReplicas"}).is_number_integer()
                           ? json_at(*deployment, {"status", "readyReplicas"}).get<long>()
                           : 0;
    if (ready == 0)
      return who + "'s Deployment " + where + " has no ready replica (`kubectl logs -n " +
             e.controller_namespace + " deploy/" + e.controller + "`)";
    return who + " (" + where + ") is running but has not acted on it; see its logs";
  } catch (const Error&) {
    return "is " + who + " installed and running?";
  }
}

/// What --wait still waits for, said every report interval.
std::string progress_note(kubeapi::Client& c, const Json& job, const std::string& elapsed) {
  const Engine& engine = job_engine(job);
  const std::string noun = job_noun(engine, json_text(json_at(job, {"metadata", "name"})));
  const std::vector<Json> pods = job_pods(c, job);
  if (!json_at(job, {"status"}).is_object() && pods.empty())
    return noun + " has no status and no pods after " + elapsed + ": nothing acts on it; " +
           operator_hint(c, engine);
  long running = 0;
  for (const Json& p : pods) running += json_text(json_at(p, {"status", "phase"})) == "Running";
  return "still waiting for " + noun + " to end after " + elapsed + " (" + job_status(job) + "; " +
         std::to_string(running) + " of " + std::to_string(pods.size()) + " workers running)";
}

/// The watch's side of a wait, shared with the thread that reports and ends it on time.
struct WaitState {
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<bool> over{false};
  Json latest;                      ///< the job as last seen
  std::atomic<int> preemptions{0};  ///< worker pods seen evicted or preempted
  std::atomic<bool> too_many_preemptions{false};
};

/// Counts the job's worker pods that were evicted or preempted (a DisruptionTarget condition,
/// the kubelet's Evicted), each pod once, and ends the wait once there are more than `most`.
void count_preemptions(kubeapi::Client& c, const Json& job, WaitState& w, int most) {
  const Engine& engine = job_engine(job);
  kubeapi::WatchOptions opts;
  opts.label_selector = engine_worker_selector(engine, job["metadata"].value("name", ""));
  opts.cancel = &w.over;
  std::set<std::string> disrupted;
  try {
    c.watch(c.resource("v1", "Pod"), job["metadata"].value("namespace", ""), opts,
            [&](const kubeapi::WatchEvent& ev) {
              if (!runs_job(engine, job, ev.object) || !disruption_of(ev.object)) return true;
              disrupted.insert(ev.object["metadata"].value("uid", ""));
              w.preemptions = static_cast<int>(disrupted.size());
              if (w.preemptions <= most) return true;
              std::lock_guard lock(w.mutex);
              w.too_many_preemptions = true;
              w.over = true;
              w.changed.notify_all();
              return false;
            });
  } catch (const Error&) {
    // The count is the wait's extra; a watch that fails leaves the job's own end to decide.
  }
}

/// Until the wait is over: says what it waits for every report interval, and ends it when
/// `timeout` has passed.
void report_until_over(kubeapi::Client& c, WaitState& w,
                       std::chrono::steady_clock::time_point start,
                       std::optional<std::chrono::milliseconds> timeout,
                       const std::function<void(const std::string&)>& note) {
  const auto every = report_interval();
  std::unique_lock lock(w.mutex);
  for (auto next = start + every;; next += every) {
    const auto wake = timeout ? std::min(next, start + *timeout) : next;
    if (w.changed.wait_until(lock, wake, [&] { return w.over.load(); })) return;
    if (timeout && std::chrono::steady_clock::now() >= start + *timeout) {
      w.over = true;
      return;
    }
    const Json job = w.latest;
    lock.unlock();
    try {
      note(progress_note(c, job, took(std::chrono::steady_clock::now() - start)));
    } catch (const Error&) {  // a report that cannot be made is not the wait's failure
    }
    lock.lock();
  }
}

/// How watching a job ended: its last status, or its deletion.
struct JobEnd {
  std::string status;
  bool deleted = false;
};

/// Notes each status of the job until it succeeds, fails or is deleted, or the wait is over.
JobEnd watch_until_end(kubeapi::Client& c, const Json& job, WaitState& w,
                       const std::function<void(const std::string&)>& note) {
  const std::string name = job["metadata"].value("name", "");
  const std::string uid = job["metadata"].value("uid", "");
  const Engine& engine = job_engine(job);
  JobEnd end{job_status(job)};
  note(job_noun(engine, name) + " is " + end.status);
  if (end.status == "Succeeded" || end.status == "Failed") return end;
  kubeapi::WatchOptions opts;
  opts.field_selector = "metadata.name=" + name;
  // From the version the wait starts with: every change after it arrives, a deletion before
  // the watch is connected included (a fresh list would just lack the job, and the wait would
  // last until its timeout).
  opts.resource_version = job["metadata"].value("resourceVersion", "");
  opts.cancel = &w.over;
  const std::string ns = job["metadata"].value("namespace", "");
  c.watch(engine_resource(engine), ns, opts, [&](const kubeapi::WatchEvent& ev) {
    if (ev.object.value("metadata", Json::object()).value("uid", "") != uid) return true;
    if (ev.type == "DELETED") {
      end.deleted = true;
      return false;
    }
    const std::string now = job_status(ev.object);
    if (now != end.status) note(job_noun(engine, name) + " is " + now);
    end.status = now;
    std::lock_guard lock(w.mutex);
    w.latest = ev.object;
    return now != "Succeeded" && now != "Failed";
  });
  return end;
}

}  // namespace

void wait_for_job(kubeapi::Client& c, const Json& job,
                  std::optional<std::chrono::milliseconds> timeout,
                  std::optional<int> max_preemptions,
                  const std::function<void(const std::string&)>& note) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = job["metadata"].value("name", "");
  const std::string ns = job["metadata"].value("namespace", "");
  const std::string noun = job_noun(job_engine(job), name);
  WaitState w;
  w.latest = job;
  std::thread reporter([&] { report_until_over(c, w, start, timeout, note); });
  std::thread counter;
  if (max_preemptions)
    counter = std::thread([&] { count_preemptions(c, job, w, *max_preemptions); });
  struct StopHelpers {
    WaitState& w;
    std::thread& reporter;
    std::thread& counter;
    ~StopHelpers() {
      {
        std::lock_guard lock(w.mutex);
        w.over = true;
      }
      w.changed.notify_all();
      reporter.join();
      if (counter.joinable()) counter.join();
    }
  } stop_helpers{w, reporter, counter};

  const JobEnd end = watch_until_end(c, job, w, note);
  const std::string how_long = took(std::chrono::steady_clock::now() - start);
  if (end.deleted)
    throw Error(ErrorCode::NotFound, noun + " was deleted while waiting for it to end");
  if (w.too_many_preemptions)
    throw Error(ErrorCode::Preempted,
                noun + " lost " + std::to_string(w.preemptions.load()) +
                    " workers to preemptions or evictions in " + how_long +
                    ", more than --max-preemptions " + std::to_string(*max_preemptions) +
                    "; it goes on running: `ejob delete " + name + " -n " + ns + "` removes it");
  if (end.status == "Succeeded") return;
  if (end.status == "Failed") fail(c, w.latest, how_long);
  // The deadline the user set, not the time measured: a loaded machine overshoots it a little.
  throw Error(ErrorCode::Timeout,
              noun + " had not ended after " + (timeout ? took(*timeout) : how_long) + " (status " +
                  (end.status.empty() ? "unknown" : end.status) +
                  "); it is still there: `ejob delete " + name + " -n " + ns + "` removes it");
}

}  // namespace ejob::job
