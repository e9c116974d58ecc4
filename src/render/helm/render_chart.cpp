#include "src/render/helm/render_chart.hpp"

#include <algorithm>

#include "src/render/go/fmt.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/helm/archive.hpp"
#include "src/render/helm/context.hpp"
#include "src/render/helm/engine.hpp"
#include "src/render/helm/schema.hpp"
#include "src/render/sprig/semver.hpp"
#include "src/render/yaml/load.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::GoType;
using go::Map;
using go::Value;
using yaml::try_load_yaml;
using yaml::YamlDecoded;

namespace {

/// One template to execute and the chart context it runs in.
struct TemplateJob {
  std::string name;       ///< `chart/templates/x.yaml`
  std::string base_path;  ///< `chart/templates`
  Value context;          ///< the chart's shared context map
};

bool is_partial(std::string_view name) {
  size_t slash = name.rfind('/');
  return name.substr(slash == std::string_view::npos ? 0 : slash + 1).starts_with('_');
}

/// Helm's recAllTpls: the context map of `c` (and of its subcharts, under .Subcharts), and
/// its templates appended to `sources`/`jobs`.
Value build_context(const Chart& c, const Value& parent_values, const Value& release,
                    const Value& capabilities, std::vector<TemplateSource>& sources,
                    std::vector<TemplateJob>& jobs) {
  Value values = Value::map(Map{}, GoType::Values);
  if (c.is_root()) {
    values = parent_values;
  } else if (auto it = parent_values.as_map().find(c.name());
             it != parent_values.as_map().end() && it->second.is_map()) {
    values = Value::map(it->second.map_ptr(), GoType::Values);  // shared, as Values.Table
  }
  Value subcharts = Value::map();
  Value next = Value::map({{"Chart", make_chart_object(c)},
                           {"Files", make_files(c.files)},
                           {"Release", release},
                           {"Capabilities", capabilities},
                           {"Values", values},
                           {"Subcharts", subcharts}});
  for (const ChartPtr& child : c.dependencies)
    subcharts.mutable_map().insert_or_assign(
        child->name(), build_context(*child, values, release, capabilities, sources, jobs));
  std::string parent_id = c.full_path();
  bool library = c.metadata.type == "library";
  for (const ChartFile& t : *c.templates) {
    if (library && !is_partial(t.name)) continue;
    std::string name = parent_id + "/" + t.name;
    sources.push_back({name, t.text()});
    jobs.push_back({name, parent_id + "/templates", next});
  }
  return next;
}

/// Helm's CheckDependencies: every declared dependency must be in charts/. With
/// --dependency-update Helm would download the missing ones; ejob does not reach the network.
void check_dependencies(const Chart& chart, bool dependency_update) {
  std::string missing;
  for (const Dependency& d : chart.metadata.dependencies) {
    bool found = false;
    for (const ChartPtr& sub : chart.dependencies) found = found || sub->name() == d.name;
    if (!found) missing += (missing.empty() ? "" : ", ") + d.name;
  }
  if (!missing.empty() && dependency_update)
    throw Error(ErrorCode::Usage,
                "--dependency-update: the chart's dependencies " + missing +
                    " are missing in charts/ and ejob does not download charts: run `helm "
                    "dependency update` (or `helm dependency build`) first");
  if (!missing.empty())
    throw Error(ErrorCode::Input,
                "An error occurred while checking for chart dependencies. You may need to run "
                "`helm dependency build` to fetch missing dependencies: found in Chart.yaml, but "
                "missing in charts/ directory: " +
                    missing);
}

void check_kube_version(const Chart& chart, const KubeVersion& kube) {
  const std::string& want = chart.metadata.kube_version;
  if (want.empty() || is_compatible_range(want, kube.version)) return;
  throw Error(ErrorCode::Input, "chart requires kubeVersion: " + want +
                                    " which is incompatible with Kubernetes " + kube.version);
}

/// Helm's chart.CRDObjects: each crds/*.{yaml,yml,json} file (any case) of the chart, in load
/// order, then its (enabled) subcharts', path joined to the chart's full path.
void collect_crds(const Chart& c, std::vector<Manifest>& out) {
  for (const ChartFile& f : *c.files) {
    if (!f.name.starts_with("crds/")) continue;
    std::string base = f.name.substr(f.name.rfind('/') + 1);
    size_t dot = base.rfind('.');
    std::string ext = dot == std::string::npos ? "" : base.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char ch) { return std::tolower(ch); });
    if (ext == ".yaml" || ext == ".yml" || ext == ".json")
      out.push_back({clean_path(c.full_path() + "/" + f.name), f.text(), ""});
  }
  for (const ChartPtr& sub : c.dependencies) collect_crds(*sub, out);
}

