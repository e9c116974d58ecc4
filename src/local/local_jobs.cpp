#include "src/local/local_jobs.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "src/local/etcd_server.hpp"
#include "src/local/launch.hpp"
#include "src/local/metadata_service.hpp"
#include "src/local/process.hpp"
#include "src/local/requests.hpp"
#include "src/local/supervisor.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// Makes the missing folders of `dir` and its parents 0700 (those there are left as they are).
void make_private_dirs(const fs::path& dir) {
  if (dir.empty() || fs::exists(dir)) return;
  make_private_dirs(dir.parent_path());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw Error(ErrorCode::Io, dir.string() + ": " + std::strerror(errno));
}

/// The job's folder, 0700 as the state root above it (when ejob makes it): the job's state,
/// logs and the requests its supervisor acts on are no one else's to read or write.
void make_job_dir(const fs::path& dir, const std::string& name) {
  make_private_dirs(dir.parent_path());
  if (::mkdir(dir.c_str(), 0700) == 0) return;
  if (errno == EEXIST)
    throw Error(ErrorCode::Conflict, "a local job named \"" + name + "\" exists (" + dir.string() +
                                         "); delete it or choose another name");
  throw Error(ErrorCode::Io, dir.string() + ": " + std::strerror(errno));
}

JobState initial_state(const LaunchSpec& spec) {
  JobState s;
  s.name = spec.name;
  s.min_nodes = spec.min_nodes;
  s.max_nodes = spec.max_nodes;
  s.desired_nodes = spec.initial_nodes;
  s.created = now_rfc3339();
  return s;
}

/// Waits for the supervisor to leave Starting; a supervisor that died before says so.
JobState wait_started(const fs::path& dir, pid_t supervisor) {
  for (;;) {
    JobState s = load_state(dir);
    if (s.phase != Phase::Starting) return s;
    if (!process_alive(supervisor)) {
      s.phase = Phase::Failed;
      s.message = "the job's supervisor ended at start; see " + (dir / "supervisor.log").string();
      return s;
    }
    std::this_thread::sleep_for(20ms);
  }
}

std::string progress(const JobState& s) {
  int running = 0;
  for (const NodeState& n : s.nodes) running += n.pid != 0;
  return "job \"" + s.name + "\" is " + phase_name(s.phase) + ": " + std::to_string(running) +
         " of " + std::to_string(s.desired_nodes) + " nodes running";
}

/// Every process the job may still have: its supervisor, etcd and nodes (their sessions).
std::vector<pid_t> job_sessions(const JobState& s) {
  std::vector<pid_t> sessions = {s.supervisor_pid, s.etcd_pid};
  for (const NodeState& n : s.nodes) sessions.push_back(n.pid);
  sessions.erase(std::remove(sessions.begin(), sessions.end(), 0), sessions.end());
  return sessions;
}

bool any_alive(const std::vector<pid_t>& sessions) {
  return std::any_of(sessions.begin(), sessions.end(),
                     [](pid_t sid) { return !session_members(sid).empty(); });
}

/// Stops what the supervisor would have stopped, when the supervisor itself is gone.
void stop_orphans(const JobState& s) {
  for (pid_t sid : job_sessions(s)) signal_session(sid, SIGTERM);
  const auto deadline = Clock::now() + 10s;
  while (any_alive(job_sessions(s)) && Clock::now() < deadline) std::this_thread::sleep_for(20ms);
  for (pid_t sid : job_sessions(s)) signal_session(sid, SIGKILL);
}

/// A job whose supervisor is gone (killed, out of memory) while it ran: nothing restarts its
/// nodes or records its end any more. Its nodes had SIGTERM when the supervisor died (they ask
/// for it at start), so their workers could checkpoint; what is left is stopped here, and the
/// job is ended as Failed with the reason, once, by whoever reads it first.
JobState settled(const fs::path& dir, JobState s) {
  if (is_final(s.phase) || s.phase == Phase::Starting || process_alive(s.supervisor_pid)) return s;
  stop_orphans(s);
  const std::string why = "its supervisor (pid " + std::to_string(s.supervisor_pid) +
                          ") was lost; its nodes were stopped (see " +
                          (dir / "supervisor.log").string() + ")";
  append_event(dir, {now_rfc3339(), "Warning", "SupervisorLost", why});
  s.phase = Phase::Failed;
  s.exit_code = 1;
  s.message = why;
  s.finished = now_rfc3339();
  for (NodeState& n : s.nodes) {
    if (n.pid == 0) continue;
    n.pid = 0;
    n.status = "stopped";
  }
  s.etcd_pid = 0;
  save_state(dir, s);
  return s;
}

}  // namespace

