#include "src/render/helm/context.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <climits>
#include <cstdint>
#include <optional>

#include "src/render/go/fmt.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/helm/base_funcs.hpp"
#include "src/render/helm/glob.hpp"
#include "src/render/sprig/semver.hpp"
#include "src/render/text_template/funcs.hpp"
#include "src/util/base64.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::FuncError;
using go::go_quote;
using go::GoKind;
using go::GoType;
using go::List;
using go::Map;
using go::Object;
using go::Value;
using text_template::FuncArgs;
using text_template::FuncMap;
using text_template::Function;

namespace {

/// Checks a method's argument list the way reflect.Call would (one string each here).
const std::string& string_arg(std::string_view method, std::span<const Value> args) {
  if (args.size() != 1)
    throw FuncError{fmt::format("wrong number of args for {}: want 1 got {}", method, args.size())};
  if (!args[0].is_string())
    throw FuncError{"wrong type for value; expected string; got " + args[0].type_name()};
  return args[0].as_string();
}

void no_args(std::string_view method, std::span<const Value> args) {
  if (!args.empty())
    throw FuncError{fmt::format("wrong number of args for {}: want 0 got {}", method, args.size())};
}

Value string_list(const std::vector<std::string>& items) {
  List out;
  for (const std::string& s : items) out.push_back(Value::string(s));
  return Value::list(std::move(out), GoType::ListString);
}

/// A struct with plain fields only (Maintainer, Dependency, HelmVersion).
class StructObject : public Object {
 public:
  StructObject(std::string type, std::vector<std::pair<std::string, Value>> fields)
      : m_type(std::move(type)), m_fields(std::move(fields)) {}
  [[nodiscard]] std::string type_name() const override { return m_type; }
  [[nodiscard]] bool has_method(std::string_view) const override { return false; }
  [[nodiscard]] Value call(std::string_view, std::span<const Value>) const override { return {}; }
  bool field(std::string_view name, Value& out) const override {
    for (const auto& [k, v] : m_fields)
      if (k == name) {
        out = v;
        return true;
      }
    return false;
  }
  [[nodiscard]] std::string format_v() const override {
    std::string out = m_type.starts_with('*') ? "&{" : "{";
    for (size_t i = 0; i < m_fields.size(); ++i)
      out += (i ? " " : "") + render::go::format_v(m_fields[i].second);
    return out + "}";
  }

 private:
  std::string m_type;
  std::vector<std::pair<std::string, Value>> m_fields;
};

Value make_struct(std::string type, std::vector<std::pair<std::string, Value>> fields) {
  return Value::object(std::make_shared<StructObject>(std::move(type), std::move(fields)));
}

class KubeVersionObject : public Object {
 public:
  explicit KubeVersionObject(KubeVersion kv) : m_kv(std::move(kv)) {}
  [[nodiscard]] std::string type_name() const override { return "chartutil.KubeVersion"; }
  [[nodiscard]] bool has_method(std::string_view name) const override {
    return name == "String" || name == "GitVersion";
  }
  [[nodiscard]] Value call(std::string_view name, std::span<const Value> args) const override {
    no_args(name, args);
    return Value::string(m_kv.version);
  }
  bool field(std::string_view name, Value& out) const override {
    if (name == "Version")
      out = Value::string(m_kv.version);
    else if (name == "Major")
      out = Value::string(m_kv.major);
    else if (name == "Minor")
      out = Value::string(m_kv.minor);
    else
      return false;
    return true;
  }
  // text/template prints an addressable KubeVersion through its String method.
  [[nodiscard]] std::string format_v() const override { return m_kv.version; }

 private:
  KubeVersion m_kv;
};

class VersionSetObject : public Object {
 public:
  explicit VersionSetObject(std::vector<std::string> v)
      : m_list(string_list(v)), m_set(std::move(v)) {}
  [[nodiscard]] std::string type_name() const override { return "chartutil.VersionSet"; }
  [[nodiscard]] GoKind kind() const override { return GoKind::Slice; }
  [[nodiscard]] bool has_method(std::string_view name) const override { return name == "Has"; }
  [[nodiscard]] Value call(std::string_view name, std::span<const Value> args) const override {
    const std::string& want = string_arg(name, args);
    for (const std::string& s : m_set)
      if (s == want) return Value::boolean(true);
    return Value::boolean(false);
  }
  bool field(std::string_view, Value&) const override { return false; }
  [[nodiscard]] std::string format_v() const override { return render::go::format_v(m_list); }
  [[nodiscard]] bool truthy() const override { return !m_set.empty(); }
  [[nodiscard]] Value underlying() const override { return m_list; }

