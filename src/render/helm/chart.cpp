#include "src/render/helm/chart.hpp"

#include <fmt/format.h>
#include <re2/re2.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <optional>

#include "src/render/go/fmt.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/helm/archive.hpp"
#include "src/render/helm/chart_metadata.hpp"
#include "src/render/helm/glob.hpp"
#include "src/render/yaml/load.hpp"
#include "src/util/error.hpp"
#include "src/util/file.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::GoType;
using go::Value;
using yaml::load_yaml;
namespace fs = std::filesystem;
namespace {

[[noreturn]] void fail_at(const std::string& message, Location where = {}) {
  throw Error(ErrorCode::Input, message, std::move(where));
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.starts_with(prefix); }

[[noreturn]] void cannot_read(const fs::path& p) {
  throw Error(ErrorCode::Io, "open " + p.string() + ": cannot read file");
}

std::string read_file(const fs::path& p) {
  std::optional<std::string> data = read_whole_file(p);
  if (!data) cannot_read(p);
  if (starts_with(*data, "\xEF\xBB\xBF")) data->erase(0, 3);  // Helm drops a UTF-8 BOM
  return std::move(*data);
}

/// Fails when the symbolic link `path` in the chart at `top` leads outside the chart. Helm's
/// sympath.Walk reads what such a link names, anywhere (with a warning); ejob does not, so that
/// a chart's templates see nothing but the chart (docs/reliability.md, "Security").
void refuse_link_out(const fs::path& top, const std::string& path) {
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(top, ec);
  const fs::path target = fs::weakly_canonical(top / path, ec);
  if (std::mismatch(root.begin(), root.end(), target.begin(), target.end()).first == root.end())
    return;
  fail_at("chart file " + path + " is a symbolic link to " + target.string() +
          ", outside the chart " + root.string() + ": ejob loads no file from outside the chart");
}

/// A directory's entries by name, in lexical order. Each keeps the type the directory read gave
/// it (d_type): a chart's files then cost no stat call each, but for symbolic links.
std::vector<std::pair<std::string, fs::directory_entry>> sorted_entries(const fs::path& dir) {
  std::vector<std::pair<std::string, fs::directory_entry>> entries;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    entries.emplace_back(entry.path().filename().native(), entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  return entries;
}

/// The type of what an entry names, a symbolic link followed: a directory, a regular file or
/// something else (file_type::unknown).
fs::file_type followed_type(const fs::directory_entry& entry) {
  std::error_code ec;
  fs::file_type type = fs::file_type::unknown;
  if (entry.is_directory(ec)) {
    type = fs::file_type::directory;
  } else if (!ec && entry.is_regular_file(ec)) {
    type = fs::file_type::regular;
  }
  if (ec) fail_at("stat " + entry.path().string() + ": " + ec.message());
  return type;
}

/// filepath.Walk in lexical order, following symbolic links within the chart (Helm's
/// sympath.Walk follows them anywhere).
void walk(const fs::path& top, const std::string& rel, const IgnoreRules& rules,
          std::vector<ChartFile>& out) {
  for (const auto& [name, entry] : sorted_entries(top / rel)) {
    std::string path = rel.empty() ? name : rel + "/" + name;
    const fs::file_type type = followed_type(entry);
    std::error_code ec;
    if (entry.is_symlink(ec)) refuse_link_out(top, path);
    if (type == fs::file_type::directory) {
      if (!rules.ignore(path, true)) walk(top, path, rules, out);
      continue;
    }
    if (rules.ignore(path, false)) continue;
    const fs::path& full = entry.path();
    if (type != fs::file_type::regular)
      fail_at("cannot load irregular file " + full.string() + " as it has file mode type bits set");
    if (::access(full.c_str(), R_OK) != 0) cannot_read(full);
    out.push_back({path, {}, std::make_shared<const DeferredFile>(full)});
  }
}

/// Files below `charts/<name>/` grouped by subchart name, prefix removed.
using SubchartFiles = std::map<std::string, std::vector<ChartFile>>;

void load_subcharts(Chart& c, SubchartFiles subcharts) {
  for (auto& [name, files] : subcharts) {
    if (name.empty() || name[0] == '_' || name[0] == '.') continue;
    std::string where = fmt::format("error unpacking subchart {} in {}: ", name, c.name());
    bool archive = name.size() > 4 && name.ends_with(".tgz");  // filepath.Ext(n) == ".tgz"
    if (archive && files.front().name != name)
      fail_at(fmt::format("error unpacking subchart tar in {}: expected {}, got {}", c.name(), name,
                          files.front().name));
    std::vector<ChartFile> inner;
    for (ChartFile& f : files) {
      size_t slash = f.name.find('/');
      if (archive || slash == std::string::npos) continue;
      inner.push_back({f.name.substr(slash + 1), std::move(f.data), std::move(f.deferred)});
    }
    ChartPtr sub;
    try {
      if (archive) inner = load_archive_files(files.front().text());
      sub = load_chart_files(std::move(inner), c.source_dir + "/charts/" + name);
    } catch (const Error& e) {
      throw Error(e.code(), where + e.message(), e.where());
    }
    sub->parent = &c;
    c.dependencies.push_back(std::move(sub));
  }
}

Value load_values_file(const ChartFile& f, const std::string& origin) {
  Value v;
  try {
    v = load_yaml(f.text(), origin + "/" + f.name);
  } catch (const Error& e) {
    throw Error(ErrorCode::Input, "cannot load values.yaml: " + e.message(), e.where());
  }
  if (v.is_nil()) return Value::map();
  if (v.type() != GoType::MapAny)
    fail_at(
        "cannot load values.yaml: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal " +
            json_kind_name(v) + " into Go value of type map[string]interface {}",
        {origin + "/values.yaml"});
  return v;
}

}  // namespace

std::string Chart::full_path() const {
  if (is_root()) return name();
  return parent->full_path() + "/charts/" + name();
}

const std::string& DeferredFile::text() const {
  // read_file's error leaves the flag unset: a later call tries again, and fails the same way
  m_once.run([&] { m_text = read_file(m_path); });
  return m_text;
}

std::shared_ptr<Chart> Chart::clone_tree(const Chart* new_parent) const {
  auto copy = std::make_shared<Chart>(*this);
  copy->parent = new_parent;
  copy->replaced.clear();  // the copies below get parent links of their own
  for (auto& dep : copy->dependencies) dep = dep->clone_tree(copy.get());
  return copy;
}

ChartPtr load_chart_files(std::vector<ChartFile> files, const std::string& origin) {
  auto c = std::make_shared<Chart>();
  c->source_dir = origin;
  bool have_metadata = false;
  SubchartFiles subcharts;
  // Helm keeps a chart's other files in load order (walk or tar order): crds/ prints in it.
  std::map<std::string, size_t> load_order;
  for (size_t i = 0; i < files.size(); ++i) load_order.emplace(files[i].name, i);
  std::sort(files.begin(), files.end(),
            [](const ChartFile& a, const ChartFile& b) { return a.name < b.name; });
  std::vector<ChartFile> templates;
  std::vector<ChartFile> others;
  for (ChartFile& f : files) {
    const std::string& n = f.name;
    if (n == "Chart.yaml") {
      read_metadata(f.text(), origin + "/Chart.yaml", "Chart.yaml", c->metadata);
      if (c->metadata.api_version.empty()) c->metadata.api_version = "v1";
      have_metadata = true;
    } else if (n == "values.yaml") {
      c->values = load_values_file(f, origin);
    } else if (n == "values.schema.json") {
      c->schema = std::make_shared<const std::string>(f.deferred ? f.text() : std::move(f.data));
      c->has_schema = true;
    } else if (n == "Chart.lock" || n == "requirements.lock") {
      if (n == "requirements.lock" && c->metadata.api_version == "v1") others.push_back(f);
    } else if (n == "requirements.yaml") {
      read_metadata(f.text(), origin + "/requirements.yaml", "requirements.yaml", c->metadata);
      if (c->metadata.api_version == "v1") others.push_back(std::move(f));
    } else if (starts_with(n, "templates/")) {
      templates.push_back(std::move(f));
    } else if (starts_with(n, "charts/") && !n.ends_with(".prov")) {
      std::string rest = n.substr(7);
      std::string sub = rest.substr(0, rest.find('/'));
      subcharts[sub].push_back({rest, std::move(f.data), std::move(f.deferred)});
    } else {
      others.push_back(std::move(f));
    }
  }
  std::stable_sort(others.begin(), others.end(), [&](const ChartFile& a, const ChartFile& b) {
    return load_order[a.name] < load_order[b.name];
  });
  c->templates = std::make_shared<const std::vector<ChartFile>>(std::move(templates));
  c->files = std::make_shared<const std::vector<ChartFile>>(std::move(others));
  if (!have_metadata) fail_at("Chart.yaml file is missing", {origin + "/Chart.yaml"});
  validate_metadata(c->metadata, origin + "/Chart.yaml");
  load_subcharts(*c, std::move(subcharts));
  return c;
}

ChartPtr load_chart(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) fail_at("stat " + dir.string() + ": no such file or directory");
  if (!fs::is_directory(dir, ec))
    fail_at(fmt::format("{} is not a chart directory; ejob loads charts from directories",
                        go_quote(dir.string())));
  IgnoreRules rules;
  if (fs::exists(dir / ".helmignore", ec)) {
    try {
      rules = IgnoreRules::parse(read_file(dir / ".helmignore"));
    } catch (const Error& e) {
      throw Error(e.code(), e.message(), {(dir / ".helmignore").string()});
    }
  }
  rules.add_defaults();
  std::vector<ChartFile> files;
  walk(dir, "", rules, files);
  std::string origin = dir.lexically_normal().string();
  if (origin.size() > 1 && origin.ends_with('/')) origin.pop_back();
  return load_chart_files(std::move(files), origin);
}

