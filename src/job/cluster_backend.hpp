#pragma once
/// The jobs of one namespace of a Kubernetes cluster (all namespaces: ""), through the API
/// server: jobs of every engine (engine.hpp) and what they own, created without overwriting
/// anything.

#include <map>

#include "src/job/backend.hpp"
#include "src/job/engine.hpp"

namespace ejob::job {

class ClusterBackend : public Backend {
 public:
  ClusterBackend(kubeapi::Client& client, std::string name_space)
      : m_client(client), m_ns(std::move(name_space)) {}

  [[nodiscard]] Where where() const override { return Where::Cluster; }
  Submitted submit(const RenderObjects& render, const SubmitOptions& options) override;
  std::vector<Json> list() override;
  void wait(const std::string& name, const WaitOptions& options, const Report& report) override;
  /// Deletes the job (Background propagation: its etcd Service and Pod, claims, worker pods, a
  /// TrainJob's JobSet and Jobs follow through owner references) and the objects labelled as
  /// the job's that no reference reaches (PersistentVolumes, objects applied without ejob).
  Removed remove(const std::string& name, const RemoveOptions& options) override;
  void wait_removed(const std::string& name,
                    std::optional<std::chrono::milliseconds> timeout) override;
  /// A PyTorchJob's Worker replicas within its elasticPolicy's min..max (a merge patch, as
  /// `kubectl scale`); ElasticJob's controller scales itself and a TrainJob's size is static:
  /// ejob::Error(Usage) saying so.
  void scale(const std::string& name, int nodes) override { scale_job(name, nodes); }
  /// scale(), returning the engine of the job it scaled (for the command's message).
  const Engine& scale_job(const std::string& name, int nodes);
  /// The Eviction API on the job's worker pod of replica index I (disruption budgets apply;
  /// the grace period is the pod's own).
  std::vector<std::string> evict(const std::string& name, const EvictRequest& request) override;
  /// Cordons `node` and evicts the job's workers on it.
  std::vector<std::string> evict_node(const std::string& name, const std::string& node);
  void logs(const std::string& name, const LogRequest& request, LogSink& out) override;
  Description describe(const std::string& name) override;

 private:
  kubeapi::Client& m_client;
  std::string m_ns;
  std::map<std::string, const Engine*> m_removed;  ///< the engines of the jobs remove() took
};

}  // namespace ejob::job
