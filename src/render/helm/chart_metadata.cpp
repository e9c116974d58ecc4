#include "src/render/helm/chart_metadata.hpp"

#include <fmt/format.h>

#include <cmath>
#include <functional>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/sprig/semver.hpp"
#include "src/render/yaml/load.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::format_float;
using go::go_quote;
using go::GoType;
using go::List;
using go::Value;
using sprig::SemverError;
using sprig::SemVersion;
using yaml::load_yaml;

namespace {

/// A json.Unmarshal type error, reported as sigs.k8s.io/yaml words it.
struct TypeError {
  std::string message;
};

[[noreturn]] void type_error(const Value& v, std::string_view field, std::string_view go_type) {
  throw TypeError{fmt::format("json: cannot unmarshal {} into Go struct field {} of type {}",
                              json_kind_name(v), field, go_type)};
}

/// A scalar as sigs.k8s.io/yaml writes it into a Go string field.
void to_string_field(const Value& v, std::string_view field, std::string& out) {
  switch (v.type()) {
    case GoType::Nil: return;  // JSON null leaves the field alone
    case GoType::String: out = v.as_string(); return;
    case GoType::Bool: out = v.as_bool() ? "true" : "false"; return;
    case GoType::Float64: {
      double f = v.as_float();
      // YAML integers arrive as float64 here; sigs yaml prints them with Itoa.
      if (f == std::floor(f) && std::fabs(f) < 9007199254740992.0)
        out = fmt::format("{}", static_cast<int64_t>(f));
      else
        out = format_float(f, 'g', -1, 32);
      return;
    }
    default: type_error(v, field, "string");
  }
}

void to_bool_field(const Value& v, std::string_view field, bool& out) {
  if (v.is_nil()) return;
  if (!v.is_bool()) type_error(v, field, "bool");
  out = v.as_bool();
}

void to_string_list(const Value& v, std::string_view field, std::vector<std::string>& out) {
  if (v.is_nil()) {
    out.clear();
    return;
  }
  if (!v.is_list()) type_error(v, field, "[]string");
  out.clear();
  for (const Value& item : v.as_list()) to_string_field(item, field, out.emplace_back());
}

/// Calls `set(field, value)` for each key of map `v`, matching json tags case-insensitively.
using FieldSetter = std::function<void(std::string_view tag, const Value& v)>;

void for_fields(const Value& v, std::string_view type, std::initializer_list<std::string_view> tags,
                const FieldSetter& set) {
  if (v.is_nil()) return;
  if (v.type() != GoType::MapAny)
    throw TypeError{
        fmt::format("json: cannot unmarshal {} into Go value of type {}", json_kind_name(v), type)};
  for (const auto& [key, value] : v.as_map())
    for (std::string_view tag : tags)
      if (key == tag || go::equal_fold_ascii(key, tag)) {
        set(tag, value);
        break;
      }
}

Maintainer read_maintainer(const Value& v) {
  Maintainer m;
  for_fields(v, "chart.Maintainer", {"name", "email", "url"}, [&](auto tag, const Value& x) {
    std::string field = fmt::format("Maintainer.{}", tag);
    to_string_field(x, field, tag == "name" ? m.name : tag == "email" ? m.email : m.url);
  });
  return m;
}

Dependency read_dependency(const Value& v) {
  Dependency d;
  for_fields(
      v, "chart.Dependency",
      {"name", "version", "repository", "condition", "tags", "enabled", "import-values", "alias"},
      [&](std::string_view tag, const Value& x) {
        std::string field = fmt::format("Dependency.{}", tag);
        if (tag == "tags") return to_string_list(x, field, d.tags);
        if (tag == "enabled") return to_bool_field(x, field, d.enabled);
        if (tag == "import-values") {
          if (!x.is_nil() && !x.is_list()) type_error(x, field, "[]interface {}");
          d.import_values = x.is_nil() ? List{} : x.as_list();
          return;
        }
        std::string& s = tag == "name"         ? d.name
                         : tag == "version"    ? d.version
                         : tag == "repository" ? d.repository
                         : tag == "condition"  ? d.condition
                                               : d.alias;
        to_string_field(x, field, s);
      });
  return d;
}

void read_list_field(const Value& x, std::string_view tag, ChartMetadata& md) {
  std::string field = fmt::format("Metadata.{}", tag);
  if (tag == "sources") return to_string_list(x, field, md.sources);
  if (tag == "keywords") return to_string_list(x, field, md.keywords);
  if (!x.is_nil() && !x.is_list()) type_error(x, field, "[]*chart.Maintainer");
  if (tag == "maintainers") {
    md.maintainers.clear();
    if (x.is_list())
      for (const Value& item : x.as_list()) md.maintainers.push_back(read_maintainer(item));
    return;
  }
  md.dependencies.clear();
  md.has_dependencies = x.is_list();
  if (x.is_list())
    for (const Value& item : x.as_list()) md.dependencies.push_back(read_dependency(item));
}

void read_fields(const Value& doc, ChartMetadata& md) {
  for_fields(
      doc, "chart.Metadata",
      {"name", "home", "sources", "version", "description", "keywords", "maintainers", "icon",
       "apiVersion", "condition", "tags", "appVersion", "deprecated", "annotations", "kubeVersion",
       "dependencies", "type"},
      [&](std::string_view tag, const Value& x) {
        std::string field = fmt::format("Metadata.{}", tag);
        if (tag == "sources" || tag == "keywords" || tag == "maintainers" || tag == "dependencies")
          return read_list_field(x, tag, md);
        if (tag == "deprecated") return to_bool_field(x, field, md.deprecated);
        if (tag == "annotations") {
          if (x.is_nil()) return md.annotations.clear();
          if (x.type() != GoType::MapAny) type_error(x, field, "map[string]string");
          for (const auto& [k, item] : x.as_map()) to_string_field(item, field, md.annotations[k]);
          return;
        }
        std::string& s = tag == "name"          ? md.name
                         : tag == "home"        ? md.home
                         : tag == "version"     ? md.version
                         : tag == "description" ? md.description
                         : tag == "icon"        ? md.icon
                         : tag == "apiVersion"  ? md.api_version
                         : tag == "condition"   ? md.condition
                         : tag == "tags"        ? md.tags
                         : tag == "appVersion"  ? md.app_version
                         : tag == "kubeVersion" ? md.kube_version
                                                : md.type;
        to_string_field(x, field, s);
      });
}

/// Helm's sanitizeString: white space becomes a space, non-printable runes are dropped.
std::string sanitize(std::string_view s) {
  std::string out;
  while (!s.empty()) {
    go::Rune r = go::decode_rune(s);
    std::string_view raw = s.substr(0, r.width);
    s.remove_prefix(r.width);
    bool space = r.r == ' ' || (r.r >= '\t' && r.r <= '\r') || r.r == 0x85 || r.r == 0xA0 ||
                 r.r == 0x1680 || (r.r >= 0x2000 && r.r <= 0x200A) || r.r == 0x2028 ||
                 r.r == 0x2029 || r.r == 0x202F || r.r == 0x205F || r.r == 0x3000;
    if (space)
      out += ' ';
    else if (go::is_print(r.r))
      out += r.width == 1 && r.r == go::k_rune_error ? "\xEF\xBF\xBD" : std::string(raw);
  }
  return out;
}

[[noreturn]] void invalid(const std::string& file, const std::string& message) {
  throw Error(ErrorCode::Input, "validation: " + message, {file});
}

}  // namespace

