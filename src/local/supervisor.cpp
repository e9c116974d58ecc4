#include "src/local/supervisor.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "src/local/etcd_server.hpp"
#include "src/local/launch.hpp"
#include "src/local/metadata_service.hpp"
#include "src/local/process.hpp"
#include "src/local/requests.hpp"
#include "src/local/state.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

using Clock = std::chrono::steady_clock;

/// Exit statuses the ElasticJob controller's ExitCode policy treats as retryable: ended by a
/// signal (128+N; SIGINT, SIGKILL, SIGTERM as a container runtime reports them).
bool retryable(int code) { return code == 130 || code == 137 || code == 143; }

int exit_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return WEXITSTATUS(wait_status);
}

class Supervisor {
 public:
  Supervisor(fs::path dir, LaunchSpec spec, JobState state)
      : m_dir(std::move(dir)), m_spec(std::move(spec)), m_state(std::move(state)) {}

  int run(int signal_fd);

 private:
  void start_job();
  void start_node(NodeState& node);
  void add_node();
  void on_signal(const signalfd_siginfo& info);
  void reap();
  void on_node_exit(NodeState& node, int code);
  void restart_etcd(int code);
  void on_request(const Request& request);
  void scale_to(int nodes);
  void evict(int index, int grace_s);
  void notice(int index, int notice_s);
  void start_metadata();
  void poll_once(int signal_fd);
  [[nodiscard]] bool may_restart(const NodeState& node, const std::string& why) const;
  void kill_overdue();
  void decide_end();
  void finish(Phase phase, int code, const std::string& message);
  void stop_nodes(int grace_ms);
  void event(const std::string& type, const std::string& reason, const std::string& message);
  void save();
  bool flush_writes();
  NodeState* node_of_pid(pid_t pid);
  NodeState* node_at(int index);
  int active_nodes() const;
  int staying_nodes() const;  ///< running and not being stopped

  fs::path m_dir;
  LaunchSpec m_spec;
  JobState m_state;
  bool m_stopping = false;
  std::map<int, Clock::time_point> m_kill_at;   ///< node index -> SIGKILL time (evictions)
  std::map<int, std::string> m_ending;          ///< node index -> why it is being stopped
  std::unique_ptr<MetadataService> m_metadata;  ///< the simulated VMs' (evict --notice)
  /// Writes that failed (a full disk) and are tried again each turn of the loop, in order.
  std::vector<Event> m_unwritten_events;
  bool m_state_unwritten = false;
  bool m_write_failing = false;
};

std::string node_name(int index) { return "worker-" + std::to_string(index); }

int Supervisor::run(int signal_fd) {
  start_job();
  while (!is_final(m_state.phase)) {
    poll_once(signal_fd);
    reap();
    kill_overdue();
    decide_end();
    if (m_state_unwritten || !m_unwritten_events.empty()) flush_writes();
  }
  // The final state is what every reader waits for: a disk that is still full gets a minute.
  for (int tries = 0; tries < 240 && !flush_writes(); ++tries)
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  return 0;
}

void Supervisor::save() {
  m_state_unwritten = true;
  flush_writes();
}

/// Events first, then the state, as they happened. A write that fails (ENOSPC, EIO) is kept
/// and tried again: a disk full for a moment must not end the job, nor lose what it recorded.
bool Supervisor::flush_writes() {
  try {
    while (!m_unwritten_events.empty()) {
      append_event(m_dir, m_unwritten_events.front());
      m_unwritten_events.erase(m_unwritten_events.begin());
    }
    if (m_state_unwritten) save_state(m_dir, m_state);
    m_state_unwritten = false;
    if (m_write_failing) std::cerr << "ejob supervisor: the job's files are written again\n";
    m_write_failing = false;
    return true;
  } catch (const Error& e) {
    if (!m_write_failing)
      std::cerr << "ejob supervisor: " << e.message() << "; trying again every 250 ms\n";
    m_write_failing = true;
    return false;
  }
}

/// Waits up to 250 ms for a signal or a metadata request, and handles what came.
void Supervisor::poll_once(int signal_fd) {
  std::vector<pollfd> fds{{signal_fd, POLLIN, 0}};
  if (m_metadata) {
    const std::vector<pollfd> service = m_metadata->fds();
    fds.insert(fds.end(), service.begin(), service.end());
  }
  // A GCE long-poll parked in the service is looked at again at least every 250 ms.
  if (::poll(fds.data(), fds.size(), 250) < 0) return;
  if (fds[0].revents != 0) {
    signalfd_siginfo info{};
    while (::read(signal_fd, &info, sizeof info) == sizeof info) on_signal(info);
  }
  if (m_metadata) m_metadata->serve({fds.begin() + 1, fds.end()});
}

