#pragma once
/// What a local job runs (launch.json): the worker container of the rendered ElasticJob turned
/// into an ejob-agent command line, as the ElasticJob controller would start it in a pod.

#include <map>
#include <string>
#include <vector>

#include "src/local/state.hpp"

namespace ejob::local {

struct LaunchSpec {
  std::string name;                        ///< the job's name = the rendezvous id
  std::string agent;                       ///< path of ejob-agent
  std::string etcd;                        ///< path of etcd
  std::vector<std::string> args;           ///< the worker container's args
  std::map<std::string, std::string> env;  ///< set on top of the submitter's environment
  std::string workdir;                     ///< where the nodes run (the submitter's folder)
  int min_nodes = 1;
  int max_nodes = 1;
  int initial_nodes = 1;
  int gpus_per_node = 0;
  int gpus_here = 0;          ///< GPUs of this machine, split between the nodes
  int max_node_restarts = 6;  ///< restarts of one node after signal exits (backoffLimit)
};

Json to_json(const LaunchSpec& spec);
/// Throws ejob::Error(Io) naming `origin` when a field is missing or mistyped.
LaunchSpec launch_from_json(const Json& json, const std::string& origin);

/// The controller's flags put before the container's args, as the ElasticJob controller does:
/// the job's etcd, the job name as the rendezvous id, `--nnodes=MIN:MAX`. A local node also
/// names its address (all nodes are this machine's loopback).
std::vector<std::string> node_arguments(const LaunchSpec& spec, const std::string& endpoint);

/// The environment of node `index`: the spec's, plus CUDA_VISIBLE_DEVICES for its share of
/// this machine's GPUs when the job asks for GPUs and the machine has them.
std::map<std::string, std::string> node_environment(const LaunchSpec& spec, int index);

}  // namespace ejob::local
