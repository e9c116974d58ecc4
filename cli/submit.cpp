/// `ejob submit [JOBFILE] [flags] [-- SCRIPT ARGS]`: resolve the job as `ejob template` does,
/// render it, and send it with job::cluster::submit_job (CRD check, create-without-overwrite, owner
/// references, rollback on failure, concurrent sends). `--dry-run=client` prints the rendered
/// manifests and talks to no server; `--dry-run=server` sends everything with dryRun=All.
/// `--wait` then waits for the job to end (cli/job_wait.hpp). Exit statuses: docs/exit-codes.md.

#include <unistd.h>

#include <cstdlib>
#include <future>
#include <iostream>
#include <optional>
#include <utility>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "cli/log_printer.hpp"
#include "cli/run.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/cluster_submit.hpp"
#include "src/job/engine_choice.hpp"
#include "src/job/job_table.hpp"
#include "src/job/job_wait.hpp"
#include "src/job/jobs.hpp"
#include "src/job/manifest_objects.hpp"
#include "src/job/render_io.hpp"
#include "src/job/sweep.hpp"
#include "src/util/error.hpp"

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
  std::optional<int> max_preemptions;  ///< --max-preemptions N
  bool create_namespace = false;
  bool managed_fields = false;
  bool local = false;               ///< --local (also --context local)
  bool follow = false;              ///< --follow: --wait, printing the workers' logs
  std::vector<std::string> sweeps;  ///< --sweep KEY=V1,V2 (repeatable)
};

/// The checked options (no I/O).
struct SubmitPlan {
  DryRunMode dry_run = DryRunMode::None;
  Output output = Output::Text;
  bool managed_fields = false;
  bool wait = false;
  job::WaitOptions wait_options;           ///< --timeout, --max-preemptions
  std::vector<job::SweepAxis> sweep_axes;  ///< --sweep, checked before anything is asked
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
  plan.wait_options.timeout = parse_wait_timeout(f.timeout, "--timeout");
  if (f.max_preemptions && *f.max_preemptions < 0)
    throw Error(ErrorCode::Usage, "--max-preemptions: a number of preemptions, 0 or more");
  plan.wait_options.max_preemptions = f.max_preemptions;
  if (plan.wait && plan.dry_run != DryRunMode::None)
    throw Error(ErrorCode::Usage, "--wait cannot wait for a --dry-run");
  for (const std::string& sweep : f.sweeps) plan.sweep_axes.push_back(parse_sweep(sweep));
  if (!plan.sweep_axes.empty()) sweep_points(plan.sweep_axes);  // twice the same key, too many
  return plan;
}

render::helm::RenderIo render_io() {
  return command_render_io([](const std::string& line) { std::cerr << line << '\n'; });
}

/// --dry-run=client: the manifests as `ejob template` prints them, or with -o the objects.
void print_client_dry_run(const Job& job, const render::helm::RenderIo& io, Output out) {
  if (out == Output::Text) {
    std::cout << render_job(job, io);
    return;
  }
  const std::vector<job::Json> objects = render_job_objects(job, io);
  if (out == Output::Name)
    for (const auto& o : objects) std::cout << job::cluster::qualified_name(o) << '\n';
  else
    std::cout << format_objects(objects, out);
}

