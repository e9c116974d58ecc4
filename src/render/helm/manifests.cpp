#include "src/render/helm/manifests.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "src/render/go/fmt.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/helm/chart_metadata.hpp"
#include "src/render/helm/glob.hpp"
#include "src/render/yaml/load.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::format_float;
using go::go_quote;
using go::GoType;
using go::Map;
using go::Value;
using yaml::load_yaml_keys;

namespace {

/// Helm v3's InstallOrder.
constexpr std::string_view k_install_order[] = {
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
};

/// Hook events Helm knows (release.HookEvent names plus Helm 2's `test-success`).
constexpr std::string_view k_hook_events[] = {
    "pre-install",  "post-install", "pre-delete",    "post-delete", "pre-upgrade",
    "post-upgrade", "pre-rollback", "post-rollback", "test",        "test-success",
};

int kind_rank(std::string_view kind) {
  auto it = std::find(std::begin(k_install_order), std::end(k_install_order), kind);
  return it == std::end(k_install_order) ? -1 : static_cast<int>(it - std::begin(k_install_order));
}

/// Helm's lessByKind.
bool less_by_kind(const Manifest& a, const Manifest& b) {
  int ra = kind_rank(a.kind);
  int rb = kind_rank(b.kind);
  if (ra < 0 && rb < 0) return a.kind < b.kind;
  if (ra < 0) return false;
  if (rb < 0) return true;
  return ra < rb;
}

/// The parts of a document's head Helm looks at (releaseutil.SimpleHead).
struct Head {
  std::string kind;
  bool has_hook = false;
  std::string hook;
};

/// A scalar as sigs.k8s.io/yaml writes it into a Go string field (via chart_metadata rules).
std::string head_string(const Value& v, std::string_view field) {
  if (v.is_nil()) return "";
  if (v.is_string()) return v.as_string();
  if (v.is_bool()) return v.as_bool() ? "true" : "false";
  if (v.is_float()) {
    double f = v.as_float();
    if (f == static_cast<double>(static_cast<int64_t>(f)) && std::abs(f) < 9007199254740992.0)
      return std::to_string(static_cast<int64_t>(f));
    return format_float(f, 'g', -1, 32);
  }
  throw Error(ErrorCode::Input,
              fmt::format("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                          "{} into Go struct field {} of type string",
                          json_kind_name(v), field));
}

/// The Go type of SimpleHead.metadata, as encoding/json names it in its errors.
constexpr std::string_view k_metadata_type =
    R"(struct { Name string "json:\"name\""; Annotations map[string]string "json:\"annotations\"" })";

/// A mapping into a struct or map field, else encoding/json's type error (null is Go's nil).
const Map* head_map(const Value& v, std::string_view field, std::string_view type) {
  if (v.is_nil()) return nullptr;
  if (v.type() == GoType::MapAny) return &v.as_map();
  throw Error(ErrorCode::Input,
              fmt::format("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "
                          "{} into Go struct field {} of type {}",
                          json_kind_name(v), field, type));
}