 private:
  Value m_list;
  std::vector<std::string> m_set;
};

std::vector<std::string> with_extra(const std::vector<std::string>& extra) {
  std::vector<std::string> all = default_api_versions();
  all.insert(all.end(), extra.begin(), extra.end());
  return all;
}

class CapabilitiesObject : public StructObject {
 public:
  CapabilitiesObject(const KubeVersion& kv, const std::vector<std::string>& extra_apis)
      : StructObject("*chartutil.Capabilities",
                     {{"APIVersions",
                       Value::object(std::make_shared<VersionSetObject>(with_extra(extra_apis)))},
                      {"KubeVersion", Value::object(std::make_shared<KubeVersionObject>(kv))},
                      {"HelmVersion",
                       make_struct("version.BuildInfo",
                                   {{"Version", Value::string(HelmBuild::version)},
                                    {"GitCommit", Value::string(HelmBuild::git_commit)},
                                    {"GitTreeState", Value::string(HelmBuild::git_tree_state)},
                                    {"GoVersion", Value::string(HelmBuild::go_version)}})}}) {}
};

/// Helm's files.toYAML: sigs yaml of a map[string]string without the final newline — the
/// same text as Helm's `toYaml` template function, which is used here.
std::string yaml_of(Map m) {
  static const FuncMap k_funcs = [] {
    FuncMap f;
    register_helm_serialization(f);
    return f;
  }();
  const Function* to_yaml = k_funcs.find("toYaml");
  Value arg = Value::map(std::move(m), GoType::MapString);
  Value text = to_yaml->impl(FuncArgs{std::span<const Value>(&arg, 1)});
  return text.is_string() ? text.as_string() : "";
}

/// .Files: the chart's files by name, read where the chart holds them (never copied, as
/// Glob's subsets are not), and from disk only when a template reads one.
class FilesObject : public Object {
 public:
  using ByName = std::map<std::string, const ChartFile*>;
  FilesObject(ChartFiles owner, ByName files)
      : m_owner(std::move(owner)), m_files(std::move(files)) {}
  [[nodiscard]] std::string type_name() const override { return "engine.files"; }
  [[nodiscard]] GoKind kind() const override { return GoKind::Map; }
  [[nodiscard]] bool has_method(std::string_view name) const override {
    return name == "Get" || name == "GetBytes" || name == "Glob" || name == "Lines" ||
           name == "AsConfig" || name == "AsSecrets";
  }
  [[nodiscard]] Value call(std::string_view name, std::span<const Value> args) const override {
    if (name == "AsConfig" || name == "AsSecrets") {
      no_args(name, args);
      Map m;
      for (const auto& [path, file] : m_files)
        m.insert_or_assign(
            base_name(path),
            Value::string(name == "AsConfig" ? file->text() : base64_encode(file->text())));
      return Value::string(yaml_of(std::move(m)));
    }
    const std::string& arg = string_arg(name, args);
    if (name == "Glob") {
      Glob g = Glob::compile_or_all(arg);
      ByName found;
      for (const auto& [path, file] : m_files)
        if (g.match(path)) found.emplace(path, file);
      return Value::object(std::make_shared<FilesObject>(m_owner, std::move(found)));
    }
    auto it = m_files.find(arg);
    const bool found = it != m_files.end();
    if (name == "Get") return found ? Value::shared_text(text_of(it->second)) : Value::string("");
    if (name == "GetBytes")
      return found ? Value::shared_text(text_of(it->second), GoType::Bytes) : Value::bytes("");
    return lines(found ? &it->second->text() : nullptr);
  }
  bool field(std::string_view, Value&) const override { return false; }
  [[nodiscard]] std::string format_v() const override { return render::go::format_v(underlying()); }
  [[nodiscard]] bool truthy() const override { return !m_files.empty(); }
  [[nodiscard]] Value underlying() const override {
    Map m;
    for (const auto& [path, file] : m_files)
      m.emplace(path, Value::shared_text(text_of(file), GoType::Bytes));
    return Value::map(std::move(m));
  }

