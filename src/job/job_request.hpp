#pragma once
/// One job, from the command line to the values the chart renders — the single path both
/// `ejob template` and `ejob submit` take (and `ejob values` prints):
///
///   chart defaults < team config < JOBFILE < -f files (left to right) < --set* (Helm's order
///                  by kind) < the job flags (--image, --gpus, --workers, ...)
///
/// then spot presets expanded (`spot.provider`), unknown keys refused per source with a
/// did-you-mean, and the job name chosen (unique suffix unless --exact-name) within its
/// length budget. Without --chart the chart is the default one (the embedded elasticjob chart,
/// which cli/ passes in) and the namespace defaults to `elastic-job`.

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "src/job/job_flags.hpp"
#include "src/job/value_locator.hpp"
#include "src/kubeapi/client.hpp"
#include "src/render/go/value.hpp"
#include "src/render/helm/chart.hpp"
#include "src/render/helm/coalesce.hpp"
#include "src/render/helm/render_chart.hpp"

namespace ejob::job {

/// Namespace of a job when neither -n nor --chart is given.
inline constexpr std::string_view k_job_namespace = "elastic-job";

/// Everything the command line says about one job.
struct JobRequest {
  std::optional<std::string> job_file;  ///< positional JOBFILE
  render::helm::ValueSources sources;   ///< -f and --set* (job file not included)
  JobFlags flags;                       ///< the job flags and `-- SCRIPT ARGS`
  std::string name;         ///< --name ("" = a job's script base name, else `release-name`)
  bool exact_name = false;  ///< --exact-name
  std::string chart_dir;    ///< --chart ("" = the embedded elasticjob chart)
  std::string name_space;   ///< -n ("" = default)
  /// The job runs on this machine (`submit --local`, `--context local`): `backend: local` is
  /// written over the values (where the chart has that key), and no worker image is needed.
  bool local = false;
  /// Arguments after the script's own (a sweep's hyperparameters, `--lr=0.1`).
  std::vector<std::string> extra_script_args;
  /// The team config (team_config.hpp) applies: its values under the job's, its namespace,
  /// registry and storage account. cli/ turns it on; tests of this layer leave it off.
  bool team_config = false;
  /// The name's suffix follows from the inputs (`template`: same inputs, same bytes, as `helm
  /// template`); a submit draws a fresh one.
  bool reproducible_name = false;
};

/// The resolved job: chart, user values (what `ejob values` prints), name and namespace.
struct Job {
  render::helm::ChartPtr chart;
  render::go::Map values;
  std::string name;
  std::string name_space;
  /// Job mode: where each value was written, to point a schema failure at it.
  std::shared_ptr<const ValueLocator> locator;
};

/// True when the request is about a job — no --chart (the embedded elasticjob chart), a
/// JOBFILE, or a job flag — rather than a plain `helm template` of some chart. Only jobs get the
/// did-you-mean key check, spot expansion and the script-based default name.
bool is_job_request(const JobRequest& request);

/// The chart of a job without --chart (the ejob executable's embedded elasticjob chart).
using DefaultChart = std::function<render::helm::ChartPtr()>;

/// Resolves a request (see the file comment). `read` reads files named on the command line.
/// Throws ejob::Error: Usage for bad flags and names, Input for bad values, Io for unreadable
/// files.
Job resolve_job(const JobRequest& request, const render::helm::ReadFile& read,
                const DefaultChart& default_chart);

/// The render options of a resolved job (chart, user values, release name, namespace); the
/// caller may add --kube-version, --show-only and --output-dir.
render::helm::RenderOptions job_render_options(const Job& job);

/// Renders a job's manifests exactly as `helm template` prints them (what `ejob template`
/// prints and `ejob submit --dry-run=client` shows). Throws ejob::Error like render_chart.
std::string render_job(const Job& job, const render::helm::RenderIo& io);

/// A rendered object as the API client sends it: Go's JSON encoding of the value, so numbers
/// and booleans come out as Helm and kubectl send them.
kubeapi::Json api_object(const render::go::Value& object);

/// Renders a job's objects as data (render::render_manifests + manifest_objects), in the
/// order `ejob template` prints them: what `ejob submit` sends. Throws ejob::Error like
/// render_chart.
std::vector<kubeapi::Json> render_job_objects(const Job& job, const render::helm::RenderIo& io);

}  // namespace ejob::job
