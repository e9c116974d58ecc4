#pragma once
/// The whole `helm template` pipeline as one call (helm-template.md §5), each step a pure
/// function of the previous one's result:
///
///   user values (files, --set…) → load chart → checks (installable, dependencies present,
///   release name) → process dependencies → coalesce → schema → per-chart contexts →
///   parse + execute templates → drop NOTES.txt → sort manifests → print
///
/// Disk access goes through RenderIo so that tests can use fakes; only the chart loader reads
/// the chart directory itself.

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/render/helm/coalesce.hpp"
#include "src/render/helm/manifests.hpp"
#include "src/render/helm/schema.hpp"

namespace ejob::render::helm {

/// What `ejob template` was asked to do.
struct RenderOptions {
  std::filesystem::path chart_dir;
  std::string release_name = "release-name";
  std::string ns = "default";
  ValueSources values;
  std::string kube_version;               ///< empty: k_default_kube_version
  std::vector<std::string> api_versions;  ///< --api-versions: added to the default set
  std::vector<std::string> show_only;     ///< --show-only globs
  std::string output_dir;                 ///< --output-dir (empty: print)
  bool release_name_dir = false;          ///< --release-name: manifests under output_dir/RELEASE
  bool is_upgrade = false;                ///< --is-upgrade: .Release.IsUpgrade, not IsInstall
  bool include_crds = false;              ///< --include-crds: crds/ files printed first
  bool no_hooks = false;                  ///< --no-hooks: hooks not printed
  bool skip_tests = false;                ///< --skip-tests: test hooks not printed
  bool skip_schema_validation = false;    ///< --skip-schema-validation
  bool dependency_update = false;         ///< --dependency-update: missing dependencies are fetched
  std::vector<std::string> labels;        ///< --labels keys (release metadata; checked only)
  /// A chart already loaded (embedded, or by the job layer); replaces chart_dir. Dependency
  /// processing edits the chart tree: rendering edits this chart itself when the options hold
  /// its only reference (the caller handed it over), else a copy (clone_tree).
  ChartPtr chart;
  std::optional<go::Map> user_values;  ///< user values already merged; replaces `values`
};

/// The side effects the pipeline needs besides reading the chart.
struct RenderIo {
  ReadFile read;           ///< -f and --set-file paths (`-` = stdin)
  WriteFile write;         ///< --output-dir files
  FileExists exists;       ///< --output-dir hook appends
  Warn warn;               ///< Helm's log lines (stderr)
  PostRender post_render;  ///< --post-renderer (none: unset)
  FetchUrl fetch_url;      ///< http(s) documents a values.schema.json names (none: refused)
};

/// The pipeline up to the sorted manifests and hooks, without printing them: what `ejob
/// submit` sends. --show-only, --output-dir and the post-renderer do not apply; --no-hooks and
/// --skip-tests drop hooks here, --include-crds adds the CRD files.
SortedManifests render_manifests(RenderOptions options, const RenderIo& io);

/// The objects of rendered manifests, manifests then hooks in output order, each document
/// read as kubectl reads YAML (sigs.k8s.io/yaml: YAML 1.1 scalars); empty documents skipped.
/// Throws ejob::Error(Input) `YAML parse error on PATH: …` for a document that cannot be read
/// and `PATH: a document is not a Kubernetes object` for one that is not a mapping.
std::vector<go::Value> manifest_objects(const SortedManifests& sorted);

/// Runs the pipeline and returns exactly what `helm template NAME DIR …` prints on stdout.
/// Throws ejob::Error with Helm's message on the first failure; nothing is written to
/// --output-dir before rendering succeeded.
std::string render_chart(RenderOptions options, const RenderIo& io);

/// Rendered template outputs (name → text) of an already coalesced chart, NOTES.txt included:
/// the engine step alone. `values` is the coalesced map, `release` and `capabilities` the
/// context objects.
std::map<std::string, std::string> render_templates(const Chart& chart, const go::Map& values,
                                                    const go::Value& release,
                                                    const go::Value& capabilities);

/// Helm's ValidateReleaseName, with its error text.
void validate_release_name(const std::string& name);

/// Helm's action.TemplateName for --name-template: the template executed with no data. Throws
/// ejob::Error(Usage) on a parse or execution error.
std::string template_name(const std::string& name_template);

}  // namespace ejob::render::helm