std::string json_kind_name(const Value& v) {
  if (v.is_list()) return "array";
  if (v.is_map()) return "object";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  return "number";
}

void read_metadata(std::string_view text, const std::string& file, std::string_view label,
                   ChartMetadata& md) {
  Value doc;
  try {
    doc = load_yaml(text, file);
  } catch (const Error& e) {
    throw Error(ErrorCode::Input, fmt::format("cannot load {}: {}", label, e.message()), e.where());
  }
  try {
    read_fields(doc, md);
  } catch (const TypeError& e) {
    throw Error(ErrorCode::Input,
                fmt::format("cannot load {}: error unmarshaling JSON: while decoding JSON: {}",
                            label, e.message),
                {file});
  }
}

bool is_valid_semver(std::string_view version) {
  try {
    SemVersion::parse(version);
    return true;
  } catch (const SemverError&) {
    return false;
  }
}

void validate_metadata(ChartMetadata& md, const std::string& file) {
  for (std::string* s : {&md.name, &md.description, &md.home, &md.icon, &md.condition, &md.tags,
                         &md.app_version, &md.kube_version})
    *s = sanitize(*s);
  for (auto& s : md.sources) s = sanitize(s);
  for (auto& s : md.keywords) s = sanitize(s);
  if (md.api_version.empty()) invalid(file, "chart.metadata.apiVersion is required");
  if (md.name.empty()) invalid(file, "chart.metadata.name is required");
  if (md.name.find('/') != std::string::npos)
    invalid(file, fmt::format("chart.metadata.name {} is invalid", go_quote(md.name)));
  if (md.version.empty()) invalid(file, "chart.metadata.version is required");
  if (!is_valid_semver(md.version))
    invalid(file, fmt::format("chart.metadata.version {} is invalid", go_quote(md.version)));
  if (!md.type.empty() && md.type != "application" && md.type != "library")
    invalid(file, "chart.metadata.type must be application or library");
  for (Maintainer& m : md.maintainers) {
    m.name = sanitize(m.name);
    m.email = sanitize(m.email);
    m.url = sanitize(m.url);
  }
  std::map<std::string, bool> seen;
  for (Dependency& d : md.dependencies) {
    d.name = sanitize(d.name);
    d.version = sanitize(d.version);
    d.repository = sanitize(d.repository);
    d.condition = sanitize(d.condition);
    for (auto& t : d.tags) t = sanitize(t);
    // Helm's ^[a-zA-Z0-9_-]+$
    if (!d.alias.empty() &&
        d.alias.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNO"
                                  "PQRSTUVWXYZ0123456789_-") != std::string::npos)
      invalid(file, fmt::format("dependency {} has disallowed characters in the alias",
                                go_quote(d.name)));
    const std::string& key = d.alias.empty() ? d.name : d.alias;
    if (seen[key])
      invalid(file, fmt::format("more than one dependency with name or alias {}", go_quote(key)));
    seen[key] = true;
  }
}

}  // namespace ejob::render::helm