/// The nodes' VMs get a metadata service as a cloud's do, so that a notice can be drilled; a
/// job runs as well without it (the agents then find no cloud, as off a cloud).
void Supervisor::start_metadata() {
  try {
    m_metadata =
        std::make_unique<MetadataService>(cloud_named(m_spec.cloud).value_or(Cloud::Azure));
  } catch (const Error& e) {
    event("Warning", "NoMetadataService", e.message() + "; evict --notice cannot be drilled");
  }
}

void Supervisor::start_job() {
  m_state.supervisor_pid = ::getpid();
  m_state.engine = m_spec.engine;
  save();
  start_metadata();
  if (!uses_etcd(m_spec)) {
    // c10d (node 0 hosts the store) or static (node 0 is the master): a port for node 0.
    m_state.rdzv_endpoint = "127.0.0.1:" + std::to_string(free_port());
    event("Normal", "Rendezvous", rendezvous_text(m_state));
  } else {
    try {
      EtcdServer etcd = start_etcd(m_spec.etcd, m_dir);
      m_state.etcd_pid = etcd.pid;
      m_state.etcd_endpoint = "127.0.0.1:" + std::to_string(etcd.client_port);
    } catch (const Error& e) {
      finish(Phase::Failed, 1, e.message());
      return;
    }
    event("Normal", "EtcdStarted", "etcd serves the rendezvous on " + m_state.etcd_endpoint);
  }
  for (int i = 0; i < m_spec.initial_nodes; ++i) add_node();
  m_state.phase = Phase::Running;
  save();
}

void Supervisor::add_node() {
  NodeState node;
  node.index = m_state.nodes.empty() ? 0 : m_state.nodes.back().index + 1;
  m_state.nodes.push_back(node);
  start_node(m_state.nodes.back());
}

void Supervisor::start_node(NodeState& node) {
  fs::create_directories(m_dir / "nodes");
  const std::string& endpoint = uses_etcd(m_spec) ? m_state.etcd_endpoint : m_state.rdzv_endpoint;
  std::map<std::string, std::string> env = node_environment(m_spec, node.index, endpoint);
  if (m_metadata) {
    m_metadata->withdraw(node.index);  // a node started again is a new VM: no notice
    env.emplace("EJOB_SPOT_METADATA_URL", m_metadata->url_for(node.index));
  }
  Spawn spawn{node_arguments(m_spec, endpoint), std::move(env), m_spec.workdir,
              m_dir / "nodes" / (node_name(node.index) + ".log"), true};
  node.pid = spawn_session(spawn);
  node.status = "running";
  node.started = now_rfc3339();
  node.finished.clear();
  save();
  event("Normal", "NodeStarted",
        "started " + node_name(node.index) + " (pid " + std::to_string(node.pid) + ")");
}

void Supervisor::on_signal(const signalfd_siginfo& info) {
  if (info.ssi_signo == SIGUSR1) {
    for (const Request& r : take_requests(m_dir)) on_request(r);
  } else if (info.ssi_signo != SIGCHLD && !m_stopping) {
    m_stopping = true;
    event("Normal", "Stopping",
          "stopping every node (signal " + std::to_string(info.ssi_signo) + ")");
    stop_nodes(10000);
    finish(Phase::Stopped, 143, "stopped by ejob delete");
  }
}

void Supervisor::reap() {
  int status = 0;
  for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
    if (NodeState* node = node_of_pid(pid)) on_node_exit(*node, exit_status(status));
    if (pid == m_state.etcd_pid && !m_stopping) restart_etcd(exit_status(status));
  }
}

/// The rendezvous store died (killed, out of memory): started again on the port the agents
/// know, with its data folder, so the round it held is still there; the agents' requests
/// meanwhile fail and are retried. A store that cannot come back fails the job, saying why.
void Supervisor::restart_etcd(int code) {
  const std::string endpoint = m_state.etcd_endpoint;
  const int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  m_state.etcd_pid = 0;
  event("Warning", "EtcdExited",
        "the job's etcd exited (" + std::to_string(code) + "); starting it again on " + endpoint);
  try {
    m_state.etcd_pid = start_etcd(m_spec.etcd, m_dir, 20000, port).pid;
    event("Normal", "EtcdStarted", "etcd serves the rendezvous on " + endpoint + " again");
    save();
  } catch (const Error& e) {
    stop_nodes(10000);
    finish(Phase::Failed, 1, "the job's etcd exited and did not start again: " + e.message());
  }
}

