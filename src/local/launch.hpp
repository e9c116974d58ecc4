#pragma once
/// What a local job runs (launch.json): the worker container of the rendered job turned into an
/// ejob-agent command line with the rendezvous its engine's operator gives a pod:
///   elasticjob  the job's etcd: `--rdzv_backend=etcd --rdzv_endpoint=... --nnodes=MIN:MAX`
///   pytorchjob  training-operator's PET_* for c10d, the store on node 0 (127.0.0.1:PORT)
///   trainjob    Trainer's PET_* for a static rendezvous: node 0 is the master

#include <map>
#include <string>
#include <vector>

#include "src/local/state.hpp"

namespace ejob::local {

struct LaunchSpec {
  std::string name;                        ///< the job's name = the rendezvous id
  std::string engine = "elasticjob";       ///< elasticjob, pytorchjob or trainjob
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
  int max_node_restarts = 6;  ///< restarts of one node after failures (backoffLimit)
  /// The cloud of the simulated VMs' metadata service (metadata_service.hpp): azure, aws or
  /// gce, from the spot nodes the workers select (azure when they select none).
  std::string cloud = "azure";
};

Json to_json(const LaunchSpec& spec);
/// Throws ejob::Error(Io) naming `origin` when a field is missing or mistyped.
LaunchSpec launch_from_json(const Json& json, const std::string& origin);

/// Whether the engine's rendezvous is the job's own etcd (elasticjob).
bool uses_etcd(const LaunchSpec& spec);

/// A node's command line. elasticjob: the controller's flags before the container's args, as
/// the ElasticJob controller puts them (the job's etcd at `endpoint`, the job name as the
/// rendezvous id, `--nnodes=MIN:MAX`); the others: the args alone (their operators set
/// PET_*). A local node also names its address (all nodes are this machine's loopback).
std::vector<std::string> node_arguments(const LaunchSpec& spec, const std::string& endpoint);

/// The environment of node `index`: the spec's, the operator's PET_* for pytorchjob (c10d at
/// `endpoint`; node 0 hosts the store: `is_host` in PET_RDZV_CONF, as a pod's hostname decides
/// it on a cluster) and trainjob (static, master at `endpoint`, PET_NODE_RANK), plus
/// CUDA_VISIBLE_DEVICES for its share of this machine's GPUs when the job asks for GPUs.
std::map<std::string, std::string> node_environment(const LaunchSpec& spec, int index,
                                                    const std::string& endpoint);

}  // namespace ejob::local