/// What `helm template` prints after rendering; the output-dir files written first.
std::string print(const SortedManifests& sorted, const RenderOptions& options, const RenderIo& io) {
  std::string text;
  std::string log;
  if (options.output_dir.empty()) {
    text = format_manifests(sorted, io.post_render);
  } else {
    OutputDir dir{options.output_dir, options.output_dir};
    if (options.release_name_dir)
      dir.release_dir = clean_path(options.output_dir + "/" + options.release_name);
    log = write_output_dir(sorted, dir, io.write, io.exists);
    // The post-renderer still runs, on the empty manifest text; what it prints is printed.
    text = go::unicode::trim_space(io.post_render ? io.post_render("") : std::string()) + "\n";
  }
  // With --output-dir the text holds no `# Source:` line, so every --show-only fails.
  if (!options.show_only.empty()) text = show_only(text, options.show_only);
  if (log.empty()) return text;
  return log + text;
}

/// Helm's check of --labels: the release's own label names are reserved.
void check_labels(const std::vector<std::string>& keys) {
  static constexpr std::string_view k_system[] = {"name",    "owner",     "status",
                                                  "version", "createdAt", "modifiedAt"};
  for (const std::string& k : keys)
    if (std::find(std::begin(k_system), std::end(k_system), k) != std::end(k_system))
      throw Error(ErrorCode::Usage,
                  "user supplied labels contains system reserved label name. System labels: "
                  "[name owner status version createdAt modifiedAt]");
}

/// Full match of [a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*: labels of
/// lower-case letters, digits and '-', separated by single dots, each starting and ending with
/// a letter or digit.
bool is_dns1123_subdomain(std::string_view name) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  size_t start = 0;
  while (true) {
    size_t dot = name.find('.', start);
    std::string_view label = name.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty() || !alnum(label.front()) || !alnum(label.back())) return false;
    for (char c : label)
      if (!alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

}  // namespace

void validate_release_name(const std::string& name) {
  if (name.empty()) throw Error(ErrorCode::Usage, "release name \"\": no name provided");
  if (name.size() > 53 || !is_dns1123_subdomain(name))
    throw Error(ErrorCode::Usage,
                "release name " + go_quote(name) +
                    ": invalid release name, must match regex "
                    R"(^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)"
                    " and the length must not be longer than 53");
}

std::string template_name(const std::string& name_template) {
  if (name_template.empty()) return "";
  try {
    Engine engine;
    engine.parse({{"name-template", name_template}});
    return engine.execute("name-template", Value{});
  } catch (const Error& e) {
    throw Error(ErrorCode::Usage, "--name-template: " + e.message());
  }
}

std::map<std::string, std::string> render_templates(const Chart& chart, const Map& values,
                                                    const Value& release,
                                                    const Value& capabilities) {
  std::vector<TemplateSource> sources;
  std::vector<TemplateJob> jobs;
  Value top = Value::map(values, GoType::Values);
  build_context(chart, top, release, capabilities, sources, jobs);
  Engine engine;
  engine.parse(std::move(sources));
  std::map<std::string, const TemplateJob*> by_name;
  for (const TemplateJob& j : jobs) by_name[j.name] = &j;
  std::map<std::string, std::string> rendered;
  for (const std::string& name : engine.names()) {
    auto it = by_name.find(name);
    if (it == by_name.end() || is_partial(name)) continue;
    const TemplateJob& job = *it->second;
    job.context.mutable_map().insert_or_assign(
        "Template",
        Value::map({{"Name", Value::string(job.name)}, {"BasePath", Value::string(job.base_path)}},
                   GoType::Values));
    rendered[name] = engine.execute(name, job.context);
  }
  return rendered;
}

