#pragma once
/// A cluster job as its objects show it: the job, its worker pods, its own (etcd) pods and the
/// namespace's events, and what follows from them — the events about the job, and the
/// evictions and preemptions its workers went through. `ejob describe` prints a view; `--wait`
/// tells a preempted job from a failed one by its evictions.

#include <string>
#include <vector>

#include "src/kubeapi/client.hpp"

namespace ejob::job {

/// Everything describe shows, as fetched.
struct JobView {
  kubeapi::Json job;
  std::vector<kubeapi::Json> workers;   ///< the controller's pods of this job (job_pods)
  std::vector<kubeapi::Json> own_pods;  ///< the job's own pods (the etcd pod)
  std::vector<kubeapi::Json> runs;      ///< what runs a TrainJob: its JobSet, then its Jobs
  std::vector<kubeapi::Json> events;    ///< the namespace's events; job_events picks
};

/// Fetches the view of job `name` in `ns`: the job, its workers, its etcd pod and the
/// namespace's events, side by side (one round trip when the job exists). Throws
/// ejob::Error(NotFound) when the job does not exist.
JobView fetch_view(kubeapi::Client& client, const std::string& ns, const std::string& name);

/// When an event last happened: lastTimestamp, else eventTime, else firstTimestamp, else its
/// creation.
std::string event_time(const kubeapi::Json& event);

/// When an event first happened: firstTimestamp, else eventTime, else event_time.
std::string event_first_time(const kubeapi::Json& event);

/// The events about the job, its etcd Pod and Service and its worker pods — also those of
/// workers that are gone, found by name (`NAME-worker-I`) — oldest first.
std::vector<kubeapi::Json> job_events(const kubeapi::Json& job,
                                      const std::vector<kubeapi::Json>& events);

/// One eviction or preemption of a worker.
struct Eviction {
  std::string pod;   ///< short name ("worker-1")
  std::string time;  ///< RFC 3339, when it happened; "" when unknown
  std::string why;   ///< "REASON: MESSAGE"
};

/// The workers' evictions, once per pod: a current pod's `status.reason: Evicted` or
/// `DisruptionTarget` condition, and the events that say a pod (perhaps gone since) was
/// evicted or preempted (`Evicted`, `Preempted`, `TaintManagerEviction`), oldest first; those
/// whose time is not known (a pod's `status.reason` alone) last.
std::vector<Eviction> job_evictions(const JobView& view);

/// The job's state: Terminating once it is being deleted (finalizers hold it); else the first
/// of Succeeded (a TrainJob's Complete), Failed, Restarting, Running, Suspended, Created that
/// is a condition with status "True"; Pending when none is.
std::string job_status(const kubeapi::Json& job);

}  // namespace ejob::job
