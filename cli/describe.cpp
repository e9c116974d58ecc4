/// `ejob describe NAME`: the job, its conditions, its worker pods with their restarts, the
/// evictions and preemptions its workers went through, and the events of the job and its pods
/// (cli/job_describe.hpp lays them out). Four requests side by side: the job, its worker pods,
/// its etcd pod and the namespace's events.

#include <future>
#include <iostream>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/job_describe.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/local_job.hpp"
#include "ejob/cli/manifest_objects.hpp"
#include "ejob/job/job_pods.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

using kubeapi::Json;

struct DescribeFlags {
  KubeFlags kube;
  std::string name;
  std::string output;
  bool managed_fields = false;
};

void run_describe(const DescribeFlags& f) {
  const Output out = f.output.empty() ? Output::Text : parse_output(f.output, {"json", "yaml"});
  if (targets_local_job(f.kube, f.name)) return describe_local(f.name, out);
  KubeSession session = open_session(f.kube);
  kubeapi::Client& c = *session.client;
  const std::string ns =
      f.kube.name_space.empty() ? std::string(k_job_namespace) : f.kube.name_space;
  const JobView view = fetch_view(c, ns, f.name);
  if (out == Output::Text) {
    std::cout << describe_job(view, std::chrono::system_clock::now());
    return;
  }
  std::vector<Json> objects = {view.job};
  for (const auto* list : {&view.own_pods, &view.workers})
    objects.insert(objects.end(), list->begin(), list->end());
  for (Json& ev : job_events(view.job, view.events)) objects.push_back(std::move(ev));
  std::cout << format_objects(std::move(objects), out, f.managed_fields);
}

}  // namespace

void register_describe(CLI::App& app) {
  auto flags = std::make_shared<DescribeFlags>();
  CLI::App* cmd =
      app.add_subcommand("describe", "Show a job: status, workers, restarts, evictions and events");
  cmd->add_option("name", flags->name, "Job name")->required();
  add_kube_flags(*cmd, flags->kube);
  cmd->add_option("-o,--output", flags->output,
                  "json or yaml: the job, its pods and events as a v1 List");
  add_managed_fields_flag(*cmd, flags->managed_fields);
  cmd->callback([flags] { run_describe(*flags); });
}

}  // namespace ejob::cli