/// What a submit prints: -o name/json/yaml the objects; else one line naming the job, where it
/// runs, and the commands to follow it.
void print_result(const job::Submitted& r, const SubmitPlan& plan, const std::string& ns,
                  const Engine& engine) {
  if (plan.output == Output::Name) {
    for (const auto& o : r.objects) std::cout << job::cluster::qualified_name(o) << '\n';
    return;
  }
  if (plan.output != Output::Text) {
    std::cout << format_objects(r.objects, plan.output, plan.managed_fields);
    return;
  }
  const bool local = !r.summary.empty();
  const std::string in_ns = local ? "" : " -n " + ns;
  if (local)
    std::cout << job_noun(engine, r.name) << " runs locally (" << r.summary << ")\n";
  else
    std::cout << job_noun(engine, r.name) << " submitted to namespace " << ns << " ("
              << r.objects.size() << " objects"
              << (plan.dry_run == DryRunMode::Server ? ", server dry run" : "") << ")\n";
  if (plan.dry_run == DryRunMode::Server) return;
  std::cout << "  follow:  ejob logs " << r.name << in_ns << " -f\n"
            << "  inspect: ejob describe " << r.name << in_ns << "\n"
            << "  remove:  ejob delete " << r.name << in_ns << "\n";
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
bool says_local(const JobRequest& request, const render::helm::RenderIo& io) {
  const Job job = resolve_job(request, io.read);
  const auto it = job.values.find("backend");
  return it != job.values.end() && it->second.is_string() && it->second.as_string() == "local";
}

job::SubmitOptions submit_options(const SubmitFlags& f, const SubmitPlan& plan) {
  return {f.request.exact_name, plan.dry_run == DryRunMode::Server, f.create_namespace};
}

/// Submits through `backend`, prints, and with --wait/--follow waits for the job's end.
void submit_with(job::Backend& backend, const job::RenderObjects& render, const SubmitFlags& f,
                 const SubmitPlan& plan, const std::string& ns,
                 std::reference_wrapper<const Engine> engine) {
  const job::Submitted r = backend.submit(render, submit_options(f, plan));
  for (const job::Json& o : r.objects)  // a local job's engine is the one it rendered
    if (const Engine* e = engine_of(o); e && backend.where() == job::Where::Local) engine = *e;
  for (const std::string& note : r.notes) std::cerr << "ejob: note: " << note << '\n';
  print_result(r, plan, ns, engine.get());
  if (!plan.wait && !f.follow) return;
  std::cout.flush();
  if (f.follow) {
    // The logs until the job ends; then its result, as --wait gives it.
    Printer out(isatty(1) && !std::getenv("NO_COLOR"), true);
    job::LogRequest request;
    request.options.follow = true;
    backend.logs(r.name, request, out);
  }
  backend.wait(r.name, plan.wait_options,
               [](const std::string& line) { std::cerr << "ejob: " << line << std::endl; });
  std::cerr << "ejob: " << job_noun(engine.get(), r.name) << " succeeded\n";
}

void run_sweep(const SubmitFlags& f, const JobRequest& base, const SubmitPlan& plan,
               const render::helm::RenderIo& io, job::Backend& backend);

void run_local(const SubmitFlags& f, const JobRequest& request, const SubmitPlan& plan,
               const render::helm::RenderIo& io) {
  if (f.create_namespace || !f.request.name_space.empty())
    std::cerr
        << "ejob: note: a local job has no namespace; -n and --create-namespace are left out\n";
  job::LocalBackend backend = local_backend();
  if (!f.sweeps.empty()) return run_sweep(f, request, plan, io, backend);
  submit_with(
      backend, [&] { return render_job_objects(resolve_job(request, io.read), io); }, f, plan, "",
      engine(EngineId::ElasticJob));
}

void run_cluster(const SubmitFlags& f, JobRequest request, const SubmitPlan& plan,
                 const render::helm::RenderIo& io) {
  require_cluster(f.kube);
  KubeSession session = open_session(f.kube);
  // What the cluster serves (cached per context: usually no request) is asked while the
  // values resolve; submit_job's CRD check of the chosen kind runs alongside its create.
  auto served = std::async(std::launch::async, [&] { return served_engines_cached(session); });
  std::optional<Job> first;
  try {
    first = resolve_job(request, io.read);
  } catch (...) {
    served.wait();
    throw;
  }
  const EngineChoice choice = settle_engine(request, *first, served.get());
  if (!choice.note.empty()) std::cerr << "ejob: note: " << choice.note << '\n';
  if (choice.engine && wanted_engine(*first) != choice.engine->name)
    first = resolve_job(request, io.read);  // with the engine chosen for `auto`
  if (!f.sweeps.empty()) {
    job::ClusterBackend backend(*session.client, first->name_space);
    return run_sweep(f, request, plan, io, backend);
  }
  std::vector<job::Json> first_objects = render_job_objects(*first, io);
  job::RenderObjects render = [&] {
    // The first rendering is reused; a taken name makes resolve_job draw a new suffix.
    if (!first_objects.empty()) return std::exchange(first_objects, {});
    return render_job_objects(resolve_job(request, io.read), io);
  };
  job::ClusterBackend backend(*session.client, first->name_space);
  try {
    submit_with(backend, render, f, plan, first->name_space,
                choice.engine ? *choice.engine : engine(EngineId::ElasticJob));
  } catch (const Error& e) {
    if (e.code() == ErrorCode::NotFound) forget_served_engines(session);  // the cache was stale
    throw;
  }
}

/// The sweep's jobs as a table: NAME VALUES STATUS (created, or why not; after --wait, how
/// each ended).
void print_sweep(const std::string& id, const std::vector<SweepJob>& jobs) {
  std::vector<Row> rows = {{"NAME", "VALUES", "STATUS"}};
  for (const SweepJob& j : jobs)
    rows.push_back({j.name.empty() ? "-" : j.name, point_text(j.point),
                    j.name.empty()     ? "not created"
                    : j.result.empty() ? "submitted"
                                       : j.result});
  std::cout << "sweep " << id << " (" << jobs.size() << " jobs; ejob list --sweep " << id << ")\n"
            << format_table(rows);
  std::cout.flush();
}

/// --sweep: the cross product of the values, one job each, on `backend`.
void run_sweep(const SubmitFlags& f, const JobRequest& base, const SubmitPlan& plan,
               const render::helm::RenderIo& io, job::Backend& backend) {
  const std::vector<SweepPoint> points = sweep_points(plan.sweep_axes);
  const Job first = resolve_job(base, io.read);  // bad values stop the sweep before any job
  const std::string id = new_sweep_id();
  std::vector<JobRequest> requests;
  for (const SweepPoint& p : points) {
    requests.push_back(point_request(base, first.chart->values.as_map(), p, id));
    render_job_objects(resolve_job(requests.back(), io.read), io);  // bad input: no job at all
  }
  auto render = [&io](const JobRequest& r) -> job::RenderObjects {
    return [&io, r] { return render_job_objects(resolve_job(r, io.read), io); };
  };
  std::vector<SweepJob> jobs =
      submit_sweep(backend, requests, points, render, submit_options(f, plan),
                   backend.where() == job::Where::Cluster);
  print_sweep(id, jobs);
  if (plan.wait &&
      std::none_of(jobs.begin(), jobs.end(), [](const SweepJob& j) { return j.name.empty(); })) {
    wait_sweep(backend, jobs, plan.wait_options);
    print_sweep(id, jobs);
  }
  if (auto failed = sweep_outcome(id, jobs)) std::rethrow_exception(failed);
}

void run_submit(SubmitFlags& f) {
  JobRequest request = f.request;
  request.flags.command = take_trailing_args();
  request.local = f.local || job::is_local_context(f.kube);
  SubmitPlan plan = validate(f);
  if (f.follow && plan.dry_run != DryRunMode::None)
    throw Error(ErrorCode::Usage, "--follow cannot follow a --dry-run");
  if (!f.sweeps.empty() && (f.follow || plan.dry_run != DryRunMode::None ||
                            plan.output != Output::Text || f.request.exact_name))
    throw Error(ErrorCode::Usage,
                "--sweep submits many jobs: not with --follow, --dry-run, -o or --exact-name "
                "(each job draws its own name; --wait waits for all)");
  const render::helm::RenderIo io = render_io();
  if (plan.dry_run == DryRunMode::Client) {
    print_client_dry_run(resolve_job(request, io.read), io, plan.output);
    return;
  }
  const job::Where where = job::submit_target(f.local, f.kube.context, says_local(request, io));
  if (where == job::Where::Local) return run_local(f, request, plan, io);
  run_cluster(f, request, plan, io);
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
          ->expected(0, 1)
          ->type_name("client|server|none");
  cmd->add_option("-o,--output", flags->output, "Print the created objects: name, json or yaml")
      ->type_name("name|json|yaml");
  add_managed_fields_flag(*cmd, flags->managed_fields);
  cmd->add_flag("--create-namespace", flags->create_namespace,
                "Create the job's namespace if it does not exist (as Helm's flag)");
  cmd->add_flag("--wait", flags->wait,
                "Wait for the job to end: exit 0 succeeded, 1 failed, 10 preempted, 9 timed out");
  cmd->add_flag("--local", flags->local,
                "Run the job on this machine: a private etcd and one ejob-agent per node "
                "(also --context local)");
  cmd->add_flag("--follow", flags->follow,
                "Wait for the job's end (as --wait), printing the workers' logs as they come");
  cmd->add_option("--sweep", flags->sweeps,
                  "Submit one job per value: KEY=V1,V2,... (repeat for a cross product); a chart "
                  "key is set, any other KEY is passed to the script as --KEY=VALUE");
  cmd->add_option("--timeout", flags->timeout,
                  "How long --wait waits: seconds or a duration such as 2h (0: no limit)");
  cmd->add_option("--max-preemptions", flags->max_preemptions,
                  "--wait gives up (exit 10) once the job's workers were preempted more often "
                  "than this (default: never; the job goes on)");
  cmd->callback([flags] { run_submit(*flags); });
}

}  // namespace ejob::cli