 private:
  static Value lines(const std::string* data) {
    if (data == nullptr) return Value::list(List{}, GoType::ListString);
    if (data->empty())
      throw Error(ErrorCode::Input,
                  "rendering template failed: runtime error: index out of range [-1]");
    std::string s = *data;
    if (s.back() == '\n') s.pop_back();
    List out;
    size_t start = 0;
    while (true) {
      size_t nl = s.find('\n', start);
      out.push_back(Value::string(s.substr(start, nl == std::string::npos ? nl : nl - start)));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
    return Value::list(std::move(out), GoType::ListString);
  }

  /// A file's text as a Value shares it: owned with the chart's files, not copied.
  go::SharedText text_of(const ChartFile* file) const { return {m_owner, &file->text()}; }

  ChartFiles m_owner;  ///< keeps the texts m_files points into
  ByName m_files;
};

Value maintainer_object(const Maintainer& m) {
  return make_struct("*chart.Maintainer", {{"Name", Value::string(m.name)},
                                           {"Email", Value::string(m.email)},
                                           {"URL", Value::string(m.url)}});
}

Value dependency_object(const Dependency& d) {
  return make_struct("*chart.Dependency", {{"Name", Value::string(d.name)},
                                           {"Version", Value::string(d.version)},
                                           {"Repository", Value::string(d.repository)},
                                           {"Condition", Value::string(d.condition)},
                                           {"Tags", string_list(d.tags)},
                                           {"Enabled", Value::boolean(d.enabled)},
                                           {"ImportValues", Value::list(d.import_values)},
                                           {"Alias", Value::string(d.alias)}});
}

}  // namespace

namespace {

/// strconv.ParseUint(s, 10, 0) of a run of digits; nullopt when it overflows uint64.
std::optional<uint64_t> parse_decimal(std::string_view digits) {
  uint64_t n = 0;
  for (char c : digits) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (n > (UINT64_MAX - d) / 10) return std::nullopt;
    n = n * 10 + d;
  }
  return n;
}

bool is_digit_byte(char c) { return c >= '0' && c <= '9'; }

}  // namespace

KubeVersion parse_kube_version(std::string_view text) {
  auto fail = [&](const std::string& why) -> KubeVersion {
    throw Error(ErrorCode::Usage, "invalid kube version '" + std::string(text) + "': " + why);
  };
  // versionMatchRE `^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$`: the numbers, then anything.
  size_t i = 0;
  while (i < text.size() && go::unicode::is_regexp_space(text[i])) ++i;
  if (i < text.size() && text[i] == 'v') ++i;
  std::vector<std::string> parts;
  while (i < text.size() && is_digit_byte(text[i])) {
    size_t start = i;
    while (i < text.size() && is_digit_byte(text[i])) ++i;
    parts.emplace_back(text.substr(start, i - start));
    if (i + 1 < text.size() && text[i] == '.' && is_digit_byte(text[i + 1]))
      ++i;
    else
      break;
  }
  std::string quoted = go_quote(text);
  // `.` stops at a newline, so text after the numbers that holds one does not match.
  if (parts.empty() || text.find('\n', i) != std::string_view::npos)
    return fail("could not parse " + quoted + " as version");
  if (parts.size() < 2) return fail("illegal version string " + quoted);
  std::string version = "v";
  std::vector<uint64_t> numbers;
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::string& p = parts[k];
    if (k == 0 && p.size() > 1 && p[0] == '0')
      return fail("illegal zero-prefixed version component " + go_quote(p) + " in " + quoted);
    std::optional<uint64_t> n = parse_decimal(p);
    if (!n)
      return fail("illegal non-numeric version component " + go_quote(p) + " in " + quoted +
                  ": strconv.ParseUint: parsing " + go_quote(p) + ": value out of range");
    numbers.push_back(*n);
    version += (k ? "." : "") + std::to_string(*n);
  }
  return {version, std::to_string(numbers[0]), std::to_string(numbers[1])};
}

