#pragma once
/// A submitted job's pods as `ejob logs` and `ejob describe` see them: the controller's worker
/// pods (`NAME-worker-I`, labelled as protocols/torchelastic-etcd.md §2.5 says) and the job's
/// own etcd pod, which container of a pod to read, whether its container has started, and
/// whether the pod was evicted or preempted. Pure functions over the objects, except
/// get_job and job_pods, which ask the server.

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "src/kubeapi/client.hpp"

namespace ejob::job {
struct Engine;
}

namespace ejob::job {

/// The label every object ejob renders carries (`app.kubernetes.io/managed-by: ejob`).
inline constexpr const char* k_managed_by_ejob = "app.kubernetes.io/managed-by=ejob";

/// The value at `path` in `obj`: a null Json when a key is missing or a step is not an object.
const kubeapi::Json& json_at(const kubeapi::Json& obj, std::initializer_list<const char*> path);

/// A scalar as text: a string as it is, whole numbers and booleans spelled out, else "".
std::string json_text(const kubeapi::Json& j);

/// Job `name` in `ns`, of whichever engine (engine.hpp) has one of that name (the newest when
/// several do), in one round trip when it exists (each engine's path as its CRD defines it;
/// discovery only when none has it). ejob::Error(NotFound): `ENGINE "NAME" not found in
/// namespace NS`, or naming each engine and how to install it when the cluster serves none.
kubeapi::Json get_job(kubeapi::Client& client, const std::string& ns, const std::string& name);

/// The pods labelled as job `name`'s workers in `ns` (engine_worker_selector), by replica
/// index, then name. Pods of an earlier job of the same name may be among them: runs_job_only
/// drops those.
std::vector<kubeapi::Json> worker_pods(kubeapi::Client& client, const Engine& engine,
                                       const std::string& ns, const std::string& name);

/// The pods among `pods` that run `job` itself (engine.hpp's runs_job).
std::vector<kubeapi::Json> runs_job_only(const Engine& engine, const kubeapi::Json& job,
                                         std::vector<kubeapi::Json> pods);

/// The objects owned by the object whose uid is `uid`.
std::vector<kubeapi::Json> keep_owned(std::vector<kubeapi::Json> objects, const std::string& uid);

/// The job's worker pods: worker_pods owned by `job`.
std::vector<kubeapi::Json> job_pods(kubeapi::Client& client, const kubeapi::Json& job);

/// Whether `obj` has an owner reference to the object whose uid is `uid`.
bool owned_by(const kubeapi::Json& obj, const std::string& uid);

/// The pod's replica index: ElasticJob's `replica-index` label, training-operator's
/// `training.kubeflow.org/replica-index`, or a Job's completion index (TrainJob's nodes), as a
/// number; -1 when absent or not a number.
int replica_index(const kubeapi::Json& pod);

/// A pod's name without the job's name and dash ("worker-0", "etcd"); the whole name when it
/// does not start with them.
std::string short_pod_name(const std::string& job, const std::string& pod);

/// How logs and describe name a worker pod: a JobSet's pod by its replicated job and completion
/// index ("node-1"), others by short_pod_name ("worker-1").
std::string pod_label(const std::string& job, const kubeapi::Json& pod);

/// The container `ejob logs` reads: `wanted` when not empty (ejob::Error(Usage) naming the
/// pod's containers when it has no such container), else the one the pod's
/// `kubectl.kubernetes.io/default-container` annotation names, else the first.
std::string log_container(const kubeapi::Json& pod, const std::string& wanted);

/// Where a container of a pod is: not yet started (Waiting, with the kubelet's reason),
/// running, or terminated; with its restart count.
struct ContainerState {
  enum class Phase { Waiting, Running, Terminated } phase = Phase::Waiting;
  std::string reason;  ///< Waiting/Terminated reason ("ContainerCreating", "Error", …)
  int exit_code = 0;   ///< Terminated only
  int restarts = 0;
};

/// The state of `container` in the pod's status (Waiting "PodInitializing" when the status
/// does not list it yet).
ContainerState container_state(const kubeapi::Json& pod, const std::string& container);

/// The sum of the restart counts of the pod's containers.
int pod_restarts(const kubeapi::Json& pod);

/// Why the pod was evicted or preempted, when it was: the kubelet's `status.reason: Evicted`
/// (node pressure) with its message, or a `DisruptionTarget` condition set by the API's
/// eviction, the scheduler's preemption, the taint manager or a node shutdown (a spot node
/// reclaimed), as "REASON: MESSAGE".
std::optional<std::string> disruption_of(const kubeapi::Json& pod);

/// Splits a stream's chunks into whole lines.
class LineSplitter {
 public:
  /// The lines completed by `chunk`, without their '\n'.
  std::vector<std::string> add(std::string_view chunk);
  /// What is left after the last '\n' (empty when nothing), and forgets it.
  std::string rest();

 private:
  std::string m_pending;
};

}  // namespace ejob::job
