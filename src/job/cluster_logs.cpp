// `ejob logs` of a cluster job: every worker's log at once, or the job followed as its
// workers come and go (cli/logs.cpp says what the command shows).

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "src/job/cluster_backend.hpp"
#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_view.hpp"
#include "src/job/log_resume.hpp"
#include "src/kubeapi/api_error.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

using LinesFn = std::function<void(std::vector<std::string>)>;

/// The options of one stream: with timestamps (LogResume compares them), and from the last
/// line read once some were.
kubeapi::LogOptions stream_options(kubeapi::LogOptions options, const LogResume& resume) {
  options.timestamps = true;
  if (!resume.since_time().empty()) {
    options.since_time = resume.since_time();
    options.since_seconds = -1;
    options.tail_lines = -1;
  }
  return options;
}

/// One stream of a pod's log, its new lines (through `resume`) to `on_lines`. Returns why it
/// broke when it broke after bytes came (a cut), nullopt when the server ended it; throws what
/// the client throws otherwise. The half line of a cut is dropped: the next stream sends it
/// again whole.
std::optional<std::string> read_stream(kubeapi::Client& c, const std::string& ns,
                                       const std::string& pod, const kubeapi::LogOptions& options,
                                       LogResume& resume, const LinesFn& on_lines) {
  LineSplitter split;
  bool came = false;
  try {
    c.logs(ns, pod, stream_options(options, resume), [&](std::string_view chunk) {
      came = true;
      if (auto lines = resume.take(split.add(chunk)); !lines.empty()) on_lines(std::move(lines));
      return true;
    });
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Transport || !came) throw;
    return e.what();
  }
  if (std::string rest = split.rest(); !rest.empty())
    if (auto lines = resume.take({std::move(rest)}); !lines.empty()) on_lines(std::move(lines));
  return std::nullopt;
}

/// Cut streams in a row that brought no new line before a cut is taken for an error.
constexpr int k_max_barren_cuts = 5;

/// A pod's log up to where the server ends a stream: a cut stream is asked again from its
/// last line (`on_cut` told why). Throws ejob::Error(Transport) when k_max_barren_cuts cuts in a
/// row bring nothing.
void read_log(kubeapi::Client& c, const std::string& ns, const std::string& pod,
              const kubeapi::LogOptions& options, LogResume& resume, const LinesFn& on_lines,
              const std::function<void(const std::string&)>& on_cut = {}) {
  for (int barren = 0;;) {
    bool fresh = false;
    const auto cut = read_stream(c, ns, pod, options, resume, [&](std::vector<std::string> lines) {
      fresh = true;
      on_lines(std::move(lines));
    });
    if (!cut || (options.cancel && options.cancel->load())) return;
    barren = fresh ? 0 : barren + 1;
    if (barren >= k_max_barren_cuts)
      throw Error(ErrorCode::Transport, *cut + " (the log of " + pod + " was cut " +
                                            std::to_string(barren) +
                                            " times in a row without a new line)");
    if (on_cut) on_cut(*cut);
    resume.resume();
  }
}

KeepTimestamps keep_of(const kubeapi::LogOptions& options) {
  return options.timestamps ? KeepTimestamps::Yes : KeepTimestamps::No;
}

std::string name_of(const Json& obj) { return obj["metadata"].value("name", ""); }

bool wanted(const LogRequest& plan, const Json& pod) {
  return plan.workers.empty() || plan.workers.count(replica_index(pod)) > 0;
}

constexpr size_t k_max_log_requests = 8;

