/// `ejob template`: prints what `helm template NAME DIR` prints for the same options.
/// Flags → RenderOptions (checked without I/O) → render_chart → stdout. Output is buffered so
/// that a failing render prints nothing on stdout.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/job.hpp"
#include "ejob/cli/run.hpp"
#include "ejob/helm/chart_metadata.hpp"
#include "ejob/helm/render_chart.hpp"
#include "ejob/render/naming.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: requests, pods, views, status, waiting
namespace {

namespace fs = std::filesystem;

/// The flags as CLI11 fills them.
struct TemplateFlags {
  std::string chart;  ///< empty: the embedded elasticjob chart
  std::string name;   ///< empty: the job's script base name, or release-name
  bool exact_name = false;
  std::string ns;                       ///< empty: elastic-job for a job, default for a plain chart
  std::optional<std::string> job_file;  ///< JOBFILE (cli/job.hpp)
  JobFlags job;                         ///< the job flags and `-- SCRIPT ARGS`
  render::ValueSources values;
  std::string kube_version;
  std::vector<std::string> show_only;
  std::string output_dir;
};

void write_output(const std::string& path, const std::string& content, bool append) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path,
                    append ? std::ios::binary | std::ios::app : std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorCode::Io, "open " + path + ": cannot write file");
  out << content;
}

/// The job (chart, values, name, namespace) and the Helm-only options, as render options.
render::RenderOptions to_options(const TemplateFlags& flags, const render::ReadFile& read) {
  JobRequest request{flags.job_file,   flags.values, flags.job, flags.name,
                     flags.exact_name, flags.chart,  flags.ns};
  request.flags.command = take_trailing_args();
  request.reproducible_name = true;
  render::RenderOptions o = job_render_options(resolve_job(request, read));
  o.kube_version = flags.kube_version;
  o.show_only = flags.show_only;
  o.output_dir = flags.output_dir;
  return o;
}

void run_template(const TemplateFlags& flags) {
  render::RenderIo io;
  io.read = read_input_file;
  io.write = write_output;
  io.exists = [](const std::string& p) {
    std::error_code ec;
    return fs::exists(p, ec);
  };
  io.warn = [](const std::string& line) { std::cerr << line << '\n'; };
  std::string out = render::render_chart(to_options(flags, io.read), io);
  std::cout << out;
  std::cout.flush();
}

}  // namespace

void register_template(CLI::App& app) {
  auto flags = std::make_shared<TemplateFlags>();
  CLI::App* cmd = app.add_subcommand("template", "Render the chart as `helm template` does");
  cmd->add_option("--chart", flags->chart,
                  "Chart directory (default: the embedded elasticjob chart)");
  cmd->add_option("jobfile", flags->job_file, "Job file: the chart's values (docs/job-file.md)");
  add_job_flags(*cmd, flags->job);
  cmd->add_option("--name", flags->name,
                  "Release name (a suffix is added, the same for the same inputs)");
  cmd->add_flag("--exact-name", flags->exact_name, "Use --name as given, without a suffix");
  cmd->add_option("-n,--namespace", flags->ns, "Namespace of the release");
  cmd->add_option("-f,--values", flags->values.files, "Values file (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--set", flags->values.set, "key=value (repeatable)")->allow_extra_args(false);
  cmd->add_option("--set-string", flags->values.set_string, "key=string (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--set-json", flags->values.set_json, "key=JSON (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--set-file", flags->values.set_file, "key=path (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--set-literal", flags->values.set_literal, "key=literal (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--kube-version", flags->kube_version, "Kubernetes version for Capabilities");
  cmd->add_option("-s,--show-only", flags->show_only, "Only templates matching (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--output-dir", flags->output_dir, "Write files under this directory");
  cmd->callback([flags] { run_template(*flags); });
}

}  // namespace ejob::cli
