/// `ejob describe NAME`: the job, its conditions, its worker pods with their restarts, the
/// evictions and preemptions its workers went through, and the events of the job and its pods
/// (cli/job_describe.hpp lays them out). Four requests side by side: the job, its worker pods,
/// its etcd pod and the namespace's events.

#include <future>
#include <iostream>
#include <type_traits>
#include <variant>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/job_describe.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/local_job.hpp"
#include "ejob/cli/manifest_objects.hpp"
#include "ejob/job/cluster_backend.hpp"
#include "ejob/job/cluster_submit.hpp"
#include "ejob/job/job_pods.hpp"
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

/// The objects -o json/yaml prints of a cluster job: the job, its own pods, its workers and
/// the events about them.
std::vector<Json> described_objects(const JobView& view) {
  std::vector<Json> objects = {view.job};
  for (const auto* list : {&view.own_pods, &view.workers})
    objects.insert(objects.end(), list->begin(), list->end());
  for (Json& ev : job_events(view.job, view.events)) objects.push_back(std::move(ev));
  return objects;
}

/// A local job's -o json/yaml: the ElasticJob object `ejob list` shows for it.
std::vector<Json> described_objects(const local::JobView& view) {
  return {job::local_job_object(view.state)};
}

void print_description(const job::Description& d, Output out, bool managed_fields) {
  const auto now = std::chrono::system_clock::now();
  if (out == Output::Text) {
    std::cout << std::visit(
        [&](const auto& view) {
          if constexpr (std::is_same_v<std::decay_t<decltype(view)>, JobView>)
            return describe_job(view, now);
          else
            return describe_local_job(view, now);
        },
        d);
    return;
  }
  std::vector<Json> objects = std::visit([](const auto& v) { return described_objects(v); }, d);
  std::cout << format_objects(std::move(objects), out, managed_fields);
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
                  "json or yaml: the job, its pods and events as a v1 List");
  add_managed_fields_flag(*cmd, flags->managed_fields);
  cmd->callback([flags] { run_describe(*flags); });
}

}  // namespace ejob::cli