namespace {

/// The chart tree to render: the options' own chart when nobody else holds it (moved out of
/// them), a copy when somebody might look at it after the render, or the chart loaded from
/// chart_dir.
ChartPtr chart_to_render(RenderOptions& options) {
  if (!options.chart) return load_chart(options.chart_dir);
  if (options.chart.use_count() == 1) return std::move(options.chart);
  return options.chart->clone_tree();
}

/// Drops every chart's values once the release's values are coalesced: nothing after reads
/// them, and on charts with subcharts they hold the coalesced copies dependency processing
/// made (processImportValues), as large as the release's values; rendering runs without them.
void release_chart_values(Chart& chart) {
  chart.values = Value();
  for (const ChartPtr& sub : chart.dependencies) release_chart_values(*sub);
  for (const ChartPtr& sub : chart.replaced) release_chart_values(*sub);
}

/// The pipeline from the user's values to the sorted manifests, over the chart tree to render.
SortedManifests render_loaded(ChartPtr chart, const RenderOptions& options, const RenderIo& io) {
  // cmd/helm/template.go parses --kube-version before anything else.
  KubeVersion kube = options.kube_version.empty() ? parse_kube_version(k_default_kube_version)
                                                  : parse_kube_version(options.kube_version);
  Map user =
      options.user_values ? *options.user_values : merge_user_values(options.values, io.read);
  if (!chart->metadata.type.empty() && chart->metadata.type != "application")
    throw Error(ErrorCode::Input, chart->metadata.type + " charts are not installable");
  if (chart->metadata.deprecated && io.warn) io.warn("WARNING: This chart is deprecated");
  if (chart->metadata.has_dependencies) check_dependencies(*chart, options.dependency_update);
  validate_release_name(options.release_name);
  process_dependencies(*chart, user, io.warn);
  Map values = coalesce_release_values(*chart, user, io.warn);
  if (!options.skip_schema_validation)
    validate_values(*chart, values, SchemaIo{io.fetch_url, io.warn});
  release_chart_values(*chart);
  check_labels(options.labels);
  check_kube_version(*chart, kube);
  std::map<std::string, std::string> files = render_templates(
      *chart, values, make_release(options.release_name, options.ns, options.is_upgrade),
      make_capabilities(kube, options.api_versions));
  std::erase_if(files, [](const auto& f) { return f.first.ends_with("NOTES.txt"); });
  SortedManifests sorted = sort_manifests(std::move(files), io.warn);
  if (options.include_crds) collect_crds(*chart, sorted.crds);
  if (options.no_hooks) sorted.hooks.clear();
  if (options.skip_tests)
    std::erase_if(sorted.hooks, [](const Manifest& h) { return h.test_hook; });
  return sorted;
}

}  // namespace

SortedManifests render_manifests(RenderOptions options, const RenderIo& io) {
  ChartPtr chart = chart_to_render(options);
  return render_loaded(std::move(chart), options, io);
}

std::string render_chart(RenderOptions options, const RenderIo& io) {
  ChartPtr chart = chart_to_render(options);
  return print(render_loaded(std::move(chart), options, io), options, io);
}

std::vector<Value> manifest_objects(const SortedManifests& sorted) {
  std::vector<Value> objects;
  for (const auto* list : {&sorted.manifests, &sorted.hooks})
    for (const Manifest& m : *list) {
      YamlDecoded d = try_load_yaml(m.content);
      if (!d.error.empty())
        throw Error(ErrorCode::Input, "YAML parse error on " + m.path + ": " + d.error);
      if (d.value.is_nil()) continue;
      if (!d.value.is_map())
        throw Error(ErrorCode::Input, m.path + ": a document is not a Kubernetes object");
      objects.push_back(std::move(d.value));
    }
  return objects;
}

}  // namespace ejob::render::helm