const std::vector<std::string>& default_api_versions() {
  static const std::vector<std::string> k_versions = {
      "v1",
      "admissionregistration.k8s.io/v1",
      "admissionregistration.k8s.io/v1alpha1",
      "admissionregistration.k8s.io/v1beta1",
      "apiextensions.k8s.io/v1",
      "apiextensions.k8s.io/v1beta1",
      "apps/v1",
      "apps/v1beta1",
      "apps/v1beta2",
      "authentication.k8s.io/v1",
      "authentication.k8s.io/v1alpha1",
      "authentication.k8s.io/v1beta1",
      "authorization.k8s.io/v1",
      "authorization.k8s.io/v1beta1",
      "autoscaling/v1",
      "autoscaling/v2",
      "batch/v1",
      "batch/v1beta1",
      "certificates.k8s.io/v1",
      "certificates.k8s.io/v1alpha1",
      "certificates.k8s.io/v1beta1",
      "coordination.k8s.io/v1",
      "coordination.k8s.io/v1alpha2",
      "coordination.k8s.io/v1beta1",
      "discovery.k8s.io/v1",
      "discovery.k8s.io/v1beta1",
      "events.k8s.io/v1",
      "events.k8s.io/v1beta1",
      "extensions/v1beta1",
      "flowcontrol.apiserver.k8s.io/v1",
      "flowcontrol.apiserver.k8s.io/v1beta1",
      "flowcontrol.apiserver.k8s.io/v1beta2",
      "flowcontrol.apiserver.k8s.io/v1beta3",
      "internal.apiserver.k8s.io/v1alpha1",
      "networking.k8s.io/v1",
      "networking.k8s.io/v1beta1",
      "node.k8s.io/v1",
      "node.k8s.io/v1alpha1",
      "node.k8s.io/v1beta1",
      "policy/v1",
      "policy/v1beta1",
      "rbac.authorization.k8s.io/v1",
      "rbac.authorization.k8s.io/v1alpha1",
      "rbac.authorization.k8s.io/v1beta1",
      "resource.k8s.io/v1",
      "resource.k8s.io/v1alpha3",
      "resource.k8s.io/v1beta1",
      "resource.k8s.io/v1beta2",
      "scheduling.k8s.io/v1",
      "scheduling.k8s.io/v1alpha2",
      "scheduling.k8s.io/v1beta1",
      "storage.k8s.io/v1",
      "storage.k8s.io/v1alpha1",
      "storage.k8s.io/v1beta1",
      "storagemigration.k8s.io/v1beta1",
  };
  return k_versions;
}

Value make_capabilities(const KubeVersion& kube, const std::vector<std::string>& extra_apis) {
  return Value::object(std::make_shared<CapabilitiesObject>(kube, extra_apis));
}

Value make_release(const std::string& name, const std::string& ns, bool is_upgrade) {
  return Value::map({{"Name", Value::string(name)},
                     {"Namespace", Value::string(ns)},
                     {"IsUpgrade", Value::boolean(is_upgrade)},
                     {"IsInstall", Value::boolean(!is_upgrade)},
                     {"Revision", Value::integer(1)},
                     {"Service", Value::string("Helm")}});
}

Value make_chart_object(const Chart& chart) {
  const ChartMetadata& md = chart.metadata;
  List maintainers;
  for (const Maintainer& m : md.maintainers) maintainers.push_back(maintainer_object(m));
  List deps;
  for (const Dependency& d : md.dependencies) deps.push_back(dependency_object(d));
  Map annotations;
  for (const auto& [k, v] : md.annotations) annotations.emplace(k, Value::string(v));
  return make_struct("struct { chart.Metadata; IsRoot bool }",
                     {{"Name", Value::string(md.name)},
                      {"Home", Value::string(md.home)},
                      {"Sources", string_list(md.sources)},
                      {"Version", Value::string(md.version)},
                      {"Description", Value::string(md.description)},
                      {"Keywords", string_list(md.keywords)},
                      {"Maintainers", Value::list(std::move(maintainers))},
                      {"Icon", Value::string(md.icon)},
                      {"APIVersion", Value::string(md.api_version)},
                      {"Condition", Value::string(md.condition)},
                      {"Tags", Value::string(md.tags)},
                      {"AppVersion", Value::string(md.app_version)},
                      {"Deprecated", Value::boolean(md.deprecated)},
                      {"Annotations", Value::map(std::move(annotations), GoType::MapString)},
                      {"KubeVersion", Value::string(md.kube_version)},
                      {"Dependencies", Value::list(std::move(deps))},
                      {"Type", Value::string(md.type)},
                      {"IsRoot", Value::boolean(chart.is_root())}});
}

Value make_files(const ChartFiles& files) {
  FilesObject::ByName m;
  for (const ChartFile& f : *files) m.insert_or_assign(f.name, &f);
  return Value::object(std::make_shared<FilesObject>(files, std::move(m)));
}

}  // namespace ejob::render::helm
