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

#include "ejob/go/value.hpp"
#include "ejob/helm/chart.hpp"

namespace ejob::render {

/// Kubernetes version of `helm template` when --kube-version is not given (Helm v3.21 links
/// client-go 1.36).
inline constexpr const char* k_default_kube_version = "v1.36.0";

/// `.Capabilities.KubeVersion`.
struct KubeVersion {
  std::string version;  ///< `v1.36.0`
  std::string major;    ///< `1`
  std::string minor;    ///< `36`
};

/// Helm's ParseKubeVersion for --kube-version (`1.30`, `v1.30.2`, `1.30.0-rc.1`): semver-ish,
/// written back as `v` + MAJOR.MINOR.PATCH[-PRE][+META]. Throws ejob::Error(Usage)
/// `invalid kube version "X"` otherwise.
KubeVersion parse_kube_version(std::string_view text);

/// client-go's built-in group/versions (`v1`, `apps/v1`, …), as Helm's default capabilities.
const std::vector<std::string>& default_api_versions();

/// `.Capabilities` for `kube`.
Value make_capabilities(const KubeVersion& kube);

/// `.Release` for `helm template`: install of revision 1 by service `Helm`.
Value make_release(const std::string& name, const std::string& ns);

/// `.Chart` for a chart: its metadata plus IsRoot.
Value make_chart_object(const Chart& chart);

/// `.Files` for a chart.
Value make_files(const std::vector<ChartFile>& files);

}  // namespace ejob::render
