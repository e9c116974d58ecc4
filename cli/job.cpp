#include "cli/job.hpp"

#include "cli/embedded.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: requests, pods, views, status, waiting

Job resolve_job(const JobRequest& request, const render::helm::ReadFile& read) {
  return job::resolve_job(request, read, [] { return embedded_chart("elasticjob"); });
}

void add_job_flags(CLI::App& app, JobFlags& flags) {
  app.add_option("-i,--image", flags.image, "Worker image (image)");
  app.add_option("-g,--gpus", flags.gpus, "GPUs per worker pod (gpus)");
  app.add_option("--gpu-resource", flags.gpu_resource,
                 "Resource name of the GPUs, e.g. amd.com/gpu (gpuResource)");
  app.add_option("--workers", flags.workers, "Worker pods: N or MIN:MAX (workers.min/max)");
  app.add_option("--nproc-per-node", flags.nproc,
                 "Processes per worker pod: N, gpu or auto (nprocPerNode)")
      ->type_name("N|gpu|auto");
  app.add_option("--cpu", flags.cpu, "CPU request per worker pod, a quantity (cpu)");
  app.add_option("--memory", flags.memory, "Memory per worker pod, a quantity (memory)");
  app.add_option("--shm", flags.shm, "Size of /dev/shm per worker pod, a quantity (shm)");
  app.add_option("--spot", flags.spot, "Run workers on spot nodes: azure, gke, eks, karpenter, any")
      ->type_name("azure|gke|eks|karpenter|any");
  app.add_option("--spot-mode", flags.spot_mode, "required (spot only) or preferred (spot.mode)")
      ->type_name("required|preferred");
  app.add_option("--blob", flags.blobs,
                 "Mount an Azure Blob container: ACCOUNT/CONTAINER[:MOUNTPATH] (storage)");
  app.add_option("--pvc", flags.pvcs, "Mount an existing claim: CLAIM:MOUNTPATH (storage)");
  app.add_option("-e,--env", flags.envs, "Environment variable NAME=VALUE (env)");
  app.add_option("--engine", flags.engine,
                 "What runs the job on a cluster: auto (what the cluster serves), elasticjob, "
                 "pytorchjob or trainjob (engine)")
      ->type_name("auto|elasticjob|pytorchjob|trainjob");
}

void add_job_arguments(CLI::App& app, JobRequest& request) {
  request.team_config = true;  // the user's commands take the team's defaults
  app.add_option("jobfile", request.job_file,
                 "Job file: YAML whose keys are the chart's values (docs/job-file.md)");
  add_job_flags(app, request.flags);
  app.footer(
      "The training command follows `--`: ejob template --image IMG -- train.py --lr 0.1\n"
      "Precedence: chart defaults < JOBFILE < -f < --set* < job flags.");
}

void add_value_flags(CLI::App& app, JobRequest& request) {
  app.add_option("--chart", request.chart_dir,
                 "Chart directory (default: the embedded elasticjob chart)");
  app.add_option("--name", request.name,
                 "Job name: a model name made unique with a random suffix (default: the "
                 "script's base name)");
  app.add_flag("--exact-name", request.exact_name, "Use --name exactly, without a suffix");
  app.add_option("-n,--namespace", request.name_space,
                 "Namespace (default: elastic-job; with --chart: default)");
  app.add_option("-f,--values", request.sources.files, "Values file (YAML); repeatable");
  app.add_option("--set", request.sources.set, "Set values: a.b=v,c=w");
  app.add_option("--set-string", request.sources.set_string, "Set string values");
  app.add_option("--set-json", request.sources.set_json, "Set JSON values: a.b={\"x\":1}");
  app.add_option("--set-file", request.sources.set_file, "Set values from files: key=path");
  app.add_option("--set-literal", request.sources.set_literal, "Set one literal string value");
}

}  // namespace ejob::cli
