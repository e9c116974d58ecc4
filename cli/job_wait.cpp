#include "ejob/cli/job_wait.hpp"

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "ejob/cli/job_describe.hpp"
#include "ejob/cli/job_pods.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/render/go_time.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using kubeapi::Json;

namespace {

/// "5m3s": a wait's length as Go prints durations, to the second.
std::string took(std::chrono::steady_clock::duration d) {
  const auto s = std::chrono::duration_cast<std::chrono::seconds>(d);
  return render::gotime::duration_string(static_cast<int64_t>(s.count()) * 1'000'000'000);
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
  JobView view;
  view.job = job;
  view.workers = job_pods(c, job);
  view.events = c.list(c.resource("v1", "Event"), ns).items;
  const std::vector<Eviction> evictions = job_evictions(view, std::chrono::system_clock::now());
  const std::string look = " (see `ejob describe " + name + " -n " + ns + "` and `ejob logs " +
                           name + " -n " + ns + "`)";
  std::string what = failure_of(job);
  what = what.empty() ? "" : ": " + what;
  if (!evictions.empty()) {
    std::string list;
    for (const Eviction& e : evictions) list += (list.empty() ? "" : "; ") + e.pod + " " + e.why;
    throw Error(ErrorCode::Preempted, "elasticjob \"" + name + "\" failed after " + how_long +
                                          " when its workers were preempted or evicted (" + list +
                                          ")" + what + look);
  }
  throw Error(ErrorCode::JobFailed,
              "elasticjob \"" + name + "\" failed after " + how_long + what + look);
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
  const auto ns = render::gotime::parse_duration(value, error);
  if (!ns || *ns < 0)
    throw Error(ErrorCode::Usage, flag + " takes seconds or a duration such as 90m, got \"" +
                                      value + "\"" + (error.empty() ? "" : " (" + error + ")"));
  if (*ns == 0) return std::nullopt;
  return std::chrono::milliseconds(std::max<int64_t>(*ns / 1'000'000, 1));
}

void wait_for_job(kubeapi::Client& c, const Json& job,
                  std::optional<std::chrono::milliseconds> timeout,
                  const std::function<void(const std::string&)>& note) {
  const auto start = std::chrono::steady_clock::now();
  const std::string name = job["metadata"].value("name", "");
  const std::string ns = job["metadata"].value("namespace", "");
  const std::string uid = job["metadata"].value("uid", "");
  std::atomic<bool> over{false};
  std::mutex mutex;
  std::condition_variable done;
  std::thread timer;
  if (timeout)
    timer = std::thread([&] {
      std::unique_lock lock(mutex);
      if (!done.wait_for(lock, *timeout, [&] { return over.load(); })) over = true;
    });
  struct StopTimer {
    std::atomic<bool>& over;
    std::mutex& mutex;
    std::condition_variable& done;
    std::thread& timer;
    ~StopTimer() {
      {
        std::lock_guard lock(mutex);
        over = true;
      }
      done.notify_all();
      if (timer.joinable()) timer.join();
    }
  } stop_timer{over, mutex, done, timer};

  std::string status;
  std::optional<Json> last;
  bool deleted = false;
  kubeapi::WatchOptions w;
  w.field_selector = "metadata.name=" + name;
  w.cancel = &over;
  c.watch(kubeapi::job_resource(c), ns, w, [&](const kubeapi::WatchEvent& ev) {
    if (ev.object.value("metadata", Json::object()).value("uid", "") != uid) return true;
    if (ev.type == "DELETED") {
      deleted = true;
      return false;
    }
    const std::string now = job_status(ev.object);
    if (now != status) note("elasticjob \"" + name + "\" is " + now);
    status = now;
    last = ev.object;
    return now != "Succeeded" && now != "Failed";
  });
  const std::string how_long = took(std::chrono::steady_clock::now() - start);
  if (deleted)
    throw Error(ErrorCode::NotFound,
                "elasticjob \"" + name + "\" was deleted while waiting for it to end");
  if (status == "Succeeded") return;
  if (status == "Failed") fail(c, *last, how_long);
  // The deadline the user set, not the time measured: a loaded machine overshoots it a little.
  throw Error(ErrorCode::Timeout, "elasticjob \"" + name + "\" had not ended after " +
                                      (timeout ? took(*timeout) : how_long) + " (status " +
                                      (status.empty() ? "unknown" : status) +
                                      "); it is still there: `ejob delete " + name + " -n " + ns +
                                      "` removes it");
}

}  // namespace ejob::cli
