#include "ejob/cli/local_job.hpp"

#include <unistd.h>

#include <iostream>

#include "ejob/cli/job_describe.hpp"
#include "ejob/job/job_wait.hpp"
#include "ejob/kubeapi/job_submit.hpp"
#include "ejob/local/job_launch.hpp"
#include "ejob/local/local_jobs.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

using kubeapi::Json;

/// The ejob executable, for the supervisor it starts (argv[0] may be relative or on PATH).
std::string self_path() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error(ErrorCode::Internal, "cannot find the ejob executable: " + ec.message());
  return path.string();
}

render::RenderIo local_render_io() {
  render::RenderIo io;
  io.read = read_input_file;
  io.warn = [](const std::string& line) { std::cerr << line << '\n'; };
  return io;
}

std::vector<Json> render_objects(const JobRequest& request) {
  const render::RenderIo io = local_render_io();
  return parse_manifests(render_job(resolve_job(request, io.read), io));
}

/// Starts the job; a drawn name that another local job holds is drawn again, as on a cluster.
local::JobState start(const JobRequest& request, std::vector<Json>& objects) {
  const std::string self = self_path();
  const local::Machine machine = local::find_machine(self, !local::runs_without_python(objects));
  for (int attempt = 0;; ++attempt) {
    std::vector<std::string> notes;
    const local::LaunchSpec spec = local::launch_from_objects(objects, machine, notes);
    local::check_script(spec);
    try {
      local::JobState state = local::submit(spec, objects, self);
      for (const std::string& note : notes) std::cerr << "ejob: note: " << note << '\n';
      return state;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Conflict || request.exact_name || attempt == 4) throw;
      objects = render_objects(request);
    }
  }
}

const Json& elastic_job(const std::vector<Json>& objects) {
  for (const Json& o : objects)
    if (o.value("kind", "") == "ElasticJob") return o;
  throw Error(ErrorCode::Internal, "the local job has no ElasticJob");
}

void print_submitted(const local::JobState& s, const std::vector<Json>& objects, Output out) {
  if (out == Output::Name) {
    for (const Json& o : objects) std::cout << kubeapi::qualified_name(o) << '\n';
    return;
  }
  if (out != Output::Text) {
    std::cout << format_objects(objects, out);
    return;
  }
  std::cout << "elasticjob \"" << s.name << "\" runs locally (" << s.desired_nodes
            << (s.desired_nodes == 1 ? " node" : " nodes") << ", etcd " << s.etcd_endpoint << ")\n"
            << "  follow:  ejob logs " << s.name << " -f\n"
            << "  inspect: ejob describe " << s.name << "\n"
            << "  remove:  ejob delete " << s.name << "\n";
}

std::string count_of(const local::JobState& s, const char* status) {
  int n = 0;
  for (const local::NodeState& node : s.nodes) n += node.status == status;
  return std::to_string(n);
}

/// The status word of a local job, in the words of the ElasticJob conditions.
std::string status_word(const local::JobState& s) {
  return s.phase == local::Phase::Starting ? "Created" : local::phase_name(s.phase);
}

/// A local job as the ElasticJob object a cluster would show: its rendered object with the
/// creation time and a status written from the local state.
Json job_object(const local::JobState& s, Json job) {
  int active = 0;
  for (const local::NodeState& n : s.nodes) active += n.pid != 0;
  job["metadata"]["creationTimestamp"] = s.created;
  job["metadata"]["annotations"]["ejob.io/where"] = "local";
  job["status"]["conditions"] =
      Json::array({{{"type", status_word(s)}, {"status", "True"}, {"message", s.message}}});
  job["status"]["replicaStatuses"]["Worker"] = {{"active", active},
                                                {"succeeded", std::stoi(count_of(s, "succeeded"))},
                                                {"failed", std::stoi(count_of(s, "failed"))}};
  job["spec"]["replicaSpecs"]["Worker"]["replicas"] = s.desired_nodes;
  if (!s.finished.empty()) job["status"]["completionTime"] = s.finished;
  return job;
}

}  // namespace

void submit_local(const JobRequest& request, const LocalSubmitPlan& plan) {
  std::vector<Json> objects = render_objects(request);
  const local::JobState state = start(request, objects);
  print_submitted(state, objects, plan.output);
  if (!plan.wait && !plan.follow) return;
  std::cout.flush();
  local::JobState end;
  if (plan.follow) {
    end = *local::logs(state.name, true, std::cout);
  } else {
    end = local::wait(
        state.name, plan.timeout,
        [](const std::string& line) { std::cerr << "ejob: " << line << std::endl; },
        report_interval());
  }
  local::throw_if_unsuccessful(end);
  std::cerr << "ejob: elasticjob \"" << end.name << "\" succeeded\n";
}

bool targets_local_job(const KubeFlags& flags, const std::string& name) {
  if (is_local_context(flags)) return true;
  return flags.context.empty() && local::exists(name);
}

std::vector<Json> local_job_objects() {
  std::vector<Json> jobs;
  const auto warn = [](const std::string& line) { std::cerr << "ejob: warning: " << line << '\n'; };
  for (const local::JobState& s : local::list(warn)) {
    try {
      jobs.push_back(job_object(s, elastic_job(local::rendered_objects(s.name))));
    } catch (const Error& e) {
      warn(e.message());
    }
  }
  return jobs;
}

void logs_local(const std::string& name, bool follow) {
  std::optional<local::JobState> end = local::logs(name, follow, std::cout);
  if (end) local::throw_if_unsuccessful(*end);
}

void describe_local(const std::string& name, Output output) {
  const local::JobView v = local::view(name);
  if (output != Output::Text) {
    std::cout << format_objects({job_object(v.state, elastic_job(local::rendered_objects(name)))},
                                output);
    return;
  }
  std::cout << describe_local_job(v, std::chrono::system_clock::now());
}

void delete_local(const std::string& name, bool keep) {
  local::remove(name, keep);
  std::cout << "elasticjob \"" << name << "\" deleted (local"
            << (keep ? "; its files are kept in " + local::job_dir(name).string() : "") << ")\n";
}

}  // namespace ejob::cli
