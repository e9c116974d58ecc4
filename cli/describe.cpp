/// `ejob describe NAME`: the job, its conditions, its worker pods with their restarts, the
/// evictions and preemptions its workers went through, and the events of the job and its pods
/// (src/job/job_describe.hpp lays them out). Four requests side by side: the job, its worker pods,
/// its etcd pod and the namespace's events.

#include <future>
#include <iostream>
#include <type_traits>
#include <variant>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/cluster_submit.hpp"
#include "src/job/job_describe.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_table.hpp"
#include "src/job/jobs.hpp"
#include "src/job/manifest_objects.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

struct DescribeFlags {
  KubeFlags kube;
  std::string name;
  std::string output;
  bool managed_fields = false;
};

void print_description(const job::Description& d, Output out, bool managed_fields) {
  if (out == Output::Text) {
    std::cout << describe_text(d, std::chrono::system_clock::now());
    return;
  }
  std::cout << format_objects(described_objects(d), out, managed_fields);
}

void run_describe(const DescribeFlags& f) {
  const Output out = f.output.empty() ? Output::Text : parse_output(f.output, {"json", "yaml"});
  if (targets_local_job(f.kube, f.name))
    return print_description(local_backend().describe(f.name), out, f.managed_fields);
  KubeSession session = open_session(f.kube);
  const std::string ns = job_namespace(f.kube);
  print_description(job::ClusterBackend(*session.client, ns).describe(f.name), out,
                    f.managed_fields);
}

}  // namespace

void register_describe(CLI::App& app) {
  auto flags = std::make_shared<DescribeFlags>();
  CLI::App* cmd =
      app.add_subcommand("describe", "Show a job: status, workers, restarts, evictions and events");
  cmd->add_option("name", flags->name, "Job name")->required();
  add_kube_flags(*cmd, flags->kube);
  cmd->add_option("-o,--output", flags->output,
                  "json or yaml: the job, its pods and events as a v1 List")
      ->type_name("json|yaml");
  add_managed_fields_flag(*cmd, flags->managed_fields);
  cmd->callback([flags] { run_describe(*flags); });
}

}  // namespace ejob::cli
