#include "src/local/launch.hpp"

#include "src/util/error.hpp"

namespace ejob::local {

Json to_json(const LaunchSpec& s) {
  return {{"name", s.name},
          {"engine", s.engine},
          {"agent", s.agent},
          {"etcd", s.etcd},
          {"args", s.args},
          {"env", s.env},
          {"workdir", s.workdir},
          {"minNodes", s.min_nodes},
          {"maxNodes", s.max_nodes},
          {"initialNodes", s.initial_nodes},
          {"gpusPerNode", s.gpus_per_node},
          {"gpusHere", s.gpus_here},
          {"maxNodeRestarts", s.max_node_restarts},
          {"cloud", s.cloud}};
}

LaunchSpec launch_from_json(const Json& j, const std::string& origin) {
  try {
    LaunchSpec s;
    s.name = j.at("name").get<std::string>();
    s.engine = j.value("engine", "elasticjob");  // written before there were engines
    s.agent = j.at("agent").get<std::string>();
    s.etcd = j.at("etcd").get<std::string>();
    s.args = j.at("args").get<std::vector<std::string>>();
    s.env = j.at("env").get<std::map<std::string, std::string>>();
    s.workdir = j.at("workdir").get<std::string>();
    s.min_nodes = j.at("minNodes").get<int>();
    s.max_nodes = j.at("maxNodes").get<int>();
    s.initial_nodes = j.at("initialNodes").get<int>();
    s.gpus_per_node = j.at("gpusPerNode").get<int>();
    s.gpus_here = j.at("gpusHere").get<int>();
    s.max_node_restarts = j.at("maxNodeRestarts").get<int>();
    s.cloud = j.value("cloud", "azure");  // written before notices were drilled
    return s;
  } catch (const Json::exception& e) {
    throw Error(ErrorCode::Io, origin + ": damaged (" + e.what() + ")");
  }
}

bool uses_etcd(const LaunchSpec& spec) { return spec.engine == "elasticjob"; }

std::vector<std::string> node_arguments(const LaunchSpec& spec, const std::string& endpoint) {
  std::vector<std::string> argv = {spec.agent};
  if (uses_etcd(spec))
    argv.insert(
        argv.end(),
        {"--rdzv_backend=etcd", "--rdzv_endpoint=" + endpoint, "--rdzv_id=" + spec.name,
         "--nnodes=" + std::to_string(spec.min_nodes) + ":" + std::to_string(spec.max_nodes)});
  argv.push_back("--local_addr=127.0.0.1");
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  return argv;
}

namespace {

/// What training-operator v1.9.0 sets on a PyTorchJob's worker (elastic.go), with the store on
/// node 0: on a cluster worker 0's hostname is the endpoint's host; here every node is
/// 127.0.0.1, so is_host says it.
void pytorchjob_env(const LaunchSpec& spec, int index, const std::string& endpoint,
                    std::map<std::string, std::string>& env) {
  env["PET_RDZV_BACKEND"] = "c10d";
  env["PET_RDZV_ENDPOINT"] = endpoint;
  env["PET_RDZV_ID"] = spec.name;
  env["PET_NNODES"] = std::to_string(spec.min_nodes) + ":" + std::to_string(spec.max_nodes);
  std::string& conf = env["PET_RDZV_CONF"];
  conf += std::string(conf.empty() ? "" : ",") + "is_host=" + (index == 0 ? "1" : "0");
}

/// What Trainer v2.3.0's torch plugin sets on a TrainJob's node (torch.go): a static world.
void trainjob_env(const LaunchSpec& spec, int index, const std::string& endpoint,
                  std::map<std::string, std::string>& env) {
  const auto colon = endpoint.rfind(':');
  env["PET_NNODES"] = std::to_string(spec.max_nodes);
  env["PET_NODE_RANK"] = std::to_string(index);
  env["PET_MASTER_ADDR"] = endpoint.substr(0, colon);
  env["PET_MASTER_PORT"] = endpoint.substr(colon + 1);
}

}  // namespace

std::map<std::string, std::string> node_environment(const LaunchSpec& spec, int index,
                                                    const std::string& endpoint) {
  std::map<std::string, std::string> env = spec.env;
  if (spec.engine == "pytorchjob") pytorchjob_env(spec, index, endpoint, env);
  if (spec.engine == "trainjob") trainjob_env(spec, index, endpoint, env);
  if (spec.gpus_per_node <= 0 || spec.gpus_here <= 0) return env;
  std::string devices;
  for (int g = 0; g < spec.gpus_per_node; ++g) {
    if (!devices.empty()) devices += ",";
    devices += std::to_string((index * spec.gpus_per_node + g) % spec.gpus_here);
  }
  env["CUDA_VISIBLE_DEVICES"] = devices;
  return env;
}

}  // namespace ejob::local