namespace {

/// The job's own checkpoint folder, for scripts that keep checkpoints where EJOB_CHECKPOINT_DIR
/// says (unless the job or the user's environment names another).
LaunchSpec with_checkpoint_dir(LaunchSpec spec, const fs::path& dir) {
  if (spec.env.count("EJOB_CHECKPOINT_DIR") || std::getenv("EJOB_CHECKPOINT_DIR")) return spec;
  fs::create_directories(dir / "checkpoints");
  spec.env["EJOB_CHECKPOINT_DIR"] = (dir / "checkpoints").string();
  return spec;
}

}  // namespace

JobState submit(const LaunchSpec& spec, const std::vector<Json>& objects, const std::string& self) {
  const fs::path dir = job_dir(spec.name);
  make_job_dir(dir, spec.name);
  try {
    write_file_atomic(dir / "launch.json", to_json(with_checkpoint_dir(spec, dir)).dump(2) + "\n");
    write_file_atomic(dir / "objects.json", Json(objects).dump(2) + "\n");
    save_state(dir, initial_state(spec));
    JobState s = wait_started(dir, start_supervisor(self, dir));
    if (s.phase == Phase::Failed) throw Error(ErrorCode::JobFailed, s.message);
    return s;
  } catch (...) {
    std::error_code ec;
    if (std::filesystem::exists(dir / "state.json")) {
      JobState s = load_state(dir);
      stop_orphans(s);
    }
    fs::remove_all(dir, ec);
    throw;
  }
}

bool exists(const std::string& name) {
  return !name.empty() && name.find('/') == std::string::npos &&
         fs::exists(job_dir(name) / "state.json");
}

JobState get(const std::string& name) {
  if (!exists(name))
    throw Error(ErrorCode::NotFound,
                "no local job named \"" + name + "\" (in " + state_root().string() + ")");
  return settled(job_dir(name), load_state(job_dir(name)));
}

std::vector<JobState> list(const std::function<void(const std::string&)>& warn) {
  std::vector<JobState> jobs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(state_root(), ec)) {
    if (!fs::exists(entry.path() / "state.json")) continue;
    try {
      jobs.push_back(settled(entry.path(), load_state(entry.path())));
    } catch (const Error& e) {
      warn(e.message());
    }
  }
  std::sort(jobs.begin(), jobs.end(), [](auto& a, auto& b) { return a.name < b.name; });
  return jobs;
}

JobState wait(const std::string& name, std::optional<std::chrono::milliseconds> timeout,
              std::optional<int> max_preemptions,
              const std::function<void(const std::string&)>& report,
              std::chrono::milliseconds report_every) {
  const auto start = Clock::now();
  auto next_report = start + report_every;
  for (;;) {
    JobState s = get(name);
    if (is_final(s.phase)) return s;
    if (!process_alive(s.supervisor_pid))
      throw Error(ErrorCode::JobFailed, "job \"" + name + "\" lost its supervisor (pid " +
                                            std::to_string(s.supervisor_pid) + "); see " +
                                            (job_dir(name) / "supervisor.log").string());
    if (timeout && Clock::now() - start >= *timeout)
      throw Error(ErrorCode::Timeout, "job \"" + name + "\" still " + phase_name(s.phase) +
                                          " after the --timeout; it goes on running");
    if (max_preemptions && preemptions(s) > *max_preemptions)
      throw Error(ErrorCode::Preempted,
                  "job \"" + name + "\" was preempted " + std::to_string(preemptions(s)) +
                      (preemptions(s) == 1 ? " time" : " times") +
                      ", more than --max-preemptions " + std::to_string(*max_preemptions) +
                      "; it goes on running (ejob delete " + name + " stops it)");
    if (Clock::now() >= next_report) {
      report(progress(s));
      next_report += report_every;
    }
    std::this_thread::sleep_for(100ms);
  }
}

