#include "src/job/local_backend.hpp"

#include <filesystem>

#include "src/job/job_wait.hpp"
#include "src/local/job_launch.hpp"
#include "src/local/local_jobs.hpp"
#include "src/local/supervisor.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

int count_of(const local::JobState& s, const char* status) {
  int n = 0;
  for (const local::NodeState& node : s.nodes) n += node.status == status;
  return n;
}

/// A local job as the object a cluster would show: its rendered job (of its engine) with the
/// creation time and a status written from the local state, in the words of the ElasticJob
/// conditions.
Json job_object(const local::JobState& s, Json job) {
  int active = 0;
  for (const local::NodeState& n : s.nodes) active += n.pid != 0;
  const std::string word =
      s.phase == local::Phase::Starting ? "Created" : local::phase_name(s.phase);
  job["metadata"]["creationTimestamp"] = s.created;
  job["metadata"]["annotations"]["ejob.io/where"] = "local";
  job["status"]["conditions"] =
      Json::array({{{"type", word}, {"status", "True"}, {"message", s.message}}});
  job["status"]["replicaStatuses"]["Worker"] = {{"active", active},
                                                {"succeeded", count_of(s, "succeeded")},
                                                {"failed", count_of(s, "failed")}};
  if (job.value("kind", "") == "PyTorchJob")
    job["spec"]["pytorchReplicaSpecs"]["Worker"]["replicas"] = s.desired_nodes;
  else if (job.value("kind", "") == "TrainJob")
    job["spec"]["trainer"]["numNodes"] = s.desired_nodes;
  else
    job["spec"]["replicaSpecs"]["Worker"]["replicas"] = s.desired_nodes;
  if (!s.finished.empty()) job["status"]["completionTime"] = s.finished;
  return job;
}

std::string summary_of(const local::JobState& s) {
  return std::to_string(s.desired_nodes) + (s.desired_nodes == 1 ? " node" : " nodes") + ", " +
         local::rendezvous_text(s);
}

}  // namespace

Json local_job_object(const local::JobState& state) {
  return job_object(state, local::elastic_job(local::rendered_objects(state.name)));
}

bool local_job_exists(const std::string& name) { return local::exists(name); }

int run_local_supervisor(const std::string& dir) { return local::run_supervisor(dir); }

LocalBackend LocalBackend::of_this_executable() {
  // argv[0] may be relative or found on PATH; the supervisor is started from anywhere.
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ErrorCode::Internal, "cannot find the ejob executable: " + ec.message());
  LocalBackend backend(path.string());
  backend.report_every = report_interval();
  return backend;
}

Submitted LocalBackend::submit(const RenderObjects& render, const SubmitOptions& options) {
  if (options.server_dry_run)
    throw Error(ErrorCode::Usage, "--dry-run=server needs a cluster; a local job has no server");
  std::vector<Json> objects = render();
  const local::Machine machine =
      local::find_machine(m_self, !local::runs_without_python(objects), local::needs_etcd(objects));
  for (int attempt = 0;; ++attempt) {
    Submitted out;
    const local::LaunchSpec spec = local::launch_from_objects(objects, machine, out.notes);
    local::check_script(spec);
    try {
      const local::JobState state = local::submit(spec, objects, m_self);
      out.name = state.name;
      out.summary = summary_of(state);
      out.objects = std::move(objects);
      return out;
    } catch (const Error& e) {
      // A drawn name another local job holds is drawn again, as on a cluster.
      if (e.code() != ErrorCode::Conflict || options.exact_name || attempt == 4) throw;
      objects = render();
    }
  }
}

std::vector<Json> LocalBackend::list() {
  std::vector<Json> jobs;
  for (const local::JobState& s : local::list(warn)) {
    try {
      jobs.push_back(local_job_object(s));
    } catch (const Error& e) {
      warn(e.message());
    }
  }
  return jobs;
}

void LocalBackend::wait(const std::string& name, const WaitOptions& options, const Report& report) {
  local::throw_if_unsuccessful(
      local::wait(name, options.timeout, options.max_preemptions, report, report_every));
}

Removed LocalBackend::remove(const std::string& name, const RemoveOptions& options) {
  if (!local::exists(name)) return {};
  local::remove(name, options.keep);
  return {true, ""};
}

void LocalBackend::scale(const std::string& name, int nodes) { local::scale(name, nodes); }

std::vector<std::string> LocalBackend::evict(const std::string& name, const EvictRequest& r) {
  if (!r.node.empty())
    throw Error(ErrorCode::Usage,
                "--node: the nodes of a local job are its workers; name one "
                "with --worker I");
  if (!r.worker) throw Error(ErrorCode::Usage, "--worker: which worker to evict");
  if (r.grace_s && *r.grace_s < 0) throw Error(ErrorCode::Usage, "--grace: seconds, 0 or more");
  const std::string worker = "worker-" + std::to_string(*r.worker);
  if (r.notice) {
    const local::NoticeSent sent = local::send_notice(name, *r.worker, r.provider, r.grace_s);
    return {worker + " of job \"" + name + "\" got a preemption notice (" + sent.cloud +
            "); its VM is reclaimed in " + std::to_string(sent.notice_s) + " s"};
  }
  if (!r.provider.empty()) throw Error(ErrorCode::Usage, "--provider goes with --notice");
  const int grace = r.grace_s.value_or(30);
  local::evict(name, *r.worker, grace);
  return {worker + " of job \"" + name + "\" evicted (SIGTERM; SIGKILL after " +
          std::to_string(grace) + " s)"};
}

Description LocalBackend::describe(const std::string& name) { return local::view(name); }

void LocalBackend::logs(const std::string& name, const LogRequest& request, LogSink& out) {
  const kubeapi::LogOptions& o = request.options;
  if (o.timestamps || o.previous || o.since_seconds >= 0 || !o.since_time.empty() ||
      o.tail_lines >= 0 || !request.container.empty())
    throw Error(ErrorCode::Usage, "\"" + name +
                                      "\" is a local job: logs takes -f, -w and --no-prefix (its "
                                      "nodes' whole logs)");
  const auto end = local::logs(name, o.follow, [&](int index, const std::string& line) {
    if (request.workers.empty() || request.workers.count(index))
      out.lines("worker-" + std::to_string(index), index, {line});
  });
  if (end) local::throw_if_unsuccessful(*end);
}

}  // namespace ejob::job
