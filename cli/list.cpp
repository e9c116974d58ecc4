/// `ejob list [-n NS | -A] [-o wide|json]`: ejob's jobs (ElasticJobs labelled
/// app.kubernetes.io/managed-by=ejob) with status, min/max/desired, active workers and age.

#include <iostream>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/job_table.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/manifest_objects.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {
namespace {

struct ListFlags {
  KubeFlags kube;
  bool all_namespaces = false;
  std::string output;
};

using Row = std::vector<std::string>;

std::string number(const kubeapi::Json& j) {
  if (j.is_number_integer()) return std::to_string(j.get<long>());
  if (j.is_number()) return std::to_string(static_cast<long>(j.get<double>()));
  return "-";
}

Row job_row(const kubeapi::Json& job, bool all, bool wide,
            std::chrono::system_clock::time_point now) {
  const auto spec = job.value("spec", kubeapi::Json::object());
  const auto worker =
      spec.value("replicaSpecs", kubeapi::Json::object()).value("Worker", kubeapi::Json::object());
  const auto active = job.value("status", kubeapi::Json::object())
                          .value("replicaStatuses", kubeapi::Json::object())
                          .value("Worker", kubeapi::Json::object())
                          .value("active", kubeapi::Json(0));
  Row row;
  if (all) row.push_back(job["metadata"].value("namespace", ""));
  row.insert(row.end(), {job["metadata"].value("name", ""), job_status(job),
                         number(spec.value("minReplicas", kubeapi::Json())),
                         number(spec.value("maxReplicas", kubeapi::Json())),
                         number(worker.value("replicas", kubeapi::Json())), number(active),
                         object_age(job, now)});
  if (wide) {
    const auto containers = worker.value("template", kubeapi::Json::object())
                                .value("spec", kubeapi::Json::object())
                                .value("containers", kubeapi::Json::array());
    row.push_back(spec.value("rdzvEndpoint", ""));
    row.push_back(containers.empty() ? "" : containers[0].value("image", ""));
  }
  return row;
}

void print_table(const std::vector<Row>& rows) {
  std::vector<size_t> width;
  for (const Row& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  for (const Row& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i)
      line += i + 1 < r.size() ? r[i] + std::string(width[i] - r[i].size() + 3, ' ') : r[i];
    std::cout << line << '\n';
  }
}

void run_list(const ListFlags& f) {
  if (f.all_namespaces && !f.kube.name_space.empty())
    throw Error(ErrorCode::Usage, "-A/--all-namespaces and -n/--namespace exclude each other");
  const Output out = parse_output(f.output, {"wide", "json"});
  KubeSession session = open_session(f.kube);
  const std::string ns = f.all_namespaces            ? ""
                         : f.kube.name_space.empty() ? std::string(k_job_namespace)
                                                     : f.kube.name_space;
  const kubeapi::ResourceInfo res = kubeapi::job_resource(*session.client);
  kubeapi::ListResult jobs = session.client->list(res, ns, {k_managed_by_ejob});
  if (out == Output::Json) {
    std::cout << kubeapi::Json{{"apiVersion", "v1"},
                               {"kind", "List"},
                               {"items", jobs.items},
                               {"metadata", {{"resourceVersion", ""}}}}
                     .dump(4)
              << '\n';
    return;
  }
  if (jobs.items.empty()) {
    std::cerr << (ns.empty() ? "No jobs found.\n" : "No jobs found in namespace " + ns + ".\n");
    return;
  }
  std::vector<Row> rows;
  Row head = {"NAME", "STATUS", "MIN", "MAX", "DESIRED", "ACTIVE", "AGE"};
  if (f.all_namespaces) head.insert(head.begin(), "NAMESPACE");
  if (out == Output::Wide) head.insert(head.end(), {"RDZV-ENDPOINT", "IMAGE"});
  rows.push_back(head);
  const auto now = std::chrono::system_clock::now();
  for (const auto& job : jobs.items)
    rows.push_back(job_row(job, f.all_namespaces, out == Output::Wide, now));
  print_table(rows);
}

}  // namespace

void register_list(CLI::App& app) {
  auto flags = std::make_shared<ListFlags>();
  CLI::App* cmd = app.add_subcommand("list", "List ejob's jobs in the cluster");
  add_kube_flags(*cmd, flags->kube);
  cmd->add_flag("-A,--all-namespaces", flags->all_namespaces, "Jobs of every namespace");
  cmd->add_option("-o,--output", flags->output, "wide or json");
  cmd->callback([flags] { run_list(*flags); });
}

}  // namespace ejob::cli
