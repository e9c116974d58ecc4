/// `ejob template`: prints what `helm template NAME DIR` prints for the same options.
/// Flags → RenderOptions (checked without I/O) → render_chart → stdout. Output is buffered so
/// that a failing render prints nothing on stdout.

#include <algorithm>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/run.hpp"
#include "src/job/naming.hpp"
#include "src/job/render_io.hpp"
#include "src/render/go/fmt.hpp"
#include "src/render/helm/chart_metadata.hpp"
#include "src/render/helm/render_chart.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: requests, pods, views, status, waiting
namespace {

using render::go::go_quote;

/// The flags as CLI11 fills them.
struct TemplateFlags {
  std::string chart;  ///< empty: the embedded elasticjob chart
  std::string name;   ///< empty: the job's script base name, or release-name
  bool exact_name = false;
  std::string ns;                       ///< empty: elastic-job for a job, default for a plain chart
  std::optional<std::string> job_file;  ///< JOBFILE (cli/job.hpp)
  JobFlags job;                         ///< the job flags and `-- SCRIPT ARGS`
  render::helm::ValueSources values;
  std::string kube_version;
  std::vector<std::string> show_only;
  std::string output_dir;
  std::vector<std::string> api_versions;  ///< -a values, each comma-separated (CSV)
  bool include_crds = false;
  bool skip_tests = false;
  bool no_hooks = false;
  bool is_upgrade = false;
  bool release_name_dir = false;  ///< --release-name
  bool skip_schema_validation = false;
  bool dependency_update = false;
  bool generate_name = false;
  std::string name_template;
  bool validate = false;
  bool enable_dns = false;
  std::string dry_run;  ///< "" when absent; `client` when given without a value
  std::string timeout = "5m0s";
  std::vector<std::string> labels;  ///< -l values, each `k=v,k=v`
  std::string post_renderer;
  std::vector<std::string> post_renderer_args;
  bool no_op = false;  ///< the install flags that change nothing `helm template` prints
  std::string description;
};

/// pflag's StringSlice: each value read as one CSV record (`a,"b,c"` → a, b,c); "" is none.
std::vector<std::string> csv_values(const std::vector<std::string>& values, const char* flag) {
  std::vector<std::string> out;
  for (const std::string& v : values) {
    if (v.empty()) continue;
    std::string field;
    bool quoted = false;
    for (size_t i = 0; i < v.size(); ++i) {
      char c = v[i];
      if (quoted && c == '"' && i + 1 < v.size() && v[i + 1] == '"') {
        field += '"', ++i;
      } else if (c == '"' && (quoted || field.empty())) {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        out.push_back(std::exchange(field, ""));
      } else if (c == '"') {
        throw Error(ErrorCode::Usage, std::string("invalid argument ") + go_quote(v) + " for " +
                                          flag + " flag: parse error on line 1, column " +
                                          std::to_string(i + 1) + ": bare \" in non-quoted-field");
      } else {
        field += c;
      }
    }
    out.push_back(field);
  }
  return out;
}

/// Go's time.ParseDuration, for --timeout (checked, then unused): `0`, or an optional sign and
/// one or more NUMBER UNIT (`1.5h`, `2m30s`). Returns Go's error text, or "" when valid.
std::string duration_error(std::string_view orig) {
  std::string_view s = orig;
  const std::string invalid = "time: invalid duration " + go_quote(orig);
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s == "0") return "";
  if (s.empty()) return invalid;
  static constexpr std::string_view k_units[] = {"ns", "us", "\u00b5s", "\u03bcs",
                                                 "ms", "s",  "m",       "h"};
  auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  while (!s.empty()) {
    if (!is_digit(s[0]) && s[0] != '.') return invalid;
    size_t i = 0;
    size_t digits = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
    if (i < s.size() && s[i] == '.')
      for (++i; i < s.size() && is_digit(s[i]); ++i) ++digits;
    if (digits == 0) return invalid;
    s.remove_prefix(i);
    size_t unit = 0;
    while (unit < s.size() && s[unit] != '.' && !is_digit(s[unit])) ++unit;
    if (unit == 0) return "time: missing unit in duration " + go_quote(orig);
    std::string_view u = s.substr(0, unit);
    if (std::find(std::begin(k_units), std::end(k_units), u) == std::end(k_units))
      return "time: unknown unit " + go_quote(u) + " in duration " + go_quote(orig);
    s.remove_prefix(unit);
  }
  return "";
}

/// The flags that need a cluster or the network, and the checks Helm makes of the no-op ones.
void check_helm_flags(const TemplateFlags& f) {
  if (f.validate)
    throw Error(ErrorCode::Usage,
                "--validate checks the manifests against a cluster; ejob template renders "
                "without one (ejob submit --dry-run=server asks the cluster)");
  if (f.enable_dns)
    throw Error(ErrorCode::Usage,
                "--enable-dns: ejob template does not look host names up (getHostByName "
                "returns \"\", as helm template does without this flag)");
  if (f.dry_run == "server" || f.dry_run == "none" || f.dry_run == "false")
    throw Error(ErrorCode::Usage,
                "--dry-run=" + f.dry_run +
                    ": helm template would reach the cluster (lookup); ejob template renders "
                    "without one (use --dry-run=client)");
  if (!f.dry_run.empty() && f.dry_run != "true" && f.dry_run != "client")
    throw Error(ErrorCode::Usage,
                "Invalid dry-run flag. Flag must one of the following: false, true, none, "
                "client, server");
  if (std::string why = duration_error(f.timeout); !why.empty())
    throw Error(ErrorCode::Usage,
                "invalid argument " + go_quote(f.timeout) + " for \"--timeout\" flag: " + why);
}

