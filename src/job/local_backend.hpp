#pragma once
/// The jobs of this machine (src/local): a private etcd and one ejob-agent per simulated node,
/// run by a detached supervisor (docs/local.md).

#include "src/job/backend.hpp"

namespace ejob::job {

class LocalBackend : public Backend {
 public:
  /// `self`: the ejob executable, which runs each job's supervisor.
  explicit LocalBackend(std::string self) : m_self(std::move(self)) {}
  /// The backend whose supervisors this very executable runs (`ejob local-supervisor`),
  /// reporting at job_wait's report_interval().
  static LocalBackend of_this_executable();

  [[nodiscard]] Where where() const override { return Where::Local; }
  Submitted submit(const RenderObjects& render, const SubmitOptions& options) override;
  /// Each job as its rendered ElasticJob with a status written from the local state and the
  /// annotation `ejob.io/where: local`; a damaged job is reported through `warn` and skipped.
  std::vector<Json> list() override;
  void wait(const std::string& name, const WaitOptions& options, const Report& report) override;
  /// Stops every process of the job and checks it is gone: over when it returns.
  Removed remove(const std::string& name, const RemoveOptions& options) override;
  void wait_removed(const std::string&, std::optional<std::chrono::milliseconds>) override {}
  void scale(const std::string& name, int nodes) override;
  std::vector<std::string> evict(const std::string& name, const EvictRequest& request) override;
  void logs(const std::string& name, const LogRequest& request, LogSink& out) override;
  Description describe(const std::string& name) override;

  /// Where list() reports a job it skips.
  std::function<void(const std::string&)> warn = [](const std::string&) {};
  /// How often wait() reports progress.
  std::chrono::milliseconds report_every{30000};

 private:
  std::string m_self;
};

/// A local job as the ElasticJob object a cluster would show: its rendered ElasticJob with the
/// creation time, a status written from `state` and the annotation `ejob.io/where: local`.
Json local_job_object(const local::JobState& state);

/// The detached process that runs one local job from its state folder `dir` (src/local's
/// supervisor), which `ejob local-supervisor DIR` is; returns its exit status.
int run_local_supervisor(const std::string& dir);

/// True when a local job named `name` exists.
bool local_job_exists(const std::string& name);

}  // namespace ejob::job
