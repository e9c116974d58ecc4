/// `ejob logs NAME [-f]`: the logs of every worker of a job at once, each line after its pod's
/// short name (`[worker-0] `), as stern and `kubectl logs -l … --prefix` show several pods.
/// Lines of different workers never mix: a line is written whole or not yet.
///
/// With -f the job is followed, not a fixed set of pods: a worker that appears later (a
/// scale-out, a pod the controller made again) is followed from its start, a worker restarted
/// in place is followed again, evictions and deleted workers are noted on stderr, and the
/// command ends once the job has succeeded or failed and every worker's stream has ended, or
/// when the job is deleted.

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "cli/local_job.hpp"
#include "cli/log_printer.hpp"
#include "src/job/cluster_backend.hpp"
#include "src/job/cluster_submit.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_table.hpp"
#include "src/job/jobs.hpp"
#include "src/render/go/time.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

using job::Json;

struct LogsFlags {
  KubeFlags kube;
  std::string name;
  bool follow = false;
  bool timestamps = false;
  bool previous = false;
  std::string since;
  std::string since_time;
  long tail = -1;
  std::string container;
  std::vector<int> workers;
  std::string color = "auto";
  bool no_prefix = false;
};

/// What the flags ask for, checked before anything is sent.
struct LogsPlan {
  job::LogRequest request;  ///< its options are for the workers there when the command starts
  bool color = false;
  bool prefix = true;
};

LogsPlan plan_of(const LogsFlags& f) {
  LogsPlan p;
  if (!f.since.empty() && !f.since_time.empty())
    throw Error(ErrorCode::Usage, "--since and --since-time exclude each other");
  if (f.previous && f.follow)
    throw Error(ErrorCode::Usage, "-p/--previous and -f/--follow exclude each other");
  if (f.tail < -1) throw Error(ErrorCode::Usage, "--tail must be -1 (all lines) or more");
  if (!f.since.empty()) {
    std::string error;
    const auto ns = render::go::gotime::parse_duration(f.since, error);
    if (!ns) throw Error(ErrorCode::Usage, "--since: " + error);
    if (*ns <= 0) throw Error(ErrorCode::Usage, "--since must be more than 0, got " + f.since);
    constexpr int64_t k_second = 1'000'000'000;
    p.request.options.since_seconds =
        static_cast<long>((*ns + k_second - 1) / k_second);  // rounded up
  }
  if (!f.since_time.empty()) {
    if (!is_rfc3339_time(f.since_time))
      throw Error(ErrorCode::Usage,
                  "--since-time must be an RFC 3339 time such as 2024-05-01T12:00:00Z, got " +
                      f.since_time);
    p.request.options.since_time = f.since_time;
  }
  if (f.color != "auto" && f.color != "always" && f.color != "never")
    throw Error(ErrorCode::Usage, "--color must be auto, always or never, got " + f.color);
  for (int w : f.workers) {
    if (w < 0) throw Error(ErrorCode::Usage, "--worker takes replica indexes (0, 1, …)");
    p.request.workers.insert(w);
  }
  p.request.options.follow = f.follow;
  p.request.options.timestamps = f.timestamps;
  p.request.options.previous = f.previous;
  p.request.options.tail_lines = f.tail;
  p.color = f.color == "always" || (f.color == "auto" && isatty(1) && !std::getenv("NO_COLOR"));
  p.prefix = !f.no_prefix;
  p.request.container = f.container;
  return p;
}

void run_logs(const LogsFlags& f) {
  const LogsPlan plan = plan_of(f);
  Printer out(plan.color, plan.prefix);
  if (targets_local_job(f.kube, f.name)) return local_backend().logs(f.name, plan.request, out);
  KubeSession session = open_session(f.kube);
  const std::string ns = job_namespace(f.kube);
  job::ClusterBackend(*session.client, ns).logs(f.name, plan.request, out);
}

}  // namespace

void register_logs(CLI::App& app) {
  auto flags = std::make_shared<LogsFlags>();
  CLI::App* cmd = app.add_subcommand("logs", "Print the logs of every worker of a job at once");
  cmd->add_option("name", flags->name, "Job name")->required();
  add_kube_flags(*cmd, flags->kube);
  cmd->add_flag("-f,--follow", flags->follow,
                "Follow the job: new and restarted workers too, until the job ends");
  cmd->add_option("--tail", flags->tail, "Lines of each worker's recent log (-1: all)");
  cmd->add_option("--since", flags->since, "Only lines newer than a duration: 30s, 5m, 2h");
  cmd->add_option("--since-time", flags->since_time, "Only lines after an RFC 3339 time");
  cmd->add_flag("--timestamps", flags->timestamps, "Start each line with its time");
  cmd->add_flag("-p,--previous", flags->previous, "The log of each worker's previous container");
  cmd->add_option("-c,--container", flags->container,
                  "Container of each pod (default: the pod's default, else the first)");
  cmd->add_option("-w,--worker", flags->workers, "Only these replica indexes (repeatable)");
  cmd->add_flag("--no-prefix", flags->no_prefix, "Print lines without [worker-N]");
  cmd->add_option("--color", flags->color, "auto, always or never (auto: on a terminal)")
      ->type_name("auto|always|never");
  cmd->callback([flags] { run_logs(*flags); });
}

}  // namespace ejob::cli
