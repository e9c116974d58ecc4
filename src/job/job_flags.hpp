#pragma once
/// The job flags of `ejob template` and `ejob submit` (cli/job.hpp adds them to a command), in
/// the style of Run:ai and Arena: each sets one or a few keys of the elasticjob chart's values, on
/// top of the job file, `-f` files and `--set*` (precedence: chart defaults < job file < -f <
/// --set* < these flags). Flags are validated without I/O; a bad one is a usage error naming the
/// flag and its accepted form.

#include <optional>
#include <string>
#include <vector>

#include "src/render/go/value.hpp"

namespace ejob::job {

/// The raw job flags as typed on the command line (unset options stay empty).
struct JobFlags {
  std::string name;                         ///< --name: model or job name
  bool exact_name = false;                  ///< --exact-name: use --name as it is
  std::optional<std::string> image;         ///< -i/--image
  std::optional<std::string> gpus;          ///< -g/--gpus N
  std::optional<std::string> gpu_resource;  ///< --gpu-resource NAME
  std::optional<std::string> workers;       ///< --workers N|MIN:MAX
  std::optional<std::string> nproc;         ///< --nproc-per-node N|gpu|auto
  std::optional<std::string> cpu;           ///< --cpu Q
  std::optional<std::string> memory;        ///< --memory Q
  std::optional<std::string> shm;           ///< --shm Q
  std::optional<std::string> spot;          ///< --spot PROVIDER
  std::optional<std::string> spot_mode;     ///< --spot-mode required|preferred
  std::vector<std::string> blobs;           ///< --blob ACCOUNT/CONTAINER[:MOUNTPATH]
  std::vector<std::string> pvcs;            ///< --pvc CLAIM:MOUNTPATH
  std::vector<std::string> envs;            ///< -e/--env K=V
  std::optional<std::string> engine;        ///< --engine auto|elasticjob|pytorchjob|trainjob
  std::vector<std::string> command;         ///< `-- SCRIPT [ARGS...]`
};

/// True when `text` is a Kubernetes quantity such as `8`, `1.5`, `500m`, `16Gi`, `1e3`.
bool is_quantity(std::string_view text);

/// Writes the flags' values into `values` (the user values, already holding the job file, -f
/// files and --set*). Throws ejob::Error(Usage) naming the flag on malformed input, e.g.
/// `--workers: "4:1" has MIN above MAX (use N or MIN:MAX with 1 <= MIN <= MAX)`.
void apply_job_flags(const JobFlags& flags, render::go::Map& values);

/// Sets `values[path...]` (creating maps on the way, replacing non-maps) to `v`.
void set_path(render::go::Map& values, std::initializer_list<std::string_view> path,
              render::go::Value v);

/// `values[path...]` or nil when a step is missing or not a map.
render::go::Value get_path(const render::go::Map& values,
                           std::initializer_list<std::string_view> path);

}  // namespace ejob::job