void Supervisor::on_node_exit(NodeState& node, int code) {
  const int index = node.index;
  signal_session(node.pid, SIGKILL);  // what the agent left behind goes with it, as a pod's
  node.pid = 0;
  node.exit_code = code;
  node.finished = now_rfc3339();
  m_kill_at.erase(index);
  const std::string why = m_ending.count(index) ? m_ending[index] : "";
  m_ending.erase(index);
  const std::string what = node_name(index) + " exited " + std::to_string(code);
  if (why == "removed" || why == "stopped" || m_stopping) {
    node.status = why == "removed" ? "removed" : "stopped";
    event("Normal", "NodeRemoved", what);
  } else if (code == 0) {
    node.status = "succeeded";
    event("Normal", "NodeSucceeded", what);
  } else if (why == "evicted" || why == "preempted" || retryable(code)) {
    if (why == "evicted" || why == "preempted") ++node.evictions;
    if (why == "preempted") ++node.notices;
    if (!may_restart(node, why)) {
      node.status = "failed";
      event("Warning", "BackoffLimitExceeded",
            what + " and was restarted " + std::to_string(node.restarts) + " times");
    } else {
      ++node.restarts;
      event("Warning",
            why == "preempted" ? "NodePreempted"
            : why == "evicted" ? "NodeEvicted"
                               : "NodeRestarted",
            what + ", started again");
      start_node(node);
      return;
    }
  } else {
    node.status = "failed";
    event("Warning", "NodeFailed", what);
  }
  save();
}

/// Preemptions never use up a node's restarts: a reclaimed VM's pod is made again elsewhere
/// however often the cloud takes one (`--wait --max-preemptions` decides when to give up);
/// failures do, as backoffLimit counts them.
bool Supervisor::may_restart(const NodeState& node, const std::string& why) const {
  if (why == "evicted" || why == "preempted") return true;
  return node.restarts - node.evictions < m_spec.max_node_restarts;
}

void Supervisor::on_request(const Request& r) {
  if (r.kind == Request::Kind::Scale)
    scale_to(r.nodes);
  else if (r.kind == Request::Kind::Notice)
    notice(r.index, r.grace_s);
  else
    evict(r.index, r.grace_s);
  save();
}

void Supervisor::scale_to(int nodes) {
  nodes = std::clamp(nodes, m_spec.min_nodes, m_spec.max_nodes);
  m_state.desired_nodes = nodes;
  event("Normal", "Scaled", "scaled to " + std::to_string(nodes) + " nodes");
  while (staying_nodes() < nodes) add_node();
  // The newest nodes go first, as a scale-down of a ReplicaSet removes the youngest pods.
  for (auto it = m_state.nodes.rbegin(); it != m_state.nodes.rend() && staying_nodes() > nodes;
       ++it) {
    if (it->pid == 0 || m_ending.count(it->index)) continue;
    m_ending[it->index] = "removed";
    signal_session(it->pid, SIGTERM);
    m_kill_at[it->index] = Clock::now() + std::chrono::seconds(30);
  }
}

void Supervisor::evict(int index, int grace_s) {
  NodeState* node = node_at(index);
  if (!node || node->pid == 0 || m_ending.count(index)) return;
  m_ending[index] = "evicted";
  event("Warning", "Evicting",
        node_name(index) + ": SIGTERM, SIGKILL after " + std::to_string(grace_s) + " s");
  signal_session(node->pid, SIGTERM);
  m_kill_at[index] = Clock::now() + std::chrono::seconds(grace_s);
}

/// The cloud's notice on the node's metadata service; at the deadline the VM is gone (SIGKILL
/// of everything the node runs). An agent that heard the notice has left well before.
void Supervisor::notice(int index, int notice_s) {
  NodeState* node = node_at(index);
  if (!node || node->pid == 0 || m_ending.count(index) || !m_metadata) return;
  m_ending[index] = "preempted";
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(notice_s);
  m_metadata->publish(index, deadline);
  event("Warning", "PreemptionNotice",
        node_name(index) + ": " + cloud_name(m_metadata->cloud()) +
            " preemption notice, the VM is reclaimed in " + std::to_string(notice_s) + " s");
  m_kill_at[index] = Clock::now() + std::chrono::seconds(notice_s);
}

