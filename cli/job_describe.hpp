#pragma once
/// What `ejob describe NAME` prints, from the objects the command fetched: the job (status,
/// image, command, replica counts, resources, rendezvous), its conditions, its worker pods
/// (status, restarts, node, age), the evictions and preemptions its workers went through and
/// the events of the job and its pods, laid out as `kubectl describe` lays them out. Pure
/// functions over the objects, so they are easy to test.

#include <chrono>
#include <string>
#include <vector>

#include "ejob/kubeapi/client.hpp"
#include "ejob/local/local_jobs.hpp"

namespace ejob::cli {

/// Everything describe shows, as fetched.
struct JobView {
  kubeapi::Json job;
  std::vector<kubeapi::Json> workers;   ///< the controller's pods of this job (job_pods)
  std::vector<kubeapi::Json> own_pods;  ///< the job's own pods (the etcd pod)
  std::vector<kubeapi::Json> events;    ///< the namespace's events; job_events picks
};

/// The events about the job, its etcd Pod and Service and its worker pods — also those of
/// workers that are gone, found by name (`NAME-worker-I`) — oldest first.
std::vector<kubeapi::Json> job_events(const kubeapi::Json& job,
                                      const std::vector<kubeapi::Json>& events);

/// One eviction or preemption of a worker.
struct Eviction {
  std::string pod;  ///< short name ("worker-1")
  std::string age;  ///< kubectl's AGE of when it happened; "" when unknown
  std::string why;  ///< "REASON: MESSAGE"
};

/// The workers' evictions, once per pod: a current pod's `status.reason: Evicted` or
/// `DisruptionTarget` condition, and the events that say a pod (perhaps gone since) was
/// evicted or preempted (`Evicted`, `Preempted`, `TaintManagerEviction`), oldest first; those
/// whose time is not known (a pod's `status.reason` alone) last.
std::vector<Eviction> job_evictions(const JobView& view, std::chrono::system_clock::time_point now);

/// An event's AGE as kubectl describe shows it: "5m", or "5m (x3 over 12m)" for a repeated
/// event.
std::string event_age(const kubeapi::Json& event, std::chrono::system_clock::time_point now);

/// The whole text of `ejob describe`.
std::string describe_job(const JobView& view, std::chrono::system_clock::time_point now);

/// `ejob describe` of a local job, in the same shape: the job, its nodes (restarts,
/// evictions, exit codes, pids), the rendezvous round its etcd holds, and its events.
std::string describe_local_job(const local::JobView& view,
                               std::chrono::system_clock::time_point now);

}  // namespace ejob::cli
