/// `ejob list [-n NS | -A] [-o wide|json]`: ejob's jobs (ElasticJobs labelled
/// app.kubernetes.io/managed-by=ejob) with status, min/max/desired, active workers and age.

#include <iostream>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/cluster_submit.hpp"
#include "src/job/job_table.hpp"
#include "src/job/jobs.hpp"
#include "src/job/manifest_objects.hpp"
#include "src/job/sweep.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

using job::Json;

struct ListFlags {
  KubeFlags kube;
  bool all_namespaces = false;
  std::string output;
  bool managed_fields = false;
  std::string sweep;  ///< --sweep ID: only that sweep's jobs
};

/// The cluster's jobs, unless the flags say `--context local` or no cluster is configured;
/// then this machine's.
std::vector<Json> jobs_of(const ListFlags& f, const std::string& ns) {
  job::LocalBackend local = local_backend();
  if (is_local_context(f.kube) || !has_cluster(f.kube)) return job::list_jobs({&local});
  KubeSession session = open_session(f.kube);
  job::ClusterBackend cluster(*session.client, ns);
  return job::list_jobs({&cluster, &local});
}

void run_list(const ListFlags& f) {
  if (f.all_namespaces && !f.kube.name_space.empty())
    throw Error(ErrorCode::Usage, "-A/--all-namespaces and -n/--namespace exclude each other");
  const Output out = parse_output(f.output, {"wide", "name", "json", "yaml"});
  const std::string ns = f.all_namespaces ? "" : job_namespace(f.kube);
  std::vector<Json> jobs =
      f.sweep.empty() ? jobs_of(f, ns) : job::sweep_jobs(jobs_of(f, ns), f.sweep);
  if (out == Output::Json || out == Output::Yaml) {
    std::cout << format_objects(std::move(jobs), out, f.managed_fields, Grouping::AlwaysList);
    return;
  }
  if (out == Output::Name) {
    for (const auto& job : jobs) std::cout << job::cluster::qualified_name(job) << '\n';
    return;
  }
  if (jobs.empty()) {
    if (is_local_context(f.kube) || !has_cluster(f.kube))
      std::cerr << "No jobs found on this machine (and no cluster configured).\n";
    else
      std::cerr << (ns.empty() ? "No jobs found.\n" : "No jobs found in namespace " + ns + ".\n");
    return;
  }
  const TableColumns columns{f.all_namespaces, out == Output::Wide};
  std::vector<Row> rows = {job_header(columns)};
  const auto now = std::chrono::system_clock::now();
  for (const auto& job : jobs) rows.push_back(job_row(job, columns, now));
  std::cout << format_table(rows);
}

}  // namespace

void register_list(CLI::App& app) {
  auto flags = std::make_shared<ListFlags>();
  CLI::App* cmd = app.add_subcommand("list", "List ejob's jobs: the cluster's and this machine's");
  add_kube_flags(*cmd, flags->kube);
  cmd->add_flag("-A,--all-namespaces", flags->all_namespaces, "Jobs of every namespace");
  cmd->add_option("--sweep", flags->sweep, "Only the jobs of sweep ID (submit --sweep prints it)");
  cmd->add_option("-o,--output", flags->output, "wide, name, json or yaml")
      ->type_name("wide|name|json|yaml");
  add_managed_fields_flag(*cmd, flags->managed_fields);
  cmd->callback([flags] { run_list(*flags); });
}

}  // namespace ejob::cli
