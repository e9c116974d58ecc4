/// `ejob submit [JOBFILE] [flags] [-- SCRIPT ARGS]`: resolve the job as `ejob template` does,
/// render it, and send it with kubeapi::submit_job (CRD check, create-without-overwrite, owner
/// references, rollback on failure, concurrent sends). `--dry-run=client` prints the rendered
/// manifests and talks to no server; `--dry-run=server` sends everything with dryRun=All.
/// `--wait` then waits for the job to end (cli/job_wait.hpp). Exit statuses: docs/exit-codes.md.

#include <future>
#include <iostream>
#include <optional>
#include <utility>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/local_job.hpp"
#include "ejob/cli/manifest_objects.hpp"
#include "ejob/cli/run.hpp"
#include "ejob/job/job_wait.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

enum class DryRunMode { None, Client, Server };

struct SubmitFlags {
  JobRequest request;
  KubeFlags kube;
  std::string dry_run;                          ///< "", client, server ("none" too)
  const CLI::Option* dry_run_option = nullptr;  ///< to tell a bare --dry-run from none
  std::string output;
  bool wait = false;
  std::string timeout = "0";
  bool create_namespace = false;
  bool managed_fields = false;
  bool local = false;   ///< --local (also --context local)
  bool follow = false;  ///< --follow: --wait, printing the workers' logs
};

/// The checked options (no I/O).
struct SubmitPlan {
  DryRunMode dry_run = DryRunMode::None;
  Output output = Output::Text;
  bool managed_fields = false;
  bool wait = false;
  std::optional<std::chrono::milliseconds> timeout;  ///< of --wait; nullopt: no limit
};

SubmitPlan validate(const SubmitFlags& f) {
  SubmitPlan plan;
  if (f.dry_run == "client" ||
      (f.dry_run.empty() && f.dry_run_option && f.dry_run_option->count() > 0))
    plan.dry_run = DryRunMode::Client;
  else if (f.dry_run == "server")
    plan.dry_run = DryRunMode::Server;
  else if (!f.dry_run.empty() && f.dry_run != "none")
    throw Error(ErrorCode::Usage,
                "--dry-run: \"" + f.dry_run + "\" is not one of client, server, none");
  plan.output = parse_output(f.output, {"name", "json", "yaml"});
  plan.managed_fields = f.managed_fields;
  plan.wait = f.wait;
  plan.timeout = parse_wait_timeout(f.timeout, "--timeout");
  if (plan.wait && plan.dry_run != DryRunMode::None)
    throw Error(ErrorCode::Usage, "--wait cannot wait for a --dry-run");
  return plan;
}

render::RenderIo render_io() {
  render::RenderIo io;
  io.read = read_input_file;
  io.warn = [](const std::string& line) { std::cerr << line << '\n'; };
  return io;
}

void print_client_dry_run(const std::vector<kubeapi::Json>& objects, const std::string& text,
                          Output out) {
  if (out == Output::Text) {
    std::cout << text;
  } else if (out == Output::Name) {
    for (const auto& o : objects) std::cout << kubeapi::qualified_name(o) << '\n';
  } else {
    std::cout << format_objects(objects, out);
  }
}

void print_result(const kubeapi::SubmitResult& r, const SubmitPlan& plan) {
  if (plan.output == Output::Name) {
    for (const auto& o : r.objects) std::cout << kubeapi::qualified_name(o) << '\n';
    return;
  }
  if (plan.output != Output::Text) {
    std::cout << format_objects(r.objects, plan.output, plan.managed_fields);
    return;
  }
  const std::string name = r.job["metadata"].value("name", "");
  const std::string ns = r.job["metadata"].value("namespace", "");
  std::cout << "elasticjob \"" << name << "\" submitted to namespace " << ns << " ("
            << r.objects.size() << " objects"
            << (plan.dry_run == DryRunMode::Server ? ", server dry run" : "") << ")\n";
  if (plan.dry_run == DryRunMode::Server) return;
  std::cout << "  follow:  ejob logs " << name << " -n " << ns << " -f\n"
            << "  inspect: ejob describe " << name << " -n " << ns << "\n"
            << "  remove:  ejob delete " << name << " -n " << ns << "\n";
}

/// Without any cluster configuration, a submit says so and shows the local form.
void require_cluster(const KubeFlags& kube) {
  if (has_cluster(kube)) return;
  throw Error(ErrorCode::Input,
              "no cluster to submit to (no kubeconfig: set KUBECONFIG, pass --kubeconfig, or "
              "create ~/.kube/config); to run the job on this machine add --local: ejob submit "
              "JOBFILE --local");
}

/// True when the job's values say `backend: local` (job file, -f or --set).
bool says_local(const JobRequest& request, const render::RenderIo& io) {
  const Job job = resolve_job(request, io.read);
  const auto it = job.values.find("backend");
  return it != job.values.end() && it->second.is_string() && it->second.as_string() == "local";
}

