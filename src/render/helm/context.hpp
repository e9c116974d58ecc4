#pragma once
/// The objects a template reaches from `.` besides `.Values` (helm-template.md §3, Helm's
/// pkg/engine recAllTpls and pkg/chartutil capabilities.go):
/// - `.Chart`: Chart.yaml's fields under their Go names (Name, Version, AppVersion,
///   Annotations, Dependencies, …) plus IsRoot;
/// - `.Capabilities`: KubeVersion {Version, Major, Minor; String, GitVersion}, APIVersions
///   (client-go's built-in group/versions; method Has), HelmVersion;
/// - `.Files`: the chart's non-special files (map path → []byte) with Get, GetBytes, Glob,
///   Lines, AsConfig, AsSecrets;
/// - `.Release`: a plain map {Name, Namespace, IsUpgrade, IsInstall, Revision, Service}.

#include <string>
#include <vector>

#include "src/render/go/value.hpp"
#include "src/render/helm/chart.hpp"

namespace ejob::render::helm {

/// Kubernetes version of `helm template` when --kube-version is not given (Helm v3.21 links
/// client-go 1.36).
inline constexpr const char* k_default_kube_version = "v1.36.0";

/// `.Capabilities.KubeVersion`.
struct KubeVersion {
  std::string version;  ///< `v1.36.0`
  std::string major;    ///< `1`
  std::string minor;    ///< `36`
};

/// Helm v3.21's ParseKubeVersion for --kube-version: apimachinery's ParseGeneric — optional
/// white space and `v`, two or more dot-separated numbers (the first without a leading zero),
/// anything after them ignored — written back as `v` + the numbers joined by dots (`1.30` →
/// `v1.30`, `v1.30.2-rc.1` → `v1.30.2`). Throws ejob::Error(Usage) `invalid kube version 'X':
/// REASON` with apimachinery's reason otherwise.
KubeVersion parse_kube_version(std::string_view text);

/// client-go's built-in group/versions (`v1`, `apps/v1`, …), as Helm's default capabilities.
const std::vector<std::string>& default_api_versions();

/// `.Capabilities.HelmVersion` of the Helm v3.21.4 release binary (docs/template.md says which
/// field cannot be known exactly).
struct HelmBuild {
  static constexpr const char* version = "v3.21.4";
  static constexpr const char* git_commit = "813176c51bb5c181dbbd7901298ddcc104cd3417";
  static constexpr const char* git_tree_state = "clean";
  static constexpr const char* go_version = "go1.26.6";
};

/// `.Capabilities` for `kube`: the default API versions followed by `extra_apis`
/// (--api-versions), as Helm appends them.
go::Value make_capabilities(const KubeVersion& kube,
                            const std::vector<std::string>& extra_apis = {});

/// `.Release` for `helm template`: install (or, with `is_upgrade`, upgrade) of revision 1 by
/// service `Helm`.
go::Value make_release(const std::string& name, const std::string& ns, bool is_upgrade = false);

/// `.Chart` for a chart: its metadata plus IsRoot.
go::Value make_chart_object(const Chart& chart);

/// `.Files` for a chart.
go::Value make_files(const ChartFiles& files);

}  // namespace ejob::render::helm
