#pragma once
/// What runs a job: a Kubernetes cluster (ClusterBackend, over src/kubeapi) or this machine
/// (LocalBackend, over src/local). The job commands are written once over this interface
/// (jobs.hpp); cli/ picks a backend, calls one of them and prints.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "src/job/job_view.hpp"
#include "src/job/logs.hpp"
#include "src/kubeapi/client.hpp"
#include "src/local/local_jobs.hpp"

namespace ejob::job {

using kubeapi::Json;

/// A fresh rendering of the job's objects; each call draws a new name unless it is exact.
using RenderObjects = std::function<std::vector<Json>()>;

/// Progress lines of a long wait ("… 1 of 2 workers running").
using Report = std::function<void(const std::string&)>;

enum class Where { Cluster, Local };

struct SubmitOptions {
  bool exact_name = false;        ///< a taken name is refused instead of drawn again
  bool server_dry_run = false;    ///< cluster: dryRun=All
  bool create_namespace = false;  ///< cluster: Helm's --create-namespace
};

struct Submitted {
  std::string name;
  std::vector<Json> objects;       ///< as created (cluster: the server's answers)
  std::vector<std::string> notes;  ///< what this backend leaves out of the job
  std::string summary;             ///< local: "2 nodes, etcd 127.0.0.1:PORT"; cluster: ""
};

/// How long `--wait` waits.
struct WaitOptions {
  std::optional<std::chrono::milliseconds> timeout;  ///< nullopt: no limit
  /// Gives up with Preempted (10) once the job's workers were preempted more often than this
  /// (`--max-preemptions`); nullopt: however often (the job's own end decides).
  std::optional<int> max_preemptions;
};

/// What `ejob evict` asks for: one worker, or (cluster) every worker on a node.
struct EvictRequest {
  std::optional<int> worker;   ///< the worker's index
  std::string node;            ///< cluster: the node to cordon and drain of the job's workers
  std::optional<int> grace_s;  ///< local: SIGTERM → SIGKILL, or notice → reclaim
  bool notice = false;         ///< local: the cloud's preemption notice first
  std::string provider;        ///< local --notice: azure, aws or gce ("" = the job's cloud)
};

struct RemoveOptions {
  bool keep = false;  ///< local: keep the job's folder
};

/// What a removal found: nothing, a job removed, or one that finalizers still hold.
struct Removed {
  bool found = false;
  std::string held_by;  ///< the finalizers holding it ("" when it is gone)
  /// How kubectl names the removed object's kind: "pytorchjob.kubeflow.org" ("" for local).
  std::string kind;
};

/// What describe shows of a job, as data: a cluster job's objects, or a local job's state.
using Description = std::variant<JobView, local::JobView>;

class Backend {
 public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual Where where() const = 0;
  /// Creates the job; a drawn name that is taken is drawn again (render), an exact one is
  /// ejob::Error(Conflict). Nothing is left behind when it fails.
  virtual Submitted submit(const RenderObjects& render, const SubmitOptions& options) = 0;
  /// The jobs, as ElasticJob objects with their status.
  virtual std::vector<Json> list() = 0;
  /// Returns once job `name` succeeded; throws JobFailed (1), Preempted (10: the job failed
  /// after preemptions, or was preempted more than options.max_preemptions times), Timeout (9)
  /// or NotFound (8) as docs/exit-codes.md says.
  virtual void wait(const std::string& name, const WaitOptions& options, const Report& report) = 0;
  virtual Removed remove(const std::string& name, const RemoveOptions& options) = 0;
  /// Returns once what remove() started is over (a cluster's garbage collector has taken the
  /// job's pods); ejob::Error(Timeout) after `timeout`.
  virtual void wait_removed(const std::string& name,
                            std::optional<std::chrono::milliseconds> timeout) = 0;
  /// Sets the number of worker nodes (within min..max).
  virtual void scale(const std::string& name, int nodes) = 0;
  /// Evicts what `request` names, as a spot reclaim does; returns what was done, a line each.
  virtual std::vector<std::string> evict(const std::string& name, const EvictRequest& request) = 0;
  /// The job's workers' logs into `out`; with `options.follow`, until the job ends (a local
  /// job's end then decides the result as wait() does).
  virtual void logs(const std::string& name, const LogRequest& request, LogSink& out) = 0;
  /// What `ejob describe` shows of job `name`; ejob::Error(NotFound) when there is none.
  virtual Description describe(const std::string& name) = 0;
};

}  // namespace ejob::job