void run_local(const SubmitFlags& f, const JobRequest& request, const SubmitPlan& plan) {
  if (plan.dry_run == DryRunMode::Server)
    throw Error(ErrorCode::Usage, "--dry-run=server needs a cluster; a local job has no server");
  if (f.create_namespace || !f.request.name_space.empty())
    std::cerr
        << "ejob: note: a local job has no namespace; -n and --create-namespace are left out\n";
  submit_local(request, {plan.output, plan.wait, f.follow, plan.timeout});
}

void run_submit(SubmitFlags& f) {
  JobRequest request = f.request;
  request.flags.command = take_trailing_args();
  SubmitPlan plan = validate(f);
  if (f.follow && plan.dry_run != DryRunMode::None)
    throw Error(ErrorCode::Usage, "--follow cannot follow a --dry-run");
  const render::RenderIo io = render_io();
  if (plan.dry_run == DryRunMode::Client) {
    const std::string text = render_job(resolve_job(request, io.read), io);
    print_client_dry_run(parse_manifests(text), text, plan.output);
    return;
  }
  if (f.local || is_local_context(f.kube) || says_local(request, io))
    return run_local(f, request, plan);
  if (f.follow)
    throw Error(ErrorCode::Usage,
                "--follow is for --local jobs; on a cluster use --wait and ejob logs -f");
  require_cluster(f.kube);
  KubeSession session = open_session(f.kube);
  // Discovery (loading libcurl, the first TLS handshake) starts while the chart renders;
  // submit_job's CRD check joins the request in flight (the client shares it) and runs
  // alongside the ElasticJob's create. Its own errors are submit_job's to report.
  auto discovery = std::async(std::launch::async, [&] {
    try {
      session.client->find_resource(kubeapi::k_job_api_version, "ElasticJob");
    } catch (const std::exception&) {
    }
  });
  std::optional<Job> first;
  std::vector<kubeapi::Json> first_objects;
  try {
    first = resolve_job(request, io.read);
    first_objects = parse_manifests(render_job(*first, io));
  } catch (...) {
    discovery.wait();
    throw;
  }
  kubeapi::RenderObjects render = [&] {
    // The first rendering is reused; a taken name makes resolve_job draw a new suffix.
    if (!first_objects.empty()) return std::exchange(first_objects, {});
    return parse_manifests(render_job(resolve_job(request, io.read), io));
  };
  kubeapi::SubmitOptions options;
  options.naming = request.exact_name ? kubeapi::NameChoice::Exact : kubeapi::NameChoice::Drawn;
  options.dry_run =
      plan.dry_run == DryRunMode::Server ? kubeapi::DryRun::All : kubeapi::DryRun::None;
  options.name_space = first->name_space;
  options.create_namespace = f.create_namespace;
  const kubeapi::SubmitResult result = kubeapi::submit_job(*session.client, render, options);
  print_result(result, plan);
  if (!plan.wait) return;
  std::cout.flush();
  wait_for_job(*session.client, result.job, plan.timeout,
               [](const std::string& line) { std::cerr << "ejob: " << line << std::endl; });
  std::cerr << "ejob: elasticjob \"" << result.job["metadata"].value("name", "")
            << "\" succeeded\n";
}

}  // namespace

void register_submit(CLI::App& app) {
  auto flags = std::make_shared<SubmitFlags>();
  CLI::App* cmd = app.add_subcommand(
      "submit", "Submit a job to the cluster (no kubectl needed), or run it here with --local");
  add_job_arguments(*cmd, flags->request);
  add_value_flags(*cmd, flags->request);
  add_kube_flags(*cmd, flags->kube, NamespaceFlag::Skip);
  flags->dry_run_option =
      cmd->add_option(
             "--dry-run", flags->dry_run,
             "client (also bare --dry-run): print the manifests; server: let the server check them")
          ->expected(0, 1);
  cmd->add_option("-o,--output", flags->output, "Print the created objects: name, json or yaml");
  add_managed_fields_flag(*cmd, flags->managed_fields);
  cmd->add_flag("--create-namespace", flags->create_namespace,
                "Create the job's namespace if it does not exist (as Helm's flag)");
  cmd->add_flag("--wait", flags->wait,
                "Wait for the job to end: exit 0 succeeded, 1 failed, 10 preempted, 9 timed out");
  cmd->add_flag("--local", flags->local,
                "Run the job on this machine: a private etcd and one ejob-agent per node "
                "(also --context local)");
  cmd->add_flag("--follow", flags->follow,
                "With --local: wait for the job's end, printing the workers' logs as they come");
  cmd->add_option("--timeout", flags->timeout,
                  "How long --wait waits: seconds or a duration such as 2h (0: no limit)");
  cmd->callback([flags] { run_submit(*flags); });
}

}  // namespace ejob::cli
