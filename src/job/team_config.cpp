#include "src/job/team_config.hpp"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include "src/job/job_flags.hpp"
#include "src/util/error.hpp"
#include "src/util/spelling.hpp"

namespace ejob::job {

using render::go::Map;
using render::go::Value;

namespace {

/// Why `value` is not valid for a key ("" when it is).
using Check = std::function<std::string(const std::string& value)>;

Check matching(const char* pattern, const char* what) {
  return [pattern, what](const std::string& v) {
    return RE2::FullMatch(v, RE2(pattern)) ? "" : std::string("is not ") + what;
  };
}

Check one_of(std::vector<std::string> words) {
  return [words](const std::string& v) {
    for (const std::string& w : words)
      if (v == w) return std::string();
    std::string list;
    for (const std::string& w : words) list += (list.empty() ? "" : ", ") + w;
    return "is not one of " + list;
  };
}

Check quantity() {
  return [](const std::string& v) {
    return is_quantity(v) ? "" : "is not a quantity such as 8, 500m or 32Gi";
  };
}

struct KeyRule {
  std::string key;
  std::string fallback;  ///< what applies without it, in words
  Check check;
};

const std::vector<KeyRule>& rules() {
  static const std::vector<KeyRule> k_rules = {
      {"namespace", "elastic-job",
       matching("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", "a namespace name")},
      {"registry", "none",
       matching("[^\\s/]+(/[^\\s/]+)*/?", "a registry prefix such as myacr.azurecr.io/team")},
      {"engine", "auto", one_of({"auto", "elasticjob", "pytorchjob", "trainjob"})},
      {"spot", "none", one_of({"azure", "gke", "eks", "karpenter", "any"})},
      {"spotMode", "required", one_of({"required", "preferred"})},
      {"storageAccount", "none",
       matching("[a-z0-9]{3,24}", "a storage account name (3-24 lowercase letters and digits)")},
      {"resources.gpus", "0", matching("[0-9]{1,4}", "a GPU count")},
      {"resources.gpuResource", "nvidia.com/gpu",
       matching("([a-z0-9.-]+/)?[A-Za-z0-9][-A-Za-z0-9_.]*", "a resource name")},
      {"resources.cpu", "none", quantity()},
      {"resources.memory", "none", quantity()},
      {"resources.shm", "2Gi", quantity()},
  };
  return k_rules;
}

const KeyRule* rule_of(const std::string& key) {
  for (const KeyRule& r : rules())
    if (r.key == key) return &r;
  return nullptr;
}

[[noreturn]] void bad(const std::string& file, const YAML::Node& node, const std::string& why) {
  throw Error(ErrorCode::Input, file + ":" + std::to_string(node.Mark().line + 1) + ": " + why);
}

void unknown_key(const std::string& file, const YAML::Node& key, const std::string& dotted) {
  std::vector<std::string> known;
  for (const KeyRule& r : rules()) known.push_back(r.key);
  const std::string near = nearest_spelling(dotted, known);
  bad(file, key,
      "unknown key \"" + dotted + "\"" +
          (near.empty() ? " (a team config sets: namespace, registry, engine, spot, "
                          "spotMode, storageAccount, resources)"
                        : " (did you mean \"" + near + "\"?)"));
}

/// Reads one map level of a config file into `config` (keys not set by an earlier file).
void read_map(const std::string& file, const YAML::Node& map, const std::string& prefix,
              TeamConfig& config) {
  for (const auto& entry : map) {
    const std::string key = prefix + entry.first.as<std::string>();
    if (key == "resources") {
      if (!entry.second.IsMap() && !entry.second.IsNull())
        bad(file, entry.second, "resources: is not a map");
      if (entry.second.IsMap()) read_map(file, entry.second, "resources.", config);
      continue;
    }
    const KeyRule* rule = rule_of(key);
    if (!rule) unknown_key(file, entry.first, key);
    if (!entry.second.IsScalar()) bad(file, entry.second, key + ": is not a single value");
    const std::string value = entry.second.Scalar();
    if (std::string why = rule->check(value); !why.empty())
      bad(file, entry.second, key + ": \"" + value + "\" " + why);
    config.settings.emplace(
        key, TeamSetting{value, file + ":" + std::to_string(entry.first.Mark().line + 1)});
  }
}

void read_file(const std::string& file, TeamConfig& config) {
  YAML::Node doc;
  try {
    doc = YAML::LoadFile(file);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorCode::Input, file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (doc.IsNull()) return;
  if (!doc.IsMap()) bad(file, doc, "a team config is a map of settings (namespace: ml-team, ...)");
  read_map(file, doc, "", config);
}

}  // namespace

std::vector<std::string> team_config_files() {
  if (const char* list = std::getenv("EJOB_CONFIG"); list && *list) {
    std::vector<std::string> files;
    for (std::string_view rest = list; !rest.empty();) {
      const size_t colon = rest.find(':');
      if (colon != 0) files.emplace_back(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? "" : rest.substr(colon + 1);
    }
    return files;
  }
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  if (xdg && *xdg) return {(std::filesystem::path(xdg) / "ejob" / "config.yaml").string()};
  if (home && *home)
    return {(std::filesystem::path(home) / ".config" / "ejob" / "config.yaml").string()};
  return {};
}

TeamConfig load_team_config(const std::vector<std::string>& files) {
  TeamConfig config;
  config.files = files;
  for (const std::string& file : files) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(file, ec)) read_file(file, config);
  }
  return config;
}

const std::vector<std::pair<std::string, std::string>>& team_config_keys() {
  static const auto k_keys = [] {
    std::vector<std::pair<std::string, std::string>> keys;
    for (const KeyRule& r : rules()) keys.emplace_back(r.key, r.fallback);
    return keys;
  }();
  return k_keys;
}

std::string team_setting(const TeamConfig& config, const std::string& key) {
  auto it = config.settings.find(key);
  return it == config.settings.end() ? "" : it->second.value;
}

Map team_values(const TeamConfig& config) {
  Map values;
  auto copy = [&](const char* key, std::initializer_list<std::string_view> path) {
    if (std::string v = team_setting(config, key); !v.empty())
      set_path(values, path, Value::string(v));
  };
  copy("engine", {"engine"});
  copy("spot", {"spot", "provider"});
  copy("spotMode", {"spot", "mode"});
  copy("resources.gpuResource", {"gpuResource"});
  copy("resources.cpu", {"cpu"});
  copy("resources.memory", {"memory"});
  copy("resources.shm", {"shm"});
  if (std::string gpus = team_setting(config, "resources.gpus"); !gpus.empty())
    set_path(values, {"gpus"}, Value::integer(std::stoll(gpus)));
  return values;
}

std::string with_registry(const TeamConfig& config, const std::string& image) {
  std::string registry = team_setting(config, "registry");
  if (registry.empty() || image.empty()) return image;
  // Docker's rule: the first path component names a registry when it has a '.' or ':' or is
  // localhost; otherwise the image is on the default registry, and the team's goes first.
  const std::string first = image.substr(0, image.find('/'));
  if (image.find('/') != std::string::npos &&
      (first.find_first_of(".:") != std::string::npos || first == "localhost"))
    return image;
  if (registry.back() == '/') registry.pop_back();
  return registry + "/" + image;
}

std::vector<TeamConfigLine> team_config_view(const TeamConfig& config) {
  std::vector<TeamConfigLine> lines;
  for (const auto& [key, fallback] : team_config_keys()) {
    auto it = config.settings.find(key);
    if (it != config.settings.end())
      lines.push_back({key, it->second.value, it->second.source});
    else
      lines.push_back({key, fallback, "default"});
  }
  return lines;
}

const TeamConfig& team_config() {
  static const TeamConfig k_config = load_team_config(team_config_files());
  return k_config;
}

}  // namespace ejob::job
