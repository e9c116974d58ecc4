#pragma once
/// The local backend's operations on jobs (docs/local.md): what `ejob submit --local`, `list`,
/// `logs`, `describe`, `delete`, `scale`, `evict` and `--wait` do for a job that runs on this
/// machine. Each reads the job's state folder; only the supervisor writes state.json.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/local/launch.hpp"
#include "src/local/state.hpp"

namespace ejob::local {

/// Creates the job's folder (refused with ejob::Error(Conflict) when the name is taken),
/// writes launch.json and objects.json, starts the supervisor (`self local-supervisor DIR`)
/// and waits until the job runs or failed to start (then throws with the supervisor's
/// message and removes the folder). Returns the state once running.
JobState submit(const LaunchSpec& spec, const std::vector<Json>& objects, const std::string& self);

/// True when a local job of this name exists.
bool exists(const std::string& name);

/// The state of job `name`; ejob::Error(NotFound) when there is none.
JobState get(const std::string& name);

/// Every local job's state, by name; a damaged one is reported through `warn` and skipped.
std::vector<JobState> list(const std::function<void(const std::string&)>& warn);

/// Waits until the job is final, calling `report` every `report_every` with its progress.
/// Returns the final state, or throws ejob::Error(Timeout) after `timeout`, or
/// ejob::Error(Preempted) once its nodes were preempted more than `max_preemptions` times (the
/// job goes on in both cases).
JobState wait(const std::string& name, std::optional<std::chrono::milliseconds> timeout,
              std::optional<int> max_preemptions,
              const std::function<void(const std::string&)>& report,
              std::chrono::milliseconds report_every);

/// Stops the job (SIGTERM to its supervisor, or to its nodes and etcd when the supervisor is
/// gone), checks that no process of it is left, and removes its folder unless `keep`.
void remove(const std::string& name, bool keep);

/// Asks the supervisor for `nodes` nodes (within min..max) and waits until it took them on.
JobState scale(const std::string& name, int nodes);

/// Evicts node `index` as a spot reclaim does: SIGTERM, SIGKILL after `grace_s`.
void evict(const std::string& name, int index, int grace_s);

/// What a notice was published as: the cloud and the seconds until the VM is reclaimed.
struct NoticeSent {
  std::string cloud;
  int notice_s = 0;
};

/// Preempts node `index` as a spot VM's cloud does: its preemption notice on the node's
/// metadata service (the format of `cloud`: azure, aws or gce; "" = the job's), the VM
/// reclaimed `notice_s` later (default: that cloud's notice period). Throws ejob::Error(Usage)
/// for another cloud than the job's nodes run on, NotFound for a node not running.
NoticeSent send_notice(const std::string& name, int index, const std::string& cloud,
                       std::optional<int> notice_s);

/// The preemptions of the job's nodes (evictions, announced or not) and their failures (exits
/// that were neither a success nor a preemption).
int preemptions(const JobState& state);
int failures(const JobState& state);

/// A whole line of node `index`'s log.
using LineSink = std::function<void(int index, const std::string& line)>;

/// The job's logs: every node's log, whole lines, node after node; with `follow`, every
/// node's new lines as they come (nodes added later too) until the job is final. Returns the
/// final state when following.
std::optional<JobState> logs(const std::string& name, bool follow, const LineSink& out);

/// What `ejob describe` shows of a local job.
struct JobView {
  JobState state;
  LaunchSpec launch;
  std::vector<Event> events;
  Json round;              ///< the rendezvous's active round as etcd holds it; null: none
  std::string round_note;  ///< why there is no round (etcd stopped, no round yet)
};

/// The job's rendered objects (objects.json), as a cluster would have got them.
std::vector<Json> rendered_objects(const std::string& name);

/// The job's state, launch, events, and the current rendezvous round read from its etcd.
JobView view(const std::string& name);

/// The job's result as an error to throw, or nothing when it succeeded: JobFailed (1) with the
/// node's exit code in the message, Preempted (10) after evictions.
void throw_if_unsuccessful(const JobState& state);

}  // namespace ejob::local
