#pragma once
/// The jobs of one namespace of a Kubernetes cluster (all namespaces: ""), through the API
/// server: ElasticJobs and what they own, created without overwriting anything.

#include "src/job/backend.hpp"

namespace ejob::job {

class ClusterBackend : public Backend {
 public:
  ClusterBackend(kubeapi::Client& client, std::string name_space)
      : m_client(client), m_ns(std::move(name_space)) {}

  [[nodiscard]] Where where() const override { return Where::Cluster; }
  Submitted submit(const RenderObjects& render, const SubmitOptions& options) override;
  std::vector<Json> list() override;
  void wait(const std::string& name, std::optional<std::chrono::milliseconds> timeout,
            const Report& report) override;
  /// Deletes the ElasticJob (Background propagation: its etcd Service and Pod, claims and
  /// worker pods follow through owner references) and the objects labelled as the job's that
  /// no reference reaches (PersistentVolumes, objects applied without ejob).
  Removed remove(const std::string& name, const RemoveOptions& options) override;
  void wait_removed(const std::string& name,
                    std::optional<std::chrono::milliseconds> timeout) override;
  /// The ElasticJob controller scales a cluster job itself: ejob::Error(Usage) saying so.
  void scale(const std::string& name, int nodes) override;
  /// The Eviction API on pod NAME-worker-I (disruption budgets apply; the grace period is the
  /// pod's own).
  void evict(const std::string& name, int index, int grace_s) override;
  void logs(const std::string& name, const LogRequest& request, LogSink& out) override;
  Description describe(const std::string& name) override;

 private:
  kubeapi::Client& m_client;
  std::string m_ns;
};

}  // namespace ejob::job