void remove(const std::string& name, bool keep) {
  const fs::path dir = job_dir(name);
  JobState s = get(name);
  if (process_alive(s.supervisor_pid)) {
    ::kill(s.supervisor_pid, SIGTERM);
    const auto deadline = Clock::now() + 30s;
    while (process_alive(s.supervisor_pid) && Clock::now() < deadline)
      std::this_thread::sleep_for(20ms);
    s = load_state(dir);
  }
  stop_orphans(s);
  if (any_alive(job_sessions(s)))
    throw Error(ErrorCode::Internal, "processes of job \"" + name + "\" outlived SIGKILL");
  std::error_code ec;
  if (!keep) fs::remove_all(dir, ec);
  if (ec) throw Error(ErrorCode::Io, dir.string() + ": " + ec.message());
}

JobState scale(const std::string& name, int nodes) {
  JobState s = get(name);
  if (nodes < s.min_nodes || nodes > s.max_nodes)
    throw Error(ErrorCode::Usage, "--workers " + std::to_string(nodes) + " is outside the job's " +
                                      std::to_string(s.min_nodes) + ".." +
                                      std::to_string(s.max_nodes) + " nodes");
  send_request(job_dir(name), s, {Request::Kind::Scale, nodes, 0, 0});
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline) {
    s = get(name);
    if (s.desired_nodes == nodes || is_final(s.phase)) return s;
    std::this_thread::sleep_for(20ms);
  }
  throw Error(ErrorCode::Timeout, "the supervisor of \"" + name + "\" did not take the request");
}

namespace {

/// The job's state, once node `index` is known to run; ejob::Error(NotFound) otherwise.
JobState with_running_node(const std::string& name, int index) {
  JobState s = get(name);
  auto node = std::find_if(s.nodes.begin(), s.nodes.end(),
                           [&](const NodeState& n) { return n.index == index; });
  if (node == s.nodes.end() || node->pid == 0)
    throw Error(ErrorCode::NotFound,
                "job \"" + name + "\" has no running worker-" + std::to_string(index));
  return s;
}

}  // namespace

void evict(const std::string& name, int index, int grace_s) {
  const JobState s = with_running_node(name, index);
  send_request(job_dir(name), s, {Request::Kind::Evict, 0, index, grace_s});
}

NoticeSent send_notice(const std::string& name, int index, const std::string& cloud,
                       std::optional<int> notice_s) {
  const JobState s = with_running_node(name, index);
  const fs::path launch_path = job_dir(name) / "launch.json";
  const std::string job_cloud =
      launch_from_json(read_json_file(launch_path), launch_path.string()).cloud;
  if (!cloud.empty() && cloud != job_cloud)
    throw Error(ErrorCode::Usage,
                "--provider " + cloud + ": the nodes of job \"" + name + "\" are " + job_cloud +
                    " VMs (the cloud of the spot nodes it selects; --spot gke or eks at submit "
                    "makes them gce or aws VMs)");
  const int seconds = notice_s.value_or(
      static_cast<int>(cloud_notice_period(cloud_named(job_cloud).value_or(Cloud::Azure)).count()));
  send_request(job_dir(name), s, {Request::Kind::Notice, 0, index, seconds});
  return {job_cloud, seconds};
}

int preemptions(const JobState& s) {
  int n = 0;
  for (const NodeState& node : s.nodes) n += node.evictions;
  return n;
}

int failures(const JobState& s) {
  int n = 0;
  for (const NodeState& node : s.nodes)
    n += node.restarts - node.evictions + (node.status == "failed" ? 1 : 0);
  return n;
}

void throw_if_unsuccessful(const JobState& s) {
  if (s.phase == Phase::Succeeded) return;
  const std::string what =
      "job \"" + s.name + "\" " + (s.phase == Phase::Stopped ? "was stopped" : "failed");
  if (s.exit_code == 10) throw Error(ErrorCode::Preempted, what + " after evictions: " + s.message);
  throw Error(ErrorCode::JobFailed, what + ": " + s.message);
}

}  // namespace ejob::local