void Supervisor::kill_overdue() {
  for (const auto& [index, when] : m_kill_at) {
    NodeState* node = node_at(index);
    if (node && node->pid != 0 && Clock::now() >= when) signal_session(node->pid, SIGKILL);
  }
}

void Supervisor::decide_end() {
  if (is_final(m_state.phase)) return;
  auto failed = std::find_if(m_state.nodes.begin(), m_state.nodes.end(),
                             [](const NodeState& n) { return n.status == "failed"; });
  if (failed != m_state.nodes.end()) {
    const int code = failed->exit_code.value_or(1);
    stop_nodes(10000);
    const bool preempted = failed->evictions > 0 || retryable(code);
    finish(Phase::Failed, preempted ? 10 : code,
           node_name(failed->index) + " failed with exit code " + std::to_string(code));
    return;
  }
  const bool all_done = std::all_of(
      m_state.nodes.begin(), m_state.nodes.end(),
      [](const NodeState& n) { return n.status == "succeeded" || n.status == "removed"; });
  const bool any_succeeded =
      std::any_of(m_state.nodes.begin(), m_state.nodes.end(),
                  [](const NodeState& n) { return n.status == "succeeded"; });
  if (all_done && any_succeeded && active_nodes() == 0)
    finish(Phase::Succeeded, 0, "every node finished");
}

void Supervisor::finish(Phase phase, int code, const std::string& message) {
  // The final phase is the supervisor's last write: once a reader sees it (submit --wait,
  // logs -f), etcd is stopped and the events journal is complete.
  if (m_state.etcd_pid != 0) stop_session(m_state.etcd_pid, 5000);
  m_state.etcd_pid = 0;
  event(phase == Phase::Succeeded ? "Normal" : "Warning", "Job" + phase_name(phase), message);
  m_state.phase = phase;
  m_state.exit_code = code;
  m_state.message = message;
  m_state.finished = now_rfc3339();
  save();
}

void Supervisor::stop_nodes(int grace_ms) {
  for (NodeState& node : m_state.nodes)
    if (node.pid != 0) m_ending.emplace(node.index, "stopped");
  for (NodeState& node : m_state.nodes)
    if (node.pid != 0) signal_session(node.pid, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::milliseconds(grace_ms);
  while (active_nodes() > 0 && Clock::now() < deadline) {
    ::usleep(20000);
    reap();
  }
  for (NodeState& node : m_state.nodes)
    if (node.pid != 0) signal_session(node.pid, SIGKILL);
  while (active_nodes() > 0) {
    ::usleep(10000);
    reap();
  }
}

void Supervisor::event(const std::string& type, const std::string& reason,
                       const std::string& message) {
  m_unwritten_events.push_back({now_rfc3339(), type, reason, message});
  flush_writes();
}

NodeState* Supervisor::node_of_pid(pid_t pid) {
  for (NodeState& n : m_state.nodes)
    if (n.pid == pid) return &n;
  return nullptr;
}

NodeState* Supervisor::node_at(int index) {
  for (NodeState& n : m_state.nodes)
    if (n.index == index) return &n;
  return nullptr;
}

int Supervisor::active_nodes() const {
  return static_cast<int>(std::count_if(m_state.nodes.begin(), m_state.nodes.end(),
                                        [](const NodeState& n) { return n.pid != 0; }));
}

int Supervisor::staying_nodes() const {
  return static_cast<int>(
      std::count_if(m_state.nodes.begin(), m_state.nodes.end(),
                    [&](const NodeState& n) { return n.pid != 0 && !m_ending.count(n.index); }));
}

/// Signals arrive through a signalfd, so none interrupts the supervisor between two writes of
/// its state.
int block_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&set, sig);
  ::sigprocmask(SIG_BLOCK, &set, nullptr);
  return ::signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

}  // namespace

int run_supervisor(const fs::path& dir) {
  const int signal_fd = block_signals();
  LaunchSpec spec =
      launch_from_json(read_json_file(dir / "launch.json"), (dir / "launch.json").string());
  Supervisor supervisor(dir, std::move(spec), load_state(dir));
  return supervisor.run(signal_fd);
}

pid_t start_supervisor(const fs::path& self, const fs::path& dir) {
  Spawn spawn{{self.string(), "local-supervisor", dir.string()}, {}, dir, dir / "supervisor.log"};
  return spawn_session(spawn);
}

}  // namespace ejob::local
