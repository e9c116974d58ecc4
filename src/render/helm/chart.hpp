#pragma once
/// A Helm chart in memory and the loader that reads one from a directory (Helm's
/// pkg/chart/loader, helm-template.md §5 step 1). The loader is the only part of the render
/// pipeline that touches the disk.
///
/// Files are classified by their path relative to the chart root: `Chart.yaml` (metadata),
/// `values.yaml` (default values), `values.schema.json`, `Chart.lock`, `requirements.yaml`/
/// `requirements.lock`, `templates/**` (templates, any extension), `charts/<dir>` or
/// `charts/<name>.tgz` (subcharts, directories or packaged archives read by archive.hpp;
/// names starting with `_` or `.` skipped) and everything else (Files). `.helmignore` rules
/// (gitignore-like, Helm's dialect) and the default rule `templates/.?*` drop files first.

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/render/go/value.hpp"
#include "src/render/helm/glob.hpp"
#include "src/util/once.hpp"

namespace ejob::render::helm {

/// A file of a chart directory, read when first asked for: a chart's files that nothing reads
/// (a changelog, CRDs without --include-crds, files no template names) then cost neither the
/// read nor the memory — the CRD subcharts of opentelemetry-kube-stack are 2.4 MB. The loader
/// checks each is readable when it walks the chart, as Helm reads it then.
class DeferredFile {
 public:
  explicit DeferredFile(std::filesystem::path path) : m_path(std::move(path)) {}
  /// The file's bytes (a UTF-8 BOM dropped, as Helm does); throws ejob::Error (Io) when it
  /// can no longer be read.
  const std::string& text() const;

 private:
  std::filesystem::path m_path;
  mutable Once m_once;
  mutable std::string m_text;
};

/// One file of a chart: path relative to the chart root (`/`-separated) and its bytes, held
/// (archives, embedded charts) or read when first needed (directories).
struct ChartFile {
  std::string name;
  std::string data;  ///< the bytes, unless `deferred` reads them
  std::shared_ptr<const DeferredFile> deferred;

  [[nodiscard]] const std::string& text() const { return deferred ? deferred->text() : data; }
};

/// A chart's templates or its other files, in load order. They never change once loaded, and
/// the copies clone_tree makes share them: rendering copies none of their text.
using ChartFiles = std::shared_ptr<const std::vector<ChartFile>>;

/// A chart maintainer (Chart.yaml `maintainers`).
struct Maintainer {
  std::string name;
  std::string email;
  std::string url;
};

/// A declared dependency (Chart.yaml `dependencies`, or requirements.yaml for apiVersion v1).
struct Dependency {
  std::string name;
  std::string version;
  std::string repository;
  std::string condition;
  std::vector<std::string> tags;
  bool enabled = false;
  go::List import_values;  ///< strings or {child, parent} maps, as written
  std::string alias;
};

/// Chart.yaml. String fields are read the way sigs.k8s.io/yaml fills Go string fields:
/// unquoted numbers become their shortest float32 form (`1.10` → `1.1`), booleans `true`.
struct ChartMetadata {
  std::string name;
  std::string home;
  std::vector<std::string> sources;
  std::string version;
  std::string description;
  std::vector<std::string> keywords;
  std::vector<Maintainer> maintainers;
  std::string icon;
  std::string api_version;
  std::string condition;
  std::string tags;
  std::string app_version;
  bool deprecated = false;
  std::map<std::string, std::string> annotations;
  std::string kube_version;
  std::vector<Dependency> dependencies;
  bool has_dependencies = false;  ///< Go's `Dependencies != nil`
  std::string type;
};

/// A loaded chart and its subcharts. `parent` is set for subcharts (alias copies share it).
struct Chart {
  ChartMetadata metadata;
  go::Value values = go::Value::map();  ///< values.yaml as map[string]interface {}
  /// values.schema.json text (shared by clone_tree's copies, as the files are)
  std::shared_ptr<const std::string> schema = std::make_shared<const std::string>();
  bool has_schema = false;  ///< values.schema.json exists (Helm validates even an empty one)
  ChartFiles templates = std::make_shared<const std::vector<ChartFile>>();
  ChartFiles files = std::make_shared<const std::vector<ChartFile>>();
  std::vector<std::shared_ptr<Chart>> dependencies;
  const Chart* parent = nullptr;
  /// Subcharts that dependency processing replaced (by alias copies) or dropped (disabled):
  /// the subcharts they share with their copies still name them as `parent`, as Go's
  /// pointers keep them alive, so they live as long as this chart.
  std::vector<std::shared_ptr<Chart>> replaced;
  std::string source_dir;  ///< where it was loaded from (for error locations)

  [[nodiscard]] const std::string& name() const { return metadata.name; }
  [[nodiscard]] bool is_root() const { return parent == nullptr; }
  /// Helm's ChartFullPath: `parent/charts/sub` for subcharts, the name for the root.
  [[nodiscard]] std::string full_path() const;
  /// A copy of this chart tree whose subcharts are copies too (values, files, templates and
  /// schema shared read-only), so dependency processing can rename and drop subcharts freely.
  [[nodiscard]] std::shared_ptr<Chart> clone_tree(const Chart* new_parent = nullptr) const;
};

using ChartPtr = std::shared_ptr<Chart>;

/// Loads the chart in `dir` and its subcharts. Throws ejob::Error(Input) with Helm's message
/// (`Chart.yaml file is missing`, `validation: chart.metadata.name is required`, `error
/// unpacking subchart sub in parent: …`) and, for YAML errors, the file and line.
ChartPtr load_chart(const std::filesystem::path& dir);

/// Loads a chart from its files (paths relative to the chart root), as LoadFiles does.
/// `origin` names the chart in error locations.
ChartPtr load_chart_files(std::vector<ChartFile> files, const std::string& origin);

/// .helmignore rules: `#` comments, `!` negation, trailing `/` for directories only, a
/// leading `/` anchors at the root, patterns without `/` match the base name; `**` refused.
class IgnoreRules {
 public:
  /// Parses the rule text; throws ejob::Error(Input) on `**` or a malformed pattern.
  static IgnoreRules parse(std::string_view text);
  /// Appends Helm's default rule `templates/.?*` (hidden files in templates/).
  void add_defaults();
  /// True if `path` (relative, `/`-separated) is ignored.
  [[nodiscard]] bool ignore(const std::string& path, bool is_dir) const;

 private:
  struct Pattern {
    FilepathPattern rule;
    bool negate = false;
    bool must_dir = false;
    enum class Scope { Root, Path, Base } scope = Scope::Base;
  };
  std::vector<Pattern> m_patterns;
};

}  // namespace ejob::render::helm
