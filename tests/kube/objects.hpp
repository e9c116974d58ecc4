#pragma once
/// Objects the kubeapi tests send: the ElasticJob CRD (as apiextensions.k8s.io/v1, minimal
/// schema) and one job's objects shaped like the elasticjob chart renders them.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ejob::testing {

/// The ElasticJob CustomResourceDefinition.
inline nlohmann::json elasticjob_crd() {
  return nlohmann::json::parse(R"({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "elasticjobs.elastic.pytorch.org"},
    "spec": {"group": "elastic.pytorch.org", "scope": "Namespaced",
             "names": {"kind": "ElasticJob", "listKind": "ElasticJobList", "plural": "elasticjobs", "singular": "elasticjob"},
             "versions": [{"name": "v1alpha1", "served": true, "storage": true, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})");
}

/// Labels every object of job `name` carries.
inline nlohmann::json job_labels(const std::string& name, const std::string& component) {
  return {{"app.kubernetes.io/name", "elasticjob"},
          {"app.kubernetes.io/instance", name},
          {"app.kubernetes.io/component", component},
          {"app.kubernetes.io/managed-by", "ejob"}};
}

/// The etcd Service, the etcd Pod and the ElasticJob of job `name` in namespace elastic-job.
inline std::vector<nlohmann::json> job_objects(const std::string& name, int workers = 2) {
  nlohmann::json svc = {
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", {{"name", name + "-etcd-service"}, {"labels", job_labels(name, "etcd")}}},
      {"spec",
       {{"ports", {{{"name", "etcd-client-port"}, {"port", 2379}}}},
        {"selector", job_labels(name, "etcd")}}}};
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name + "-etcd"}, {"labels", job_labels(name, "etcd")}}},
      {"spec", {{"containers", {{{"name", "etcd"}, {"image", "quay.io/coreos/etcd:v3.5.17"}}}}}}};
  nlohmann::json job = nlohmann::json::parse(R"({
    "apiVersion": "elastic.pytorch.org/v1alpha1", "kind": "ElasticJob", "metadata": {},
    "spec": {"minReplicas": 1,
             "replicaSpecs": {"Worker": {"restartPolicy": "ExitCode", "template": {"spec": {"containers": [
                 {"name": "elasticjob-worker", "image": "worker:1", "args": ["train.py"]}]}}}}}})");
  job["metadata"] = {{"name", name}, {"labels", job_labels(name, "worker")}};
  job["spec"]["rdzvEndpoint"] = name + "-etcd-service:2379";
  job["spec"]["maxReplicas"] = workers;
  job["spec"]["replicaSpecs"]["Worker"]["replicas"] = workers;
  for (auto* o : {&svc, &pod, &job}) (*o)["metadata"]["namespace"] = "elastic-job";
  return {svc, pod, job};
}

}  // namespace ejob::testing