/// Without -f: each selected worker's log, fetched side by side, printed worker after worker.
void print_logs(kubeapi::Client& c, const Json& job, std::vector<Json> all_pods,
                const LogRequest& plan, LogSink& out) {
  const std::string& container = plan.container;
  const std::string job_name = name_of(job);
  const std::string ns = job["metadata"].value("namespace", "");
  std::vector<Json> pods;
  for (Json& pod : all_pods)
    if (wanted(plan, pod)) pods.push_back(std::move(pod));
  if (pods.empty()) {
    out.note(job_noun(job_engine(job), job_name) + " has no worker pods" +
             (plan.workers.empty() ? "" : " with the --worker indexes given") + " (status " +
             job_status(job) + ")");
    return;
  }
  struct Fetched {
    std::string label;
    int index = 0;
    std::vector<std::string> lines;
    std::string skipped;  ///< why nothing was asked
    std::exception_ptr error;
  };
  std::vector<Fetched> fetched(pods.size());
  std::vector<std::function<void()>> fetches;
  for (size_t i = 0; i < pods.size(); ++i) {
    Fetched& f = fetched[i];
    f.label = pod_label(job_name, pods[i]);
    f.index = replica_index(pods[i]);
    kubeapi::LogOptions options = plan.options;
    options.container = log_container(pods[i], container);
    const ContainerState state = container_state(pods[i], options.container);
    if (options.previous && state.restarts == 0) {
      f.skipped = f.label + " has no previous container (it has not restarted)";
      continue;
    }
    if (state.phase == ContainerState::Phase::Waiting && !options.previous) {
      f.skipped = f.label + " has not started yet (" + state.reason + ")";
      continue;
    }
    fetches.push_back([&c, &f, ns, options, pod = name_of(pods[i])] {
      try {
        LogResume resume(keep_of(options));
        read_log(c, ns, pod, options, resume, [&](std::vector<std::string> lines) {
          for (auto& line : lines) f.lines.push_back(std::move(line));
        });
      } catch (...) {
        f.error = std::current_exception();
      }
    });
  }
  // At most k_max_log_requests at a time, so that a job of many workers does not open a
  // connection per worker at once (kubectl's --max-log-requests is 5).
  std::atomic<size_t> next{0};
  std::vector<std::thread> fetchers;
  for (size_t n = 0; n < std::min(fetches.size(), k_max_log_requests); ++n)
    fetchers.emplace_back([&] {
      for (size_t i; (i = next++) < fetches.size();) fetches[i]();
    });
  for (auto& t : fetchers) t.join();
  std::exception_ptr first;
  for (const Fetched& f : fetched) {
    out.lines(f.label, f.index, f.lines);
    if (!f.skipped.empty()) out.note(f.skipped);
    if (f.error) {
      try {
        std::rethrow_exception(f.error);
      } catch (const std::exception& e) {
        out.note(f.label + ": " + e.what());
      }
      if (!first) first = f.error;
    }
  }
  if (first) std::rethrow_exception(first);
}

/// -f: follows the job's workers as they come and go (see the file comment).
class Follower {
 public:
  Follower(kubeapi::Client& c, const Json& job, const LogRequest& plan, LogSink& out)
      : m_c(c),
        m_engine(job_engine(job)),
        m_job_object(job),
        m_job(name_of(job)),
        m_ns(job["metadata"].value("namespace", "")),
        m_uid(job["metadata"].value("uid", "")),
        m_job_version(job["metadata"].value("resourceVersion", "")),
        m_plan(plan),
        m_container(plan.container),
        m_out(out),
        m_finished(is_finished(job)),
        m_final_status(final_status(job)) {}

  ~Follower() { stop(); }

  void run() {
    const kubeapi::ResourceInfo pods = m_c.resource("v1", "Pod");
    kubeapi::ListResult current = m_c.list(pods, m_ns, {engine_worker_selector(m_engine, m_job)});
    for (const Json& pod : current.items) on_pod("ADDED", pod, true);
    m_job_watch = std::thread([this] { watch_job(); });
    kubeapi::WatchOptions w;
    w.resource_version = current.resource_version;
    w.label_selector = engine_worker_selector(m_engine, m_job);
    w.cancel = &m_over;
    {
      std::lock_guard lock(m_mutex);
      maybe_finish();
    }
    m_c.watch(pods, m_ns, w, [this](const kubeapi::WatchEvent& ev) {
      on_pod(ev.type, ev.object, false);
      return !m_over.load();
    });
    stop();
    if (m_error) std::rethrow_exception(m_error);
    if (m_deleted)
      m_out.note(job_noun(m_engine, m_job) + " was deleted");
    else if (!m_final_status.empty())
      m_out.note(job_noun(m_engine, m_job) + " " + m_final_status);
  }

 private:
  /// One worker pod's log: one thread that follows its container, and the container that
  /// replaced it after each restart in place, until the container has terminated for good.
  struct Tail {
    std::thread thread;
    std::string name;
    std::string label;
    int index = -1;
    std::string container;
    int streamed = 0;         ///< restart count of the container streamed (or being streamed)
    int latest = 0;           ///< restart count the pod's status showed last
    bool terminated = false;  ///< the container has terminated, or the pod is gone
    bool ended = false;       ///< the thread is done
    bool whole = false;       ///< read from its start (it appeared after the command started)
    bool refused = false;     ///< its last stream was refused (400/404): try again
  };

  static bool is_finished(const Json& job) { return !final_status(job).empty(); }

  /// "succeeded" or "failed" once the job has ended, else empty.
  static std::string final_status(const Json& job) {
    const std::string s = job_status(job);
    return s == "Succeeded" ? "succeeded" : s == "Failed" ? "failed" : "";
  }