/// encoding/json's field match: ASCII case-insensitive (`Kind` fills SimpleHead.Kind too).
bool field_is(std::string_view key, std::string_view field) {
  return key.size() == field.size() &&
         std::equal(key.begin(), key.end(), field.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

/// Decodes metadata's fields in key order, as json.Unmarshal does (null resets the map). Its
/// errors name the field after the innermost struct type, which is unnamed: `.metadata.name`.
void read_metadata(const Map& meta, Head& head) {
  for (const auto& [key, value] : meta) {
    if (field_is(key, "name")) head_string(value, ".metadata.name");
    if (!field_is(key, "annotations")) continue;
    const Map* annotations = head_map(value, ".metadata.annotations", "map[string]string");
    if (annotations == nullptr) head.has_hook = false;
    if (annotations == nullptr) continue;
    for (const auto& [k, val] : *annotations) {
      std::string s = head_string(val, ".metadata.annotations");
      if (k != "helm.sh/hook") continue;
      head.has_hook = true;
      head.hook = s;
    }
  }
}

/// The top-level keys read_head reads: the rest of a manifest is checked, not built.
bool is_head_key(std::string_view key) {
  return field_is(key, "apiversion") || field_is(key, "kind") || field_is(key, "metadata");
}

/// The document decoded into Helm's releaseutil.SimpleHead (sigs.k8s.io/yaml: a scalar into a
/// string field is written as a string; any other type mismatch fails the render). Keys are
/// decoded in sorted order, as the JSON sigs.k8s.io/yaml makes of the YAML lists them.
Head read_head(const std::string& doc, const std::string& path) {
  Head head;
  try {
    Value v = load_yaml_keys(doc, path, is_head_key);
    if (v.is_nil()) return head;
    if (v.type() != GoType::MapAny)
      throw Error(ErrorCode::Input,
                  "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " +
                      json_kind_name(v) + " into Go value of type releaseutil.SimpleHead");
    for (const auto& [key, value] : v.as_map()) {
      if (field_is(key, "apiversion")) head_string(value, "SimpleHead.apiVersion");
      if (field_is(key, "kind")) head.kind = head_string(value, "SimpleHead.kind");
      if (!field_is(key, "metadata")) continue;
      const Map* md = head_map(value, "SimpleHead.metadata", k_metadata_type);
      if (md == nullptr) head.has_hook = false;
      if (md != nullptr) read_metadata(*md, head);
    }
  } catch (const Error& e) {
    throw Error(ErrorCode::Input, "YAML parse error on " + path + ": " + e.message(), e.where());
  }
  return head;
}

/// The events of a hook annotation, each trimmed and lower-cased; nullopt when one is unknown.
std::optional<std::vector<std::string>> hook_events(const std::string& events) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= events.size()) {
    size_t comma = events.find(',', start);
    std::string e = go::unicode::trim_space(
        events.substr(start, comma == std::string::npos ? comma : comma - start));
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return std::tolower(c); });
    if (std::find(std::begin(k_hook_events), std::end(k_hook_events), e) == std::end(k_hook_events))
      return std::nullopt;
    out.push_back(std::move(e));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct Span {
  size_t start;
  size_t end;
};

/// The leftmost match at or after `from` of Helm's separator (?:^|\s*\n)---\s*, or npos: `---`
/// at offset 0, or the whole run of whitespace ending in '\n' before a `---`; then the
/// whitespace after it.
Span next_separator(std::string_view s, size_t from) {
  auto skip_space = [&](size_t i) {
    while (i < s.size() && go::unicode::is_regexp_space(s[i])) ++i;
    return i;
  };
  if (from == 0 && s.starts_with("---")) return {0, skip_space(3)};
  size_t nl = s.find("\n---", from);
  if (nl == std::string_view::npos) return {std::string::npos, std::string::npos};
  size_t start = nl;
  while (start > from && go::unicode::is_regexp_space(s[start - 1])) --start;
  return {start, skip_space(nl + 4)};
}

std::string source_block(const Manifest& m) {
  return "---\n# Source: " + m.path + "\n" + m.content + "\n";
}

void append_source_block(std::string& out, const Manifest& m) {
  out.append("---\n# Source: ").append(m.path).append("\n").append(m.content).append("\n");
}

size_t source_blocks_size(const std::vector<Manifest>& list) {
  size_t n = 0;
  for (const Manifest& m : list) n += 16 + m.path.size() + m.content.size();
  return n;
}

}  // namespace

std::vector<std::string> split_manifests(std::string_view file) {
  std::string text = go::unicode::trim_space(file);
  std::vector<std::string> pieces;
  size_t beg = 0;
  size_t end = 0;
  size_t pos = 0;
  // Go's Regexp.Split(s, -1): a piece before each match (unless the match starts the text at
  // offset 0 and is empty-prefixed), then the tail unless the last match ended the text.
  for (Span match = next_separator(text, pos); match.start != std::string::npos;
       match = next_separator(text, pos)) {
    end = match.start;
    if (match.end != 0) pieces.push_back(text.substr(beg, end - beg));
    beg = match.end;
    pos = match.end;  // a match is never empty
  }
  if (end != text.size()) pieces.push_back(text.substr(beg));
  std::vector<std::string> docs;
  for (const std::string& p : pieces)
    if (!p.empty()) docs.push_back(go::unicode::trim_space(p));
  return docs;
}

