/// `ejob evict NAME --worker I [--grace S] [--notice [--provider P]]` and
/// `ejob evict NAME --node N`: the spot drill. A local job's node gets SIGTERM, then SIGKILL
/// after the grace period, as a reclaimed spot VM's pod does, and is started again as the
/// job's controller recreates a preempted pod; with --notice, the cloud's preemption notice
/// comes first, through the metadata service the node's VM has (docs/spot.md). A cluster
/// job's worker pod is evicted through the Eviction API (disruption budgets apply); --node
/// cordons a node and evicts the job's workers on it.

#include <iostream>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/jobs.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

struct EvictFlags {
  KubeFlags kube;
  std::string name;
  EvictRequest request;
};

void run_evict(const EvictFlags& f) {
  std::vector<std::string> done;
  if (targets_local_job(f.kube, f.name)) {
    done = local_backend().evict(f.name, f.request);
  } else {
    KubeSession session = open_session(f.kube);
    done = job::ClusterBackend(*session.client, job_namespace(f.kube)).evict(f.name, f.request);
  }
  for (const std::string& line : done) std::cout << line << "\n";
}

}  // namespace

void register_evict(CLI::App& app) {
  auto flags = std::make_shared<EvictFlags>();
  CLI::App* cmd = app.add_subcommand("evict", "Evict one worker of a job (a spot reclaim drill)");
  cmd->add_option("name", flags->name, "Job name")->required();
  cmd->add_option("--worker", flags->request.worker, "The worker's index");
  cmd->add_option("--node", flags->request.node,
                  "Cluster jobs: cordon this node and evict the job's workers on it");
  cmd->add_option("--grace", flags->request.grace_s,
                  "Local jobs: seconds between SIGTERM and SIGKILL (default 30); with --notice, "
                  "between the notice and the reclaim (default: the cloud's notice period)");
  cmd->add_flag("--notice", flags->request.notice,
                "Local jobs: the cloud's preemption notice first, on the node's metadata service");
  cmd->add_option("--provider", flags->request.provider,
                  "With --notice: the notice's cloud, azure, aws or gce (default: the cloud of "
                  "the spot nodes the job selects; azure when none)")
      ->check(CLI::IsMember({"azure", "aws", "gce"}));
  add_kube_flags(*cmd, flags->kube);
  cmd->callback([flags] { run_evict(*flags); });
}

}  // namespace ejob::cli
