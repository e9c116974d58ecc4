#include "src/job/engine.hpp"

#include <future>

#include "src/job/job_pods.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

using kubeapi::Json;

namespace {

const Engine k_elasticjob{
    EngineId::ElasticJob,
    "elasticjob",
    "elastic.pytorch.org/v1alpha1",
    "ElasticJob",
    "elasticjobs",
    "TorchElastic (pytorch/elastic, archived)",
    "install its CRD with `ejob install-crds` and its operator from pytorch/elastic's "
    "kubernetes/config/default manifests",
    "elastic-job",
    "elastic-job-k8s-controller",
    true};

// training-operator v1.9.0: manifests/overlays/standalone installs it into namespace kubeflow.
const Engine k_pytorchjob{
    EngineId::PyTorchJob,
    "pytorchjob",
    "kubeflow.org/v1",
    "PyTorchJob",
    "pytorchjobs",
    "Kubeflow training-operator v1",
    "kubectl apply --server-side -k "
    "\"github.com/kubeflow/training-operator.git/manifests/overlays/standalone?ref=v1.9.0\"",
    "kubeflow",
    "training-operator",
    true};

// Trainer v2.3.0: manifests/overlays/manager into kubeflow-system, then the runtimes.
const Engine k_trainjob{
    EngineId::TrainJob,
    "trainjob",
    "trainer.kubeflow.org/v1alpha1",
    "TrainJob",
    "trainjobs",
    "Kubeflow Trainer v2",
    "kubectl apply --server-side -k "
    "\"github.com/kubeflow/trainer.git/manifests/overlays/manager?ref=v2.3.0\", then "
    "\"github.com/kubeflow/trainer.git/manifests/overlays/runtimes?ref=v2.3.0\"",
    "kubeflow-system",
    "kubeflow-trainer-controller-manager",
    false};

std::string group_of(const std::string& api_version) {
  const auto slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

long number_at(const Json& obj, std::initializer_list<const char*> path, long otherwise) {
  const Json& j = json_at(obj, path);
  return j.is_number_integer() ? j.get<long>() : otherwise;
}

}  // namespace

const std::vector<const Engine*>& all_engines() {
  static const std::vector<const Engine*> k_all = {&k_pytorchjob, &k_trainjob, &k_elasticjob};
  return k_all;
}

const Engine& engine(EngineId id) {
  switch (id) {
    case EngineId::PyTorchJob: return k_pytorchjob;
    case EngineId::TrainJob: return k_trainjob;
    case EngineId::ElasticJob: break;
  }
  return k_elasticjob;
}

const Engine* find_engine(std::string_view name) {
  for (const Engine* e : all_engines())
    if (name == e->name) return e;
  return nullptr;
}

const Engine* engine_of(const Json& object) {
  const std::string kind = json_text(json_at(object, {"kind"}));
  const std::string group = group_of(json_text(json_at(object, {"apiVersion"})));
  for (const Engine* e : all_engines())
    if (kind == e->kind && group == group_of(e->api_version)) return e;
  return nullptr;
}

const Engine& job_engine(const Json& job) {
  const Engine* e = engine_of(job);
  return e ? *e : k_elasticjob;
}

std::string job_noun(const Engine& e, const std::string& name) {
  return std::string(e.name) + " \"" + name + "\"";
}

kubeapi::ResourceInfo engine_resource(const Engine& e) {
  const std::string api_version = e.api_version;
  const auto slash = api_version.find('/');
  return {api_version.substr(0, slash), api_version.substr(slash + 1), e.plural, e.kind, true};
}

std::string engine_worker_selector(const Engine& e, const std::string& name) {
  switch (e.id) {
    case EngineId::PyTorchJob: return "training.kubeflow.org/job-name=" + name;
    case EngineId::TrainJob: return "jobset.sigs.k8s.io/jobset-name=" + name;
    case EngineId::ElasticJob: break;
  }
  return "group-name=elastic.pytorch.org,job-name=" + name;
}

bool runs_job(const Engine& e, const Json& job, const Json& pod) {
  // A TrainJob's pods belong to the Jobs of the JobSet it owns, named as the TrainJob: the
  // JobSet label is what ties them to it (the JobSet of an earlier namesake went with it).
  if (e.id == EngineId::TrainJob) return true;
  return owned_by(pod, json_text(json_at(job, {"metadata", "uid"})));
}

WorkerRange worker_range(const Engine& e, const Json& job) {
  WorkerRange r;
  switch (e.id) {
    case EngineId::PyTorchJob:
      r.desired = number_at(job, {"spec", "pytorchReplicaSpecs", "Worker", "replicas"}, 1);
      r.min = number_at(job, {"spec", "elasticPolicy", "minReplicas"}, r.desired);
      r.max = number_at(job, {"spec", "elasticPolicy", "maxReplicas"}, r.desired);
      break;
    case EngineId::TrainJob:
      r.desired = r.min = r.max = number_at(job, {"spec", "trainer", "numNodes"}, 1);
      break;
    case EngineId::ElasticJob:
      r.desired = number_at(job, {"spec", "replicaSpecs", "Worker", "replicas"}, 1);
      r.min = number_at(job, {"spec", "minReplicas"}, r.desired);
      r.max = number_at(job, {"spec", "maxReplicas"}, r.desired);
      break;
  }
  return r;
}

Json scale_patch(const Engine& e, const Json& job, int nodes) {
  const std::string name = json_text(json_at(job, {"metadata", "name"}));
  const WorkerRange r = worker_range(e, job);
  if (e.id == EngineId::TrainJob)
    throw Error(ErrorCode::Usage, job_noun(e, name) + " runs a static world size of " +
                                      std::to_string(r.desired) +
                                      " nodes: a TrainJob cannot be scaled while it runs");
  if (e.id == EngineId::ElasticJob)
    throw Error(ErrorCode::Usage, "\"" + name +
                                      "\" is a cluster job: its ElasticJob controller scales it "
                                      "between workers.min and workers.max itself");
  if (nodes < r.min || nodes > r.max)
    throw Error(ErrorCode::Usage, "--workers: " + std::to_string(nodes) + " is outside " +
                                      job_noun(e, name) + "'s range " + std::to_string(r.min) +
                                      ":" + std::to_string(r.max) + " (elasticPolicy)");
  return {{"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", nodes}}}}}}}};
}

std::vector<const Engine*> served_engines(kubeapi::Client& client) {
  std::vector<std::future<bool>> asks;
  for (const Engine* e : all_engines())
    asks.push_back(std::async(std::launch::async, [&client, e] {
      return client.find_resource(e->api_version, e->kind).has_value();
    }));
  std::vector<const Engine*> served;
  for (size_t i = 0; i < asks.size(); ++i)
    if (asks[i].get()) served.push_back(all_engines()[i]);
  return served;
}

Error no_engine_served() {
  std::string how;
  for (const Engine* e : all_engines())
    how += std::string("\n  ") + e->name + " (" + e->kind + ", " + e->project + "): " + e->install;
  return Error(ErrorCode::NotFound,
               "the cluster serves none of the job kinds ejob runs (ElasticJob, PyTorchJob, "
               "TrainJob); install one:" +
                   how);
}

}  // namespace ejob::job