  void on_pod(const std::string& type, const Json& pod, bool initial) {
    if (!runs_job(m_engine, m_job_object, pod) || !wanted(m_plan, pod)) return;
    const std::string uid = pod["metadata"].value("uid", "");
    const std::string name = name_of(pod);
    const std::string label = pod_label(m_job, pod);
    std::lock_guard lock(m_mutex);
    auto it = m_tails.find(uid);
    Tail* t = it == m_tails.end() ? nullptr : it->second.get();
    if (type == "DELETED") {
      if (t) {
        m_out.note(label + " was deleted");
        t->terminated = true;
        maybe_finish();
      }
      return;
    }
    if (const auto why = disruption_of(pod); why && m_disrupted.insert(uid).second)
      m_out.note(label + " was evicted (" + *why + ")");
    const std::string container = log_container(pod, m_container);
    const ContainerState state = container_state(pod, container);
    if (state.phase == ContainerState::Phase::Waiting && !t) return;
    if (t) {
      t->latest = std::max(t->latest, state.restarts);
      t->terminated = state.phase == ContainerState::Phase::Terminated;
      const bool restarted = t->latest > t->streamed;
      if (!t->ended || !(restarted || t->refused) || state.phase == ContainerState::Phase::Waiting)
        return maybe_finish();
      // It ended before this restart was seen (follow the new container), or its stream was
      // refused ("waiting to start" from a kubelet behind the pod's status): the pod changed,
      // try again.
      t->thread.join();
      t->ended = false;
      t->refused = false;
      t->streamed = t->latest;
      const bool whole = restarted || t->whole;
      t->thread = std::thread([this, t, whole, restarted] { follow(t, whole, restarted); });
      return;
    }
    if (!initial && m_seen_names.count(name)) m_out.note(label + " was made again");
    m_seen_names.insert(name);
    auto tail = std::make_unique<Tail>();
    tail->name = name;
    tail->label = label;
    tail->index = replica_index(pod);
    tail->container = container;
    tail->streamed = tail->latest = state.restarts;
    tail->whole = !initial;
    tail->terminated = state.phase == ContainerState::Phase::Terminated;
    t = tail.get();
    m_tails[uid] = std::move(tail);
    // A worker there when the command started gets --tail/--since; one that appeared later
    // is followed from its start.
    t->thread = std::thread([this, t] { follow(t, t->whole, false); });
  }

  /// The body of a Tail's thread: the log of the container whose restart count is
  /// t->streamed (whole: from its start, not --tail/--since), then of each that replaced it.
  void follow(Tail* t, bool whole, bool restarted) {
    kubeapi::LogOptions options = m_plan.options;
    options.container = t->container;
    options.cancel = &m_over;
    LogResume resume(keep_of(options));
    for (Next next = Next::Resume; next != Next::End;) {
      if (restarted) {
        m_out.note(t->label + " restarted (restart " + std::to_string(t->streamed) + ")");
        resume.restart();
      }
      if (whole || restarted) {
        options.since_seconds = -1;
        options.since_time.clear();
        options.tail_lines = -1;
      }
      const Read read = read_followed(t, options, resume);
      if (read == Read::Failed) return;
      next = after_stream(t, read == Read::Refused);
      restarted = next == Next::Restart;
      resume.resume();
    }
  }

  enum class Read { Ended, Refused, Failed };

  /// t's log until the server ends a stream of it (a cut one is asked again from its last
  /// line). Refused: the pod is gone (404), or not ready to be read (400: the kubelet's
  /// "waiting to start" and the like, which the pod's next change answers). Failed: anything
  /// else, which will not pass by waiting; the follow ends with it.
  Read read_followed(Tail* t, const kubeapi::LogOptions& options, LogResume& resume) {
    try {
      read_log(
          m_c, m_ns, t->name, options, resume,
          [&](std::vector<std::string> lines) { m_out.lines(t->label, t->index, lines); },
          [&](const std::string& why) {
            m_out.note(t->label + ": its log stream was cut (" + why + "); reading on from " +
                       (resume.since_time().empty() ? "its start" : resume.since_time()));
          });
      return Read::Ended;
    } catch (const kubeapi::ApiError& e) {
      if (e.http_status() != 404 && e.http_status() != 400) {
        end_with_error(std::current_exception());
        return Read::Failed;
      }
      if (!m_over) m_out.note(t->label + ": " + e.what());
      return Read::Refused;
    } catch (const std::exception&) {
      end_with_error(std::current_exception());
      return Read::Failed;
    }
  }

  enum class Next { Resume, Restart, End };