/// Helm's NameAndChart for `helm template [NAME] CHART`: --name plays NAME.
void apply_name_flags(TemplateFlags& f) {
  if (!f.name.empty() && f.generate_name)
    throw Error(ErrorCode::Usage, "cannot set --generate-name and also specify a name");
  if (!f.name.empty() && !f.name_template.empty())
    throw Error(ErrorCode::Usage, "cannot set --name-template and also specify a name");
  if (f.name_template.empty()) return;  // --generate-name alone: template's `release-name`
  f.name = render::helm::template_name(f.name_template);
  f.exact_name = true;
}

/// The keys of --labels (pflag's StringToString: `k=v` pairs, comma-separated).
std::vector<std::string> label_keys(const std::vector<std::string>& values) {
  std::vector<std::string> keys;
  for (const std::string& pair : csv_values(values, "\"-l, --labels\"")) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos)
      throw Error(ErrorCode::Usage, "invalid argument " + go_quote(pair) +
                                        " for \"-l, --labels\" flag: " + pair +
                                        " must be formatted as key=value");
    keys.push_back(pair.substr(0, eq));
  }
  return keys;
}

/// The job (chart, values, name, namespace) and the Helm-only options, as render options.
render::helm::RenderOptions to_options(const TemplateFlags& flags,
                                       const render::helm::ReadFile& read) {
  JobRequest request{flags.job_file,   flags.values, flags.job, flags.name,
                     flags.exact_name, flags.chart,  flags.ns};
  request.flags.command = take_trailing_args();
  request.reproducible_name = true;
  request.team_config = true;  // what `ejob submit` of the same job would render
  render::helm::RenderOptions o = job_render_options(resolve_job(request, read));
  o.kube_version = flags.kube_version;
  o.show_only = flags.show_only;
  o.output_dir = flags.output_dir;
  o.api_versions = csv_values(flags.api_versions, "\"-a, --api-versions\"");
  o.include_crds = flags.include_crds;
  o.skip_tests = flags.skip_tests;
  o.no_hooks = flags.no_hooks;
  o.is_upgrade = flags.is_upgrade;
  o.release_name_dir = flags.release_name_dir;
  o.skip_schema_validation = flags.skip_schema_validation;
  o.dependency_update = flags.dependency_update;
  o.labels = label_keys(flags.labels);
  return o;
}

void run_template(TemplateFlags flags) {
  check_helm_flags(flags);
  apply_name_flags(flags);
  render::helm::RenderIo io =
      command_render_io([](const std::string& line) { std::cerr << line << '\n'; });
  if (!flags.post_renderer.empty())
    add_post_renderer(io, flags.post_renderer, flags.post_renderer_args);
  std::string out = render::helm::render_chart(to_options(flags, io.read), io);
  std::cout << out;
  std::cout.flush();
}

}  // namespace

/// The flags of `helm template` (v3.21) beyond the value and output flags above.
void add_helm_flags(CLI::App& cmd, TemplateFlags& f) {
  cmd.add_option("-a,--api-versions", f.api_versions,
                 "Kubernetes API versions for Capabilities.APIVersions (repeatable, a,b)")
      ->allow_extra_args(false);
  cmd.add_flag("--include-crds", f.include_crds, "Print the charts' crds/ files first");
  cmd.add_flag("--skip-tests", f.skip_tests, "Leave test hooks out");
  cmd.add_flag("--no-hooks", f.no_hooks, "Leave hooks out");
  cmd.add_flag("--is-upgrade", f.is_upgrade, "Set .Release.IsUpgrade instead of .IsInstall");
  cmd.add_flag("--release-name", f.release_name_dir, "With --output-dir: DIR/RELEASE/...");
  cmd.add_flag("--skip-schema-validation", f.skip_schema_validation,
               "Do not check values against values.schema.json");
  cmd.add_option("--name-template", f.name_template,
                 "Release name from a Go template (Sprig functions)");
  cmd.add_flag("--generate-name", f.generate_name,
               "Accepted as helm template does (the name stays release-name)");
  cmd.add_flag("--dependency-update", f.dependency_update,
               "Missing dependencies: say how to fetch them (no network)");
  cmd.add_option("--post-renderer", f.post_renderer,
                 "Executable that rewrites the manifests (stdin to stdout)");
  cmd.add_option("--post-renderer-args", f.post_renderer_args,
                 "An argument of the post-renderer (repeatable)")
      ->allow_extra_args(false);
  cmd.add_option("-l,--labels", f.labels, "Release labels k=v,... (checked, not printed)")
      ->allow_extra_args(false);
  cmd.add_flag("--dry-run{client}", f.dry_run, "client (the default) or true");
  cmd.add_option("--timeout", f.timeout, "Accepted (a Go duration); nothing waits");
  cmd.add_flag("--validate", f.validate, "Needs a cluster: refused");
  cmd.add_flag("--enable-dns", f.enable_dns, "Needs the network: refused");
  for (const char* name :
       {"--description", "--wait", "--wait-for-jobs", "--atomic", "--force", "--replace",
        "--create-namespace", "--disable-openapi-validation", "--render-subchart-notes",
        "--hide-notes", "--take-ownership", "--skip-crds", "--devel"}) {
    if (std::string_view(name) == "--description")
      cmd.add_option(name, f.description, "Accepted; changes nothing printed");
    else
      cmd.add_flag(name, f.no_op, "Accepted; changes nothing helm template prints");
  }
}

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
  add_helm_flags(*cmd, *flags);
  cmd->callback([flags] { run_template(*flags); });
}

}  // namespace ejob::cli
