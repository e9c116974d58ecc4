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

#include "ejob/helm/coalesce.hpp"
#include "ejob/helm/manifests.hpp"

namespace ejob::render {

/// What `ejob template` was asked to do.
struct RenderOptions {
  std::filesystem::path chart_dir;
  std::string release_name = "release-name";
  std::string ns = "default";
  ValueSources values;
  std::string kube_version;            ///< empty: k_default_kube_version
  std::vector<std::string> show_only;  ///< --show-only globs
  std::string output_dir;              ///< --output-dir (empty: print)
  ChartPtr chart;                      ///< a chart already loaded (embedded); replaces chart_dir
  std::optional<Map> user_values;      ///< user values already merged; replaces `values`
};

/// The side effects the pipeline needs besides reading the chart.
struct RenderIo {
  ReadFile read;      ///< -f and --set-file paths (`-` = stdin)
  WriteFile write;    ///< --output-dir files
  FileExists exists;  ///< --output-dir hook appends
  Warn warn;          ///< Helm's log lines (stderr)
};

/// The pipeline up to the sorted manifests and hooks, without printing them: what `ejob
/// submit` sends. --show-only and --output-dir do not apply.
SortedManifests render_manifests(const RenderOptions& options, const RenderIo& io);

/// The objects of rendered manifests, manifests then hooks in output order, each document
/// read as kubectl reads YAML (sigs.k8s.io/yaml: YAML 1.1 scalars); empty documents skipped.
/// Throws ejob::Error(Input) `YAML parse error on PATH: …` for a document that cannot be read
/// and `PATH: a document is not a Kubernetes object` for one that is not a mapping.
std::vector<Value> manifest_objects(const SortedManifests& sorted);

/// Runs the pipeline and returns exactly what `helm template NAME DIR …` prints on stdout.
/// Throws ejob::Error with Helm's message on the first failure; nothing is written to
/// --output-dir before rendering succeeded.
std::string render_chart(const RenderOptions& options, const RenderIo& io);

/// Rendered template outputs (name → text) of an already coalesced chart, NOTES.txt included:
/// the engine step alone. `values` is the coalesced map, `release` and `capabilities` the
/// context objects.
std::map<std::string, std::string> render_templates(const Chart& chart, const Map& values,
                                                    const Value& release,
                                                    const Value& capabilities);

/// Helm's ValidateReleaseName, with its error text.
void validate_release_name(const std::string& name);

}  // namespace ejob::render
