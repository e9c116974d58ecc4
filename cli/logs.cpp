/// `ejob logs NAME [-f]`: the logs of every worker of a job at once, each line after its pod's
/// short name (`[worker-0] `), as stern and `kubectl logs -l … --prefix` show several pods.
/// Lines of different workers never mix: a line is written whole or not yet.
///
/// With -f the job is followed, not a fixed set of pods: a worker that appears later (a
/// scale-out, a pod the controller made again) is followed from its start, a worker restarted
/// in place is followed again, evictions and deleted workers are noted on stderr, and the
/// command ends once the job has succeeded or failed and every worker's stream has ended, or
/// when the job is deleted.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/local_job.hpp"
#include "ejob/job/job_pods.hpp"
#include "ejob/kubeapi/api_error.hpp"
#include "ejob/kubeapi/exec_plugin.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/render/go_time.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

using kubeapi::Json;

struct LogsFlags {
  KubeFlags kube;
  std::string name;
  bool follow = false;
  bool timestamps = false;
  bool previous = false;
  std::string since;
  std::string since_time;
  long tail = -1;
  std::string container;
  std::vector<int> workers;
  std::string color = "auto";
  bool no_prefix = false;
};

/// What the flags ask for, checked before anything is sent.
struct LogsPlan {
  kubeapi::LogOptions options;  ///< for the workers there when the command starts
  bool color = false;
  bool prefix = true;
  std::set<int> workers;  ///< empty: all
};

LogsPlan plan_of(const LogsFlags& f) {
  LogsPlan p;
  if (!f.since.empty() && !f.since_time.empty())
    throw Error(ErrorCode::Usage, "--since and --since-time exclude each other");
  if (f.previous && f.follow)
    throw Error(ErrorCode::Usage, "-p/--previous and -f/--follow exclude each other");
  if (f.tail < -1) throw Error(ErrorCode::Usage, "--tail must be -1 (all lines) or more");
  if (!f.since.empty()) {
    std::string error;
    const auto ns = render::gotime::parse_duration(f.since, error);
    if (!ns) throw Error(ErrorCode::Usage, "--since: " + error);
    if (*ns <= 0) throw Error(ErrorCode::Usage, "--since must be more than 0, got " + f.since);
    constexpr int64_t k_second = 1'000'000'000;
    p.options.since_seconds = static_cast<long>((*ns + k_second - 1) / k_second);  // rounded up
  }
  if (!f.since_time.empty()) {
    if (!kubeapi::parse_rfc3339(f.since_time))
      throw Error(ErrorCode::Usage,
                  "--since-time must be an RFC 3339 time such as 2024-05-01T12:00:00Z, got " +
                      f.since_time);
    p.options.since_time = f.since_time;
  }
  if (f.color != "auto" && f.color != "always" && f.color != "never")
    throw Error(ErrorCode::Usage, "--color must be auto, always or never, got " + f.color);
  for (int w : f.workers) {
    if (w < 0) throw Error(ErrorCode::Usage, "--worker takes replica indexes (0, 1, …)");
    p.workers.insert(w);
  }
  p.options.follow = f.follow;
  p.options.timestamps = f.timestamps;
  p.options.previous = f.previous;
  p.options.tail_lines = f.tail;
  p.color = f.color == "always" || (f.color == "auto" && isatty(1) && !std::getenv("NO_COLOR"));
  p.prefix = !f.no_prefix;
  return p;
}

/// Writes whole lines of several streams to stdout and notes to stderr, one writer at a time.
class Printer {
 public:
  Printer(bool color, bool prefix) : m_color(color), m_prefix(prefix) {}

  void lines(const std::string& label, int index, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    std::string head;
    if (m_prefix) {
      static constexpr int k_palette[] = {36, 33, 32, 35, 34, 31};
      const int code = k_palette[static_cast<size_t>(std::max(index, 0)) % std::size(k_palette)];
      head = m_color ? "\033[" + std::to_string(code) + "m[" + label + "]\033[0m "
                     : "[" + label + "] ";
    }
    std::string out;
    for (const auto& line : lines) out += head + line + '\n';
    std::lock_guard lock(m_mutex);
    std::cout << out << std::flush;
  }

  void note(const std::string& message) {
    std::lock_guard lock(m_mutex);
    std::cout.flush();
    std::cerr << "ejob: " << message << '\n';
  }

 private:
  std::mutex m_mutex;
  bool m_color;
  bool m_prefix;
};