SortedManifests sort_manifests(std::map<std::string, std::string> files,
                               const std::function<void(const std::string&)>& warn) {
  SortedManifests out;
  for (auto file = files.begin(); file != files.end(); file = files.erase(file)) {
    const auto& [path, content] = *file;
    if (base_name(path).starts_with('_')) continue;
    if (go::unicode::trimmed_space(content).empty()) continue;
    for (std::string& doc : split_manifests(content)) {
      Head head = read_head(doc, path);
      Manifest m{path, std::move(doc), head.kind};
      std::optional<std::vector<std::string>> events;
      if (head.has_hook) events = hook_events(head.hook);
      if (!head.has_hook) {
        out.manifests.push_back(std::move(m));
      } else if (events) {
        // release.HookTest is the event of both `test` and Helm 2's `test-success`.
        m.test_hook = std::any_of(events->begin(), events->end(), [](const std::string& e) {
          return e == "test" || e == "test-success";
        });
        out.hooks.push_back(std::move(m));
      } else if (warn) {
        warn("info: skipping unknown hook: " + go_quote(head.hook));
      }
    }
  }
  std::stable_sort(out.manifests.begin(), out.manifests.end(), less_by_kind);
  std::stable_sort(out.hooks.begin(), out.hooks.end(), less_by_kind);
  return out;
}

std::string format_manifests(const SortedManifests& sorted, const PostRender& post) {
  // One buffer of the final size, trimmed in place: the output is as large as every rendered
  // manifest together, and each copy of it stays in the peak resident set.
  std::string body;
  body.reserve(source_blocks_size(sorted.crds) + source_blocks_size(sorted.manifests) +
               source_blocks_size(sorted.hooks) + 1);
  for (const Manifest& c : sorted.crds) append_source_block(body, c);
  for (const Manifest& m : sorted.manifests) append_source_block(body, m);
  if (post) body = post(body);
  std::string_view kept = go::unicode::trimmed_space(body);
  size_t start = static_cast<size_t>(kept.data() - body.data());
  body.erase(start + kept.size());
  body.erase(0, start);
  body += '\n';
  for (const Manifest& h : sorted.hooks) append_source_block(body, h);
  return body;
}

std::string show_only(const std::string& output, const std::vector<std::string>& patterns) {
  static const RE2 k_name(R"(# Source: [^/]+/(.+))");
  std::vector<std::string> docs = split_manifests(output);
  std::string out;
  for (const std::string& pattern : patterns) {
    bool missing = true;
    for (const std::string& doc : docs) {
      std::string name;
      if (!RE2::PartialMatch(doc, k_name, &name)) continue;
      bool matched = false;
      try {
        matched = filepath_match(pattern, name);
      } catch (const Error&) {
        matched = false;  // Helm ignores the pattern error and treats it as no match
      }
      if (!matched) continue;
      out += "---\n" + doc + "\n";
      missing = false;
    }
    if (missing) throw Error(ErrorCode::Input, "could not find template " + pattern + " in chart");
  }
  return out;
}

std::string write_output_dir(const SortedManifests& sorted, const OutputDir& dir,
                             const WriteFile& write, const FileExists& exists) {
  std::string log;
  std::map<std::string, bool> written;  // one map for CRDs and manifests, as Helm's
  auto put = [&](const std::string& base, const Manifest& m, bool append) {
    std::string target = base + "/" + m.path;
    write(target, source_block(m), append);
    log += "wrote " + target + "\n";
  };
  for (const Manifest& c : sorted.crds) {
    put(dir.dir, c, written[c.path]);
    written[c.path] = true;
  }
  for (const Manifest& m : sorted.manifests) {
    put(dir.release_dir, m, written[m.path]);
    written[m.path] = true;
  }
  // Hooks append whenever the file already exists (even from an earlier run), as Helm does.
  for (const Manifest& h : sorted.hooks)
    put(dir.release_dir, h, exists(dir.release_dir + "/" + h.path));
  return log;
}

}  // namespace ejob::render::helm
