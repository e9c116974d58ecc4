/// `ejob evict NAME --worker I [--grace S]`: the spot drill. A local job's node gets SIGTERM,
/// then SIGKILL after the grace period, as a reclaimed spot VM's pod does, and is started again
/// as the ElasticJob controller recreates a preempted pod; a cluster job's worker pod is
/// evicted through the Eviction API (disruption budgets apply).

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
  int worker = 0;
  int grace = 30;
};

void run_evict(const EvictFlags& f) {
  if (targets_local_job(f.kube, f.name)) {
    local_backend().evict(f.name, f.worker, f.grace);
    std::cout << "worker-" << f.worker << " of elasticjob \"" << f.name
              << "\" evicted (SIGTERM; SIGKILL after " << f.grace << " s)\n";
    return;
  }
  KubeSession session = open_session(f.kube);
  const std::string ns = job_namespace(f.kube);
  job::ClusterBackend(*session.client, ns).evict(f.name, f.worker, f.grace);
  std::cout << "pod \"" << f.name << "-worker-" << f.worker << "\" evicted\n";
}

}  // namespace

void register_evict(CLI::App& app) {
  auto flags = std::make_shared<EvictFlags>();
  CLI::App* cmd = app.add_subcommand("evict", "Evict one worker of a job (a spot reclaim drill)");
  cmd->add_option("name", flags->name, "Job name")->required();
  cmd->add_option("--worker", flags->worker, "The worker's index")->required();
  cmd->add_option("--grace", flags->grace,
                  "Local jobs: seconds between SIGTERM and SIGKILL (default 30)");
  add_kube_flags(*cmd, flags->kube);
  cmd->callback([flags] { run_evict(*flags); });
}

}  // namespace ejob::cli
