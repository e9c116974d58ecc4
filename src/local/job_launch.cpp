#include "src/local/job_launch.hpp"

#include <unistd.h>

#include <cstdlib>

#include "src/local/etcd_server.hpp"
#include "src/local/process.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

/// The worker container as the engine's operator starts it: ElasticJob's first container,
/// PyTorchJob's `pytorch` container, a TrainJob's trainer (image, args, env, resources).
Json worker_container(const Json& job) {
  const std::string kind = job.value("kind", "");
  if (kind == "TrainJob") {
    Json trainer = job["spec"].value("trainer", Json::object());
    if (trainer.contains("resourcesPerNode")) trainer["resources"] = trainer["resourcesPerNode"];
    return trainer;
  }
  const Json::json_pointer path(kind == "PyTorchJob"
                                    ? "/spec/pytorchReplicaSpecs/Worker/template/spec/containers"
                                    : "/spec/replicaSpecs/Worker/template/spec/containers");
  if (!job.contains(path) || !job.at(path).is_array() || job.at(path).empty())
    throw Error(ErrorCode::Input, "the " + kind + " has no worker container");
  for (const Json& c : job.at(path))
    if (kind != "PyTorchJob" || c.value("name", "") == "pytorch") return c;
  throw Error(ErrorCode::Input,
              "the PyTorchJob's Worker has no container named pytorch (training-operator sets "
              "its variables only there)");
}

int int_at(const Json& j, const char* pointer, int fallback) {
  const Json::json_pointer p(pointer);
  return j.contains(p) && j.at(p).is_number() ? j.at(p).get<int>() : fallback;
}

/// The container's args; a `command` that is torchrun or ejob-agent is the agent itself
/// (its other words come first), any other command cannot run as a node here.
std::vector<std::string> agent_args(const Json& container) {
  std::vector<std::string> args;
  if (container.contains("command")) {
    std::vector<std::string> cmd = container["command"].get<std::vector<std::string>>();
    const std::string base = cmd.empty() ? "" : cmd[0].substr(cmd[0].rfind('/') + 1);
    if (base != "torchrun" && base != "ejob-agent")
      throw Error(ErrorCode::Input, "the worker container's command \"" +
                                        (cmd.empty() ? "" : cmd[0]) +
                                        "\" is not torchrun or ejob-agent: a local run starts "
                                        "ejob-agent with the container's args");
    args.assign(cmd.begin() + 1, cmd.end());
  }
  for (const Json& a : container.value("args", Json::array())) args.push_back(a.get<std::string>());
  return args;
}

/// `value` entries as they are; `valueFrom` (secrets, config maps, the downward API) from this
/// environment when it has the variable, else left out with a note.
std::map<std::string, std::string> container_env(const Json& container,
                                                 std::vector<std::string>& notes) {
  std::map<std::string, std::string> env;
  std::string absent;
  for (const Json& e : container.value("env", Json::array())) {
    const std::string name = e.value("name", "");
    if (!e.contains("valueFrom")) {
      env[name] = e.value("value", "");
    } else if (const char* here = std::getenv(name.c_str())) {
      env[name] = here;
    } else {
      absent += (absent.empty() ? "" : ", ") + name;
    }
  }
  if (!absent.empty())
    notes.push_back(
        "not set (taken from a secret or the pod on a cluster; export it to pass it): " + absent);
  return env;
}

int count_gpus() {
  std::error_code ec;
  int n = 0;
  for (auto it = fs::directory_iterator("/proc/driver/nvidia/gpus", ec);
       !ec && it != fs::directory_iterator(); ++it)
    ++n;
  return n;
}

