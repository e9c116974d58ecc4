#pragma once
/// What `ejob describe NAME` prints, from the objects the command fetched: the job (status,
/// image, command, replica counts, resources, rendezvous), its conditions, its worker pods
/// (status, restarts, node, age), the evictions and preemptions its workers went through and
/// the events of the job and its pods, laid out as `kubectl describe` lays them out. Pure
/// functions over the objects, so they are easy to test.

#include <chrono>
#include <string>
#include <vector>

#include "src/job/backend.hpp"
#include "src/job/job_view.hpp"
#include "src/kubeapi/client.hpp"
#include "src/local/local_jobs.hpp"

namespace ejob::job {

using job::JobView;

/// An event's AGE as kubectl describe shows it: "5m", or "5m (x3 over 12m)" for a repeated
/// event.
std::string event_age(const kubeapi::Json& event, std::chrono::system_clock::time_point now);

/// The whole text of `ejob describe`.
std::string describe_job(const JobView& view, std::chrono::system_clock::time_point now);

/// `ejob describe` of a local job, in the same shape: the job, its nodes (restarts,
/// evictions, exit codes, pids), the rendezvous round its etcd holds, and its events.
std::string describe_local_job(const local::JobView& view,
                               std::chrono::system_clock::time_point now);

/// The text of either backend's description (describe_job, describe_local_job).
std::string describe_text(const Description& d, std::chrono::system_clock::time_point now);

/// The objects `ejob describe -o json|yaml` prints: a cluster job, its own pods, its workers
/// and the events about them; a local job as the ElasticJob object `ejob list` shows.
std::vector<kubeapi::Json> described_objects(const Description& d);

}  // namespace ejob::job
