#pragma once
/// The engines a job can run on — the kinds of training job an operator on the cluster runs —
/// and what ejob needs to know of each to submit, find, follow, scale and evict its jobs:
///
///   elasticjob  TorchElastic's ElasticJob (elastic.pytorch.org/v1alpha1) and its per-job etcd;
///               the guides' engine, whose controller (pytorch/elastic) was archived in 2022.
///   pytorchjob  Kubeflow training-operator v1's PyTorchJob (kubeflow.org/v1) with
///               `elasticPolicy`: c10d rendezvous hosted by worker 0, elastic within min..max.
///   trainjob    Kubeflow Trainer v2's TrainJob (trainer.kubeflow.org/v1alpha1), run as a JobSet
///               of Jobs; a static world size.
///
/// The facts come from ../shared/crds and its README (the operators' labels and env).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/kubeapi/client.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

enum class EngineId { ElasticJob, PyTorchJob, TrainJob };

struct Engine {
  EngineId id;
  const char* name;         ///< the `engine` value, the ENGINE column, the noun in messages
  const char* api_version;  ///< what ejob sends, "kubeflow.org/v1"
  const char* kind;         ///< "PyTorchJob"
  const char* plural;       ///< "pytorchjobs"
  const char* project;      ///< who makes its operator, for messages
  const char* install;      ///< how to install its CRD and operator
  const char* controller_namespace;  ///< where its operator's Deployment runs by default
  const char* controller;            ///< that Deployment's name
  bool elastic;                      ///< whether the world size may change while it runs
};

/// Every engine, in the order `auto` prefers them when more than one can run a job: the
/// maintained operators first (PyTorchJob, then TrainJob), the archived ElasticJob last.
const std::vector<const Engine*>& all_engines();

const Engine& engine(EngineId id);

/// The engine of an `engine` value ("pytorchjob"); nullptr when none has that name.
const Engine* find_engine(std::string_view name);

/// The engine whose job `object` is (its apiVersion's group and kind); nullptr when none.
const Engine* engine_of(const kubeapi::Json& object);

/// The engine of a job object ejob found; ElasticJob when the object says nothing.
const Engine& job_engine(const kubeapi::Json& job);

/// "pytorchjob \"NAME\"": how messages name a job.
std::string job_noun(const Engine& e, const std::string& name);

/// The engine's resource at the path its CRD defines (no discovery).
kubeapi::ResourceInfo engine_resource(const Engine& e);

/// The label selector of the pods that run job `name`'s workers.
std::string engine_worker_selector(const Engine& e, const std::string& name);

/// Whether `pod` (one of engine_worker_selector's) belongs to `job` itself rather than to an
/// earlier job of the same name: owned by it, or for a TrainJob by its JobSet's Jobs.
bool runs_job(const Engine& e, const kubeapi::Json& job, const kubeapi::Json& pod);

/// The job's worker range as its spec says: min, max and the replicas asked for.
struct WorkerRange {
  long min = 0;
  long max = 0;
  long desired = 0;
};
WorkerRange worker_range(const Engine& e, const kubeapi::Json& job);

/// The merge patch that sets job `job`'s workers to `nodes`. ejob::Error(Usage) when the
/// engine cannot change a running job's size or `nodes` is outside min..max.
kubeapi::Json scale_patch(const Engine& e, const kubeapi::Json& job, int nodes);

/// The engines `client`'s cluster serves, by discovery of their group/versions (side by side;
/// the client remembers the answers), in all_engines' order.
std::vector<const Engine*> served_engines(kubeapi::Client& client);

/// NotFound: the cluster serves no engine's kind; names each engine and how to install it.
Error no_engine_served();

}  // namespace ejob::job