bool imports_torch(const std::string& python) {
  if (python.empty()) return false;
  const std::string cmd = "'" + python +
                          "' -c 'import importlib.util,sys; "
                          "sys.exit(importlib.util.find_spec(\"torch\") is None)' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

std::string find_python(std::string& tried) {
  std::vector<std::string> candidates;
  if (const char* exec = std::getenv("PYTHON_EXEC"); exec && *exec)
    candidates.push_back(exec);
  else
    candidates = {"python3", "/usr/bin/python3"};
  for (const std::string& name : candidates) {
    const std::string path = find_on_path(name);
    if (imports_torch(path)) return path;
    tried += (tried.empty() ? "" : ", ") + name +
             (path.empty() ? " (not found)" : " (" + path + ": no torch)");
  }
  return "";
}

std::string find_agent(const std::string& self) {
  const fs::path beside = fs::path(self).parent_path() / "ejob-agent";
  if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  std::string on_path = find_on_path("ejob-agent");
  if (on_path.empty())
    throw Error(ErrorCode::NotFound,
                "ejob-agent is neither beside ejob (" + beside.string() +
                    ") nor on PATH: build it (cmake --build BUILD --target ejob-agent)");
  return on_path;
}

/// The engine, the nodes (initial, min, max) and restarts as the job's kind says them.
void set_node_counts(const Json& job, LaunchSpec& s) {
  const std::string kind = job.value("kind", "");
  if (kind == "TrainJob") {
    s.engine = "trainjob";
    s.initial_nodes = s.min_nodes = s.max_nodes = int_at(job, "/spec/trainer/numNodes", 1);
    return;
  }
  const bool pytorch = kind == "PyTorchJob";
  s.engine = pytorch ? "pytorchjob" : "elasticjob";
  s.initial_nodes = int_at(
      job,
      pytorch ? "/spec/pytorchReplicaSpecs/Worker/replicas" : "/spec/replicaSpecs/Worker/replicas",
      1);
  s.min_nodes = int_at(job, pytorch ? "/spec/elasticPolicy/minReplicas" : "/spec/minReplicas",
                       s.initial_nodes);
  s.max_nodes = int_at(job, pytorch ? "/spec/elasticPolicy/maxReplicas" : "/spec/maxReplicas",
                       s.initial_nodes);
  s.max_node_restarts =
      int_at(job, "/spec/runPolicy/backoffLimit", int_at(job, "/spec/backoffLimit", 6));
}

/// The worker pod's template (TrainJob: its runtime patches, where ejob puts the placement).
Json worker_pod_spec(const Json& job) {
  const std::string kind = job.value("kind", "");
  if (kind == "TrainJob") return job["spec"].value("runtimePatches", Json::array());
  const Json::json_pointer path(kind == "PyTorchJob"
                                    ? "/spec/pytorchReplicaSpecs/Worker/template/spec"
                                    : "/spec/replicaSpecs/Worker/template/spec");
  return job.contains(path) ? job.at(path) : Json::object();
}

/// The cloud whose spot nodes the workers are placed on, by the spot labels the chart's
/// presets write (AKS `kubernetes.azure.com/scalesetpriority`, GKE `cloud.google.com/gke-*`,
/// EKS `eks.amazonaws.com/capacityType`, Karpenter `karpenter.sh/capacity-type`); azure, the
/// guides' cloud, when they name none or several clouds.
std::string spot_cloud(const Json& job) {
  const std::string placement = worker_pod_spec(job).dump();
  const bool azure = placement.find("kubernetes.azure.com/") != std::string::npos;
  const bool gce = placement.find("cloud.google.com/gke-") != std::string::npos;
  const bool aws = placement.find("eks.amazonaws.com/") != std::string::npos ||
                   placement.find("karpenter.sh/") != std::string::npos;
  if (gce && !azure && !aws) return "gce";
  if (aws && !azure && !gce) return "aws";
  return "azure";
}

}  // namespace

const Json& elastic_job(const std::vector<Json>& objects) {
  for (const Json& o : objects)
    for (const char* kind : {"ElasticJob", "PyTorchJob", "TrainJob"})
      if (o.value("kind", "") == kind) return o;
  throw Error(ErrorCode::Input,
              "the rendered job has no ElasticJob, PyTorchJob or TrainJob: nothing to run locally");
}

bool runs_without_python(const std::vector<Json>& objects) {
  const Json container = worker_container(elastic_job(objects));
  for (const std::string& a : agent_args(container))
    if (a == "--no_python" || a == "--no-python") return true;
  // The flag's environment form, which ejob-agent and torchrun read as well.
  for (const Json& e : container.value("env", Json::array()))
    if (e.value("name", "") == "PET_NO_PYTHON")
      return e.value("value", "") == "1" || e.value("value", "") == "true";
  return false;
}

bool needs_etcd(const std::vector<Json>& objects) {
  return elastic_job(objects).value("kind", "") == "ElasticJob";
}

Machine find_machine(const std::string& self, bool needs_python, bool needs_etcd) {
  Machine m;
  m.agent = find_agent(self);
  if (needs_etcd) m.etcd = find_etcd();
  m.gpus = count_gpus();
  m.workdir = fs::current_path().string();
  if (!needs_python) return m;
  std::string tried;
  m.python = find_python(tried);
  if (m.python.empty())
    throw Error(ErrorCode::NotFound, "no python with torch: tried " + tried +
                                         "; install Debian's python3-torch or set PYTHON_EXEC");
  return m;
}

LaunchSpec launch_from_objects(const std::vector<Json>& objects, const Machine& machine,
                               std::vector<std::string>& notes) {
  const Json& job = elastic_job(objects);
  const Json& container = worker_container(job);
  LaunchSpec s;
  s.name = job.at("metadata").at("name").get<std::string>();
  s.agent = machine.agent;
  s.etcd = machine.etcd;
  s.args = agent_args(container);
  s.env = container_env(container, notes);
  if (!machine.python.empty() && !s.env.count("PYTHON_EXEC")) s.env["PYTHON_EXEC"] = machine.python;
  s.workdir = machine.workdir;
  set_node_counts(job, s);
  s.cloud = spot_cloud(job);
  s.gpus_per_node = int_at(container, "/resources/limits/nvidia.com~1gpu", 0);
  s.gpus_here = machine.gpus;
  if (const std::string image = container.value("image", std::string()); !image.empty())
    notes.push_back("the image " + image + " is not used: the nodes run on this machine, in " +
                    s.workdir);
  if (s.gpus_per_node > 0 && machine.gpus == 0)
    notes.push_back("the job asks for " + std::to_string(s.gpus_per_node) +
                    " GPUs per node; this machine has none");
  return s;
}

void check_script(const LaunchSpec& spec) {
  for (const std::string& a : spec.args) {
    if (a == "-m" || a == "--module" || a == "--no_python" || a == "--no-python") return;
    // The script is the first word ending in .py: a flag's value may stand alone before it.
    if (a.empty() || a[0] == '-' || !a.ends_with(".py")) continue;
    const fs::path script = fs::path(spec.workdir) / a;
    if (!fs::exists(script))
      throw Error(ErrorCode::Input, "the job's script " + a + " does not exist in " + spec.workdir +
                                        " (a local job runs where ejob submit runs)");
    return;
  }
}

}  // namespace ejob::local