  /// What follows a stream of t's log the server ended: the container that replaced it, or
  /// nothing more (refused, the container has terminated, the follow is over), or else the same
  /// log again from its last line a second later: the container runs on, and a proxy or a
  /// restarting kubelet ended the stream (or the pod's status is behind).
  Next after_stream(Tail* t, bool refused) {
    {
      std::lock_guard lock(m_mutex);
      if (!m_over && t->latest > t->streamed) return restart(t);
      if (m_over || refused || t->terminated) return end(t, refused);
    }
    for (int i = 0; i < 10 && !m_over; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::lock_guard lock(m_mutex);
    if (m_over) return end(t, false);
    return t->latest > t->streamed ? restart(t) : Next::Resume;
  }

  /// Holds m_mutex.
  Next restart(Tail* t) {
    t->streamed = t->latest;
    return Next::Restart;
  }

  /// Holds m_mutex.
  Next end(Tail* t, bool refused) {
    t->ended = true;
    t->refused = refused;
    maybe_finish();
    return Next::End;
  }

  /// A worker's stream failed in a way waiting does not mend (refused, forbidden, the server
  /// unreachable): the follow ends with that error, as `kubectl logs -f` does, instead
  /// of waiting silently for a job whose logs cannot be read.
  void end_with_error(std::exception_ptr error) {
    std::lock_guard lock(m_mutex);
    if (!m_over && !m_error) m_error = std::move(error);
    m_over = true;
  }

  /// Watches the job for its end; sets m_over when it is deleted, and notes its end.
  void watch_job() {
    try {
      const kubeapi::ResourceInfo res = engine_resource(m_engine);
      kubeapi::WatchOptions w;
      w.field_selector = "metadata.name=" + m_job;
      // From the version this follow started with: a deletion that comes before the watch is
      // connected is still seen (a fresh list would just not show the job, and -f would wait
      // for an end that never comes).
      w.resource_version = m_job_version;
      w.cancel = &m_over;
      m_c.watch(res, m_ns, w, [this](const kubeapi::WatchEvent& ev) {
        if (ev.object.value("metadata", Json::object()).value("uid", "") != m_uid) return true;
        std::lock_guard lock(m_mutex);
        if (ev.type == "DELETED") {
          m_deleted = true;
          m_over = true;
          return false;
        }
        if (is_finished(ev.object)) {
          m_finished = true;
          m_final_status = final_status(ev.object);
          maybe_finish();
        }
        return !m_over.load();
      });
    } catch (...) {
      std::lock_guard lock(m_mutex);
      m_error = std::current_exception();
      m_over = true;
    }
  }

  /// Ends every stream and watch and waits for their threads (the job watch first: it is
  /// the other thread that adds to m_tails).
  void stop() {
    m_over = true;
    if (m_job_watch.joinable()) m_job_watch.join();
    for (auto& [uid, tail] : m_tails)
      if (tail->thread.joinable()) tail->thread.join();
  }

  /// Ends the follow once the job has finished and every worker's log has been read to its
  /// end: each stream ended, no restart left unread, each container terminated (or its pod
  /// gone). Holds m_mutex.
  void maybe_finish() {
    if (!m_finished) return;
    for (const auto& [uid, t] : m_tails)
      if (!t->ended || t->latest > t->streamed || !t->terminated) return;
    m_over = true;
  }

  kubeapi::Client& m_c;
  const Engine& m_engine;
  const Json m_job_object;  ///< as the follow found it (runs_job asks it)
  const std::string m_job;
  const std::string m_ns;
  const std::string m_uid;
  const std::string m_job_version;  ///< the job's resourceVersion when the follow started
  const LogRequest& m_plan;
  const std::string m_container;
  LogSink& m_out;
  std::mutex m_mutex;
  std::atomic<bool> m_over{false};
  bool m_finished;
  bool m_deleted = false;
  std::string m_final_status;
  std::exception_ptr m_error;
  std::map<std::string, std::unique_ptr<Tail>> m_tails;  ///< by pod uid
  std::set<std::string> m_disrupted;                     ///< pod uids noted as evicted
  std::set<std::string> m_seen_names;
  std::thread m_job_watch;
};

}  // namespace

void ClusterBackend::logs(const std::string& name, const LogRequest& request, LogSink& out) {
  kubeapi::Client& c = m_client;
  if (request.options.follow) return Follower(c, get_job(c, m_ns, name), request, out).run();
  // The job, then (knowing its engine) its worker pods, then their logs side by side.
  const Json job = get_job(c, m_ns, name);
  print_logs(c, job, job_pods(c, job), request, out);
}

}  // namespace ejob::job
