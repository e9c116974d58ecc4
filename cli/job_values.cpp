#include "ejob/cli/job_values.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "ejob/cli/job_flags.hpp"
#include "ejob/render/naming.hpp"
#include "ejob/spot/presets.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

namespace {

using render::List;
using render::Map;
using render::Value;

Value string_list(std::initializer_list<std::string_view> items) {
  List out;
  for (std::string_view s : items) out.push_back(Value::string(std::string(s)));
  return Value::list(std::move(out));
}

Value terms_value(const spot::Placement& p) {
  List terms;
  for (const spot::NodeLabel& l : p.terms) {
    Map expr{{"key", Value::string(std::string(l.key))},
             {"operator", Value::string("In")},
             {"values", string_list({l.value})}};
    terms.push_back(Value::map(Map{{"matchExpressions", Value::list(List{Value::map(expr)})}}));
  }
  return Value::list(std::move(terms));
}

Value tolerations_value(const spot::Placement& p) {
  List out;
  for (const spot::Taint& t : p.tolerations) {
    out.push_back(Value::map(Map{{"key", Value::string(std::string(t.key))},
                                 {"operator", Value::string("Equal")},
                                 {"value", Value::string(std::string(t.value))},
                                 {"effect", Value::string(std::string(t.effect))}}));
  }
  return Value::list(std::move(out));
}

/// Levenshtein distance, for did-you-mean.
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string join_path(const std::string& prefix, const std::string& key) {
  return prefix.empty() ? key : prefix + "." + key;
}

/// How close `name` is to the mistyped `key`: edit distance, halved steps so that among equal
/// distances a name that extends or shortens the key wins (`gpu` → `gpus`, not `cpu`).
std::size_t closeness(std::string_view key, std::string_view name) {
  bool prefix = name.starts_with(key) || key.starts_with(name);
  return distance(key, name) * 2 - (prefix ? 1 : 0);
}

[[noreturn]] void unknown_key(const nlohmann::json& props, const std::string& prefix,
                              const std::string& key, std::string_view origin) {
  std::string best;
  std::size_t best_score = (std::max<std::size_t>(2, key.size() / 3) + 1) * 2;
  std::string allowed;
  for (const auto& [name, sub] : props.items()) {
    allowed += (allowed.empty() ? "" : ", ") + name;
    std::size_t score = closeness(key, name);
    if (score < best_score) best_score = score, best = name;
  }
  std::string hint =
      best.empty() ? "allowed: " + allowed : "did you mean " + join_path(prefix, best) + "?";
  throw Error(ErrorCode::Input,
              fmt::format("{}: unknown key {} ({})", origin, join_path(prefix, key), hint));
}

void check_object(const Value& value, const nlohmann::json& schema, const std::string& prefix,
                  std::string_view origin);

void check_value(const Value& value, const nlohmann::json& schema, const std::string& prefix,
                 std::string_view origin) {
  if (value.is_map()) check_object(value, schema, prefix, origin);
  if (value.is_list() && schema.contains("items") && schema["items"].is_object()) {
    std::size_t i = 0;
    for (const Value& item : value.as_list()) {
      check_value(item, schema["items"], fmt::format("{}[{}]", prefix, i++), origin);
    }
  }
}

void check_object(const Value& value, const nlohmann::json& schema, const std::string& prefix,
                  std::string_view origin) {
  static const nlohmann::json k_empty = nlohmann::json::object();
  const nlohmann::json& props = schema.contains("properties") ? schema["properties"] : k_empty;
  const nlohmann::json* extra =
      schema.contains("additionalProperties") ? &schema["additionalProperties"] : nullptr;
  for (const auto& [key, sub] : value.as_map()) {
    if (props.contains(key)) {
      check_value(sub, props[key], join_path(prefix, key), origin);
    } else if (extra != nullptr && extra->is_object()) {
      check_value(sub, *extra, join_path(prefix, key), origin);
    } else if (extra != nullptr && extra->is_boolean() && !extra->get<bool>()) {
      unknown_key(props, prefix, key, origin);
    }
  }
}

/// `user[path]` if present (nil included: Helm deletes the key then), else `defaults[path]`.
Value effective(const Map& user, const Map& defaults,
                std::initializer_list<std::string_view> path) {
  Value u = get_path(user, path);
  return u.is_nil() ? get_path(defaults, path) : u;
}

int64_t as_count(const Value& v, int64_t fallback) {
  if (v.is_float()) return static_cast<int64_t>(v.as_float());
  if (v.is_int()) return v.as_int();
  return fallback;
}

}  // namespace

void expand_spot(Map& values) {
  Value provider = get_path(values, {"spot", "provider"});
  if (!provider.is_string() || provider.as_string().empty()) return;
  auto parsed = spot::parse_provider(provider.as_string());
  if (!parsed) {
    throw Error(ErrorCode::Input,
                fmt::format("spot.provider: \"{}\" is not a spot provider (use {})",
                            provider.as_string(), spot::provider_choices()));
  }
  Value mode_value = get_path(values, {"spot", "mode"});
  std::string mode_word = mode_value.is_string() ? mode_value.as_string() : "required";
  auto mode = spot::parse_mode(mode_word);
  if (!mode) {
    throw Error(
        ErrorCode::Input,
        fmt::format("spot.mode: \"{}\" is not a spot mode (use required or preferred)", mode_word));
  }
  spot::Placement placement = spot::placement(*parsed, *mode);
  if (get_path(values, {"spot", "nodeSelectorTerms"}).is_nil()) {
    set_path(values, {"spot", "nodeSelectorTerms"}, terms_value(placement));
  }
  if (get_path(values, {"spot", "tolerations"}).is_nil()) {
    set_path(values, {"spot", "tolerations"}, tolerations_value(placement));
  }
}

void check_unknown_keys(const Map& layer, const nlohmann::json& schema, std::string_view origin) {
  check_object(Value::map(layer), schema, "", origin);
}

std::string choose_job_name(const NameRequest& request, const Map& user, const Map& defaults) {
  Value min = effective(user, defaults, {"workers", "min"});
  int64_t max = as_count(effective(user, defaults, {"workers", "max"}), as_count(min, 1));
  std::vector<std::string> blobs;
  Value storage = effective(user, defaults, {"storage"});
  if (storage.is_map()) {
    for (const auto& [volume, spec] : storage.as_map()) {
      if (spec.is_map() && !get_path(spec.as_map(), {"blob"}).is_nil()) blobs.push_back(volume);
    }
  }
  render::NameBudget budget = render::name_budget(max, blobs);
  if (request.exact) {
    render::check_exact_name(request.name, budget);
    return request.name;
  }
  return render::unique_job_name(request.name, budget);
}

}  // namespace ejob::cli