/// Streams one container's log to the printer line by line.
void stream_log(kubeapi::Client& c, const std::string& ns, const std::string& pod,
                const std::string& label, int index, const kubeapi::LogOptions& options,
                Printer& out) {
  LineSplitter split;
  c.logs(ns, pod, options, [&](std::string_view chunk) {
    out.lines(label, index, split.add(chunk));
    return true;
  });
  if (std::string rest = split.rest(); !rest.empty()) out.lines(label, index, {rest});
}

std::string name_of(const Json& obj) { return obj["metadata"].value("name", ""); }

bool wanted(const LogsPlan& plan, const Json& pod) {
  return plan.workers.empty() || plan.workers.count(replica_index(pod)) > 0;
}

constexpr size_t k_max_log_requests = 8;

/// Without -f: each selected worker's log, fetched side by side, printed worker after worker.
void print_logs(kubeapi::Client& c, const Json& job, std::vector<Json> all_pods,
                const LogsPlan& plan, const std::string& container, Printer& out) {
  const std::string job_name = name_of(job);
  const std::string ns = job["metadata"].value("namespace", "");
  std::vector<Json> pods;
  for (Json& pod : all_pods)
    if (wanted(plan, pod)) pods.push_back(std::move(pod));
  if (pods.empty()) {
    out.note("elasticjob \"" + job_name + "\" has no worker pods" +
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
    f.label = short_pod_name(job_name, name_of(pods[i]));
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
        LineSplitter split;
        c.logs(ns, pod, options, [&](std::string_view chunk) {
          for (auto& line : split.add(chunk)) f.lines.push_back(std::move(line));
          return true;
        });
        if (std::string rest = split.rest(); !rest.empty()) f.lines.push_back(std::move(rest));
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
  Follower(kubeapi::Client& c, const Json& job, const LogsPlan& plan, std::string container,
           Printer& out)
      : m_c(c),
        m_job(name_of(job)),
        m_ns(job["metadata"].value("namespace", "")),
        m_uid(job["metadata"].value("uid", "")),
        m_plan(plan),
        m_container(std::move(container)),
        m_out(out),
        m_finished(is_finished(job)),
        m_final_status(final_status(job)) {}

  ~Follower() { stop(); }

  void run() {
    const kubeapi::ResourceInfo pods = m_c.resource("v1", "Pod");
    kubeapi::ListResult current = m_c.list(pods, m_ns, {worker_selector(m_job)});
    for (const Json& pod : current.items) on_pod("ADDED", pod, true);
    m_job_watch = std::thread([this] { watch_job(); });
    kubeapi::WatchOptions w;
    w.resource_version = current.resource_version;
    w.label_selector = worker_selector(m_job);
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
      m_out.note("elasticjob \"" + m_job + "\" was deleted");
    else if (!m_final_status.empty())
      m_out.note("elasticjob \"" + m_job + "\" " + m_final_status);
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
  };

  static bool is_finished(const Json& job) { return !final_status(job).empty(); }

  /// "succeeded" or "failed" once the job has ended, else empty.
  static std::string final_status(const Json& job) {
    const std::string s = job_status(job);
    return s == "Succeeded" ? "succeeded" : s == "Failed" ? "failed" : "";
  }

  void on_pod(const std::string& type, const Json& pod, bool initial) {
    if (!owned_by(pod, m_uid) || !wanted(m_plan, pod)) return;
    const std::string uid = pod["metadata"].value("uid", "");
    const std::string name = name_of(pod);
    const std::string label = short_pod_name(m_job, name);
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
      if (!t->ended || t->latest <= t->streamed || state.phase == ContainerState::Phase::Waiting)
        return maybe_finish();
      t->thread.join();  // it ended before this restart was seen: follow the new container
      t->ended = false;
      t->streamed = t->latest;
      t->thread = std::thread([this, t] { follow(t, true, true); });
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
    tail->terminated = state.phase == ContainerState::Phase::Terminated;
    t = tail.get();
    m_tails[uid] = std::move(tail);
    // A worker there when the command started gets --tail/--since; one that appeared later
    // is followed from its start.
    t->thread = std::thread([this, t, initial] { follow(t, !initial, false); });
  }

  /// The body of a Tail's thread: the log of the container whose restart count is
  /// t->streamed (whole: from its start, not --tail/--since), then of each that replaced it.
  void follow(Tail* t, bool whole, bool restarted) {
    kubeapi::LogOptions options = m_plan.options;
    options.container = t->container;
    options.cancel = &m_over;
    for (;; restarted = true) {
      if (restarted)
        m_out.note(t->label + " restarted (restart " + std::to_string(t->streamed) + ")");
      if (whole || restarted) {
        options.since_seconds = -1;
        options.since_time.clear();
        options.tail_lines = -1;
      }
      try {
        stream_log(m_c, m_ns, t->name, t->label, t->index, options, m_out);
      } catch (const kubeapi::ApiError& e) {
        // 404: the pod is gone; 400: the kubelet's "waiting to start" and the like, which the
        // pod's next change answers. Anything else will not pass by waiting.
        if (e.http_status() != 404 && e.http_status() != 400)
          return end_with_error(std::current_exception());
        if (!m_over) m_out.note(t->label + ": " + e.what());
      } catch (const std::exception&) {
        return end_with_error(std::current_exception());
      }
      std::lock_guard lock(m_mutex);
      if (!m_over && t->latest > t->streamed) {  // restarted while this stream was open
        t->streamed = t->latest;
        continue;
      }
      t->ended = true;
      maybe_finish();
      return;
    }
  }

  /// A worker's stream failed in a way waiting does not mend (refused, forbidden, the server
  /// unreachable): the follow ends with that error, as `kubectl logs -f` does, instead
  /// of waiting silently for a job whose logs cannot be read.
  void end_with_error(std::exception_ptr error) {
    std::lock_guard lock(m_mutex);
    if (!m_over && !m_error) m_error = std::move(error);
    m_over = true;
  }

  /// Watches the ElasticJob for its end; sets m_over when it is deleted, and notes its end.
  void watch_job() {
    try {
      const kubeapi::ResourceInfo res = kubeapi::job_resource(m_c);
      kubeapi::WatchOptions w;
      w.field_selector = "metadata.name=" + m_job;
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
  const std::string m_job;
  const std::string m_ns;
  const std::string m_uid;
  const LogsPlan& m_plan;
  const std::string m_container;
  Printer& m_out;
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

/// A local job's logs are its nodes' files; the flags that select lines by time, container or
/// worker are the cluster's.
void run_local_logs(const LogsFlags& f) {
  if (f.timestamps || f.previous || !f.since.empty() || !f.since_time.empty() || f.tail >= 0 ||
      !f.container.empty() || !f.workers.empty() || f.no_prefix)
    throw Error(ErrorCode::Usage,
                "\"" + f.name + "\" is a local job: logs takes only -f (its nodes' whole logs)");
  logs_local(f.name, f.follow);
}

void run_logs(const LogsFlags& f) {
  if (targets_local_job(f.kube, f.name)) return run_local_logs(f);
  const LogsPlan plan = plan_of(f);
  KubeSession session = open_session(f.kube);
  kubeapi::Client& c = *session.client;
  const std::string ns =
      f.kube.name_space.empty() ? std::string(k_job_namespace) : f.kube.name_space;
  Printer out(plan.color, plan.prefix);
  if (f.follow) return Follower(c, get_job(c, ns, f.name), plan, f.container, out).run();
  // The job and its worker pods side by side: the logs follow in the second round trip.
  auto pods = std::async(std::launch::async, [&] { return worker_pods(c, ns, f.name); });
  Json job;
  try {
    job = get_job(c, ns, f.name);
  } catch (...) {
    pods.wait();
    throw;
  }
  print_logs(c, job, keep_owned(pods.get(), job["metadata"].value("uid", "")), plan, f.container,
             out);
}

}  // namespace

void register_logs(CLI::App& app) {
  auto flags = std::make_shared<LogsFlags>();
  CLI::App* cmd = app.add_subcommand("logs", "Print the logs of every worker of a job at once");
  cmd->add_option("name", flags->name, "Job name")->required();
  add_kube_flags(*cmd, flags->kube);
  cmd->add_flag("-f,--follow", flags->follow,
                "Follow the job: new and restarted workers too, until the job ends");
  cmd->add_option("--tail", flags->tail, "Lines of each worker's recent log (-1: all)");
  cmd->add_option("--since", flags->since, "Only lines newer than a duration: 30s, 5m, 2h");
  cmd->add_option("--since-time", flags->since_time, "Only lines after an RFC 3339 time");
  cmd->add_flag("--timestamps", flags->timestamps, "Start each line with its time");
  cmd->add_flag("-p,--previous", flags->previous, "The log of each worker's previous container");
  cmd->add_option("-c,--container", flags->container,
                  "Container of each pod (default: the pod's default, else the first)");
  cmd->add_option("-w,--worker", flags->workers, "Only these replica indexes (repeatable)");
  cmd->add_flag("--no-prefix", flags->no_prefix, "Print lines without [worker-N]");
  cmd->add_option("--color", flags->color, "auto, always or never (auto: on a terminal)");
  cmd->callback([flags] { run_logs(*flags); });
}

}  // namespace ejob::cli
