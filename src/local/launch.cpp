#include "src/local/launch.hpp"

#include "src/util/error.hpp"

namespace ejob::local {

Json to_json(const LaunchSpec& s) {
  return {{"name", s.name},
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
          {"maxNodeRestarts", s.max_node_restarts}};
}

LaunchSpec launch_from_json(const Json& j, const std::string& origin) {
  try {
    LaunchSpec s;
    s.name = j.at("name").get<std::string>();
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
    return s;
  } catch (const Json::exception& e) {
    throw Error(ErrorCode::Io, origin + ": damaged (" + e.what() + ")");
  }
}

std::vector<std::string> node_arguments(const LaunchSpec& spec, const std::string& endpoint) {
  std::vector<std::string> argv = {
      spec.agent,
      "--rdzv_backend=etcd",
      "--rdzv_endpoint=" + endpoint,
      "--rdzv_id=" + spec.name,
      "--nnodes=" + std::to_string(spec.min_nodes) + ":" + std::to_string(spec.max_nodes),
      "--local_addr=127.0.0.1"};
  argv.insert(argv.end(), spec.args.begin(), spec.args.end());
  return argv;
}

std::map<std::string, std::string> node_environment(const LaunchSpec& spec, int index) {
  std::map<std::string, std::string> env = spec.env;
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