// ---- .helmignore ------------------------------------------------------------------------

IgnoreRules IgnoreRules::parse(std::string_view text) {
  IgnoreRules rules;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
    std::string rule = go::unicode::trim_space(line);
    if (rule.empty() || rule[0] == '#') continue;
    if (rule.find("**") != std::string::npos) fail_at("double-star (**) syntax is not supported");
    filepath_match(rule, "abc");  // throws on a malformed pattern, as Helm checks
    const bool negate = rule[0] == '!';
    if (negate) rule.erase(0, 1);
    const bool must_dir = !rule.empty() && rule.back() == '/';
    if (must_dir) rule.pop_back();
    auto scope = Pattern::Scope::Base;
    if (!rule.empty() && rule[0] == '/') {
      scope = Pattern::Scope::Root;
      rule.erase(0, 1);
    } else if (rule.find('/') != std::string::npos) {
      scope = Pattern::Scope::Path;
    }
    rules.m_patterns.push_back({FilepathPattern(std::move(rule)), negate, must_dir, scope});
  }
  return rules;
}

void IgnoreRules::add_defaults() {
  m_patterns.push_back({FilepathPattern("templates/.?*"), false, false, Pattern::Scope::Path});
}

bool IgnoreRules::ignore(const std::string& path, bool is_dir) const {
  if (path.empty() || path == "." || path == "./") return false;
  const std::string_view whole = path;
  const std::string_view base = whole.substr(whole.rfind('/') + 1);
  for (const Pattern& p : m_patterns) {
    const std::string_view subject = p.scope == Pattern::Scope::Base ? base : whole;
    if (p.must_dir && !is_dir) {
      if (p.negate) return true;  // Helm's negation: what the rule does not match is ignored
      continue;
    }
    bool matched = false;
    try {
      matched = p.rule.matches(subject);
    } catch (const Error&) {
      matched = false;  // Helm logs and treats a bad pattern as no match
    }
    if (matched != p.negate) return true;
  }
  return false;
}

}  // namespace ejob::render::helm
