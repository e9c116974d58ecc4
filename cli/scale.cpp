/// `ejob scale NAME --workers N`: adds or removes nodes of a running job, within its min..max
/// (the survivors and newcomers form a new rendezvous round): a local job, or a cluster
/// PyTorchJob (its Worker replicas, which training-operator then makes or removes). An
/// ElasticJob's controller scales itself, and a TrainJob's size is static: the cluster
/// backend says so.

#include <iostream>

#include "cli/commands.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/jobs.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

struct ScaleFlags {
  KubeFlags kube;
  std::string name;
  int workers = 0;
};

void run_scale(const ScaleFlags& f) {
  if (!targets_local_job(f.kube, f.name)) {
    KubeSession session = open_session(f.kube);
    const Engine& engine =
        job::ClusterBackend(*session.client, job_namespace(f.kube)).scale_job(f.name, f.workers);
    std::cout << job_noun(engine, f.name) << " scaled to " << f.workers << " workers\n";
    return;
  }
  local_backend().scale(f.name, f.workers);
  std::cout << "elasticjob \"" << f.name << "\" scaled to " << f.workers << " nodes\n";
}

}  // namespace

void register_scale(CLI::App& app) {
  auto flags = std::make_shared<ScaleFlags>();
  CLI::App* cmd = app.add_subcommand(
      "scale", "Add or remove nodes of a running job (local, or a cluster PyTorchJob)");
  cmd->add_option("name", flags->name, "Job name")->required();
  cmd->add_option("--workers", flags->workers, "The number of nodes, within the job's min..max")
      ->required();
  add_kube_flags(*cmd, flags->kube);
  cmd->callback([flags] { run_scale(*flags); });
}

}  // namespace ejob::cli
