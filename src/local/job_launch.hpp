#pragma once
/// From the rendered objects of a job to what runs locally (launch.json): the worker container
/// of the ElasticJob as the controller would start it in each pod — its entrypoint (the
/// image's: ejob-agent or torchrun) replaced by this machine's ejob-agent, its args, its env.

#include <string>
#include <vector>

#include "src/local/launch.hpp"

namespace ejob::local {

/// What the machine provides, found by find_machine().
struct Machine {
  std::string agent;    ///< ejob-agent
  std::string etcd;     ///< etcd
  std::string python;   ///< a python that imports torch ("" when the job runs no python)
  std::string workdir;  ///< where the nodes run
  int gpus = 0;         ///< NVIDIA GPUs of this machine
};

/// The ElasticJob among the rendered objects; ejob::Error(Input) when there is none.
const Json& elastic_job(const std::vector<Json>& objects);

/// Turns the rendered objects into a launch; `notes` gets one line per thing of the cluster
/// job that a local run leaves out (the image, secrets not in this environment).
/// Throws ejob::Error(Input) when there is no ElasticJob or its container cannot run here.
LaunchSpec launch_from_objects(const std::vector<Json>& objects, const Machine& machine,
                               std::vector<std::string>& notes);

/// Finds ejob-agent (beside `self`, then on PATH), etcd (when the engine needs one), the GPUs,
/// and — unless the job runs without python — a python with torch: $PYTHON_EXEC, `python3` on PATH,
/// then /usr/bin/python3. Throws ejob::Error(NotFound) naming what is missing and how to get it.
Machine find_machine(const std::string& self, bool needs_python, bool needs_etcd = true);

/// True when the job's worker runs its script without python (--no_python in the args, or
/// PET_NO_PYTHON=1 in its env).
bool runs_without_python(const std::vector<Json>& objects);

/// True when the job's engine meets in an etcd of its own (ElasticJob); PyTorchJob's c10d and
/// TrainJob's static rendezvous need none.
bool needs_etcd(const std::vector<Json>& objects);

/// Checks that the job's script exists, relative to `workdir` (refused with ejob::Error(Input)
/// naming the script and the folder); scripts run as modules (-m) are not checked.
void check_script(const LaunchSpec& spec);

}  // namespace ejob::local
