#pragma once
/// The state of one local job, as files under its state folder
/// (`$XDG_STATE_HOME/ejob/local/NAME`, docs/local.md):
///
///   launch.json   what to run (written once by submit, read by the supervisor)
///   objects.json  the rendered objects, as the cluster would get them
///   state.json    phase, supervisor, etcd, nodes (rewritten whole: tmp file + rename)
///   events.jsonl  one JSON event per line, appended
///   nodes/worker-I.log, etcd.log, supervisor.log
///
/// Every write leaves each file whole, so a crash at any moment leaves the state readable; a
/// file damaged anyway is reported with its path.

#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ejob::local {

using Json = nlohmann::json;
namespace fs = std::filesystem;

/// The phases of a job; the last three are final.
enum class Phase { Starting, Running, Succeeded, Failed, Stopped };

std::string phase_name(Phase phase);
bool is_final(Phase phase);

/// One simulated node: an ejob-agent in its own session (everything it starts shares it).
struct NodeState {
  int index = 0;
  pid_t pid = 0;  ///< 0: not running
  std::string status =
      "pending";      ///< pending, running, restarting, succeeded, failed, evicted, removed
  int restarts = 0;   ///< times the node was started again after a signal exit
  int evictions = 0;  ///< preemptions: evicted (ejob evict), announced or not
  int notices = 0;    ///< of those, the ones a cloud's notice announced (evict --notice)
  std::optional<int> exit_code;  ///< of the last exit (128+N for a signal)
  std::string started;           ///< RFC 3339 times
  std::string finished;
};

struct JobState {
  std::string name;
  Phase phase = Phase::Starting;
  std::string message;  ///< why the job failed or stopped
  int exit_code = 0;    ///< the job's result once final: 0, a node's failing code, 10 preempted
  pid_t supervisor_pid = 0;
  pid_t etcd_pid = 0;
  std::string etcd_endpoint;          ///< 127.0.0.1:PORT
  std::string engine = "elasticjob";  ///< whose semantics the nodes run with (launch.hpp)
  std::string rdzv_endpoint;  ///< pytorchjob: the c10d store on node 0; trainjob: the master
  int min_nodes = 1;
  int max_nodes = 1;
  int desired_nodes = 1;
  std::vector<NodeState> nodes;
  std::string created;
  std::string finished;
};

/// How the job's nodes meet, in words: "etcd 127.0.0.1:P", "c10d store 127.0.0.1:P on node 0",
/// "static, master 127.0.0.1:P (node 0)".
std::string rendezvous_text(const JobState& state);

/// The root of all local jobs' folders: $XDG_STATE_HOME/ejob/local, else ~/.local/state/...
fs::path state_root();

/// The folder of job `name` (not checked to exist).
fs::path job_dir(const std::string& name);

/// Writes `text` to `path` whole: a temporary file in the same folder, fsync, rename.
void write_file_atomic(const fs::path& path, const std::string& text);

/// Reads and parses a JSON file; throws ejob::Error(Io) naming the file when it is missing,
/// unreadable or not JSON.
Json read_json_file(const fs::path& path);

Json to_json(const JobState& state);
/// Throws ejob::Error(Io) naming `origin` and the field when a field is missing or mistyped.
JobState job_state_from_json(const Json& json, const std::string& origin);

JobState load_state(const fs::path& dir);
void save_state(const fs::path& dir, const JobState& state);

/// One line of the events journal.
struct Event {
  std::string time;
  std::string type;    ///< Normal or Warning
  std::string reason;  ///< e.g. NodeStarted, NodeEvicted, JobSucceeded
  std::string message;
};

void append_event(const fs::path& dir, const Event& event);
/// The journal's events; a torn last line (a crash mid-append) is skipped.
std::vector<Event> read_events(const fs::path& dir);

/// The current time, RFC 3339 in UTC with seconds (as Kubernetes writes times).
std::string now_rfc3339();

}  // namespace ejob::local
