// `ejob values [JOBFILE] [flags]`: prints, as JSON, the values a job would be rendered with
// on top of the chart's defaults — the job file, -f files, --set* and the job flags merged,
// spot presets expanded — like `helm get values` before the job exists. The golden tests hand
// this to the Go reference renderer.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/run.hpp"
#include "src/job/render_io.hpp"
#include "src/render/go/json.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: requests, pods, views, status, waiting

void register_values(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "values", "Print the values a job would use (job file, -f, --set* and flags merged)");
  auto request = std::make_shared<JobRequest>();
  add_job_arguments(*cmd, *request);
  add_value_flags(*cmd, *request);
  cmd->callback([request] {
    request->flags.command = take_trailing_args();
    Job job = resolve_job(*request, read_input_file);
    std::cout << render::go::json::marshal_indent(render::go::Value::map(job.values), "", "  ")
              << "\n";
  });
}

}  // namespace ejob::cli
