#include "src/job/job_schema.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "src/render/go/json.hpp"
#include "src/util/error.hpp"
#include "src/util/spelling.hpp"

namespace ejob::job {

namespace {

using nlohmann::json;
using render::go::Value;

/// Where in the values a check is, and which source they came from.
struct At {
  ValuePath path;
  std::string_view origin;
  const LocateValue& locate;

  [[nodiscard]] At step(PathStep next) const {
    ValuePath longer = path;
    longer.push_back(std::move(next));
    return {std::move(longer), origin, locate};
  }
};

/// The error for `message` about `at`: at the source line when it can be found, else after
/// the source's name.
[[noreturn]] void fail_at(const At& at, Part part, const std::string& message) {
  Location where = at.locate ? at.locate(at.path, part) : Location{};
  if (where.empty() || (where.line == 0 && where.source_line.empty()))
    throw Error(ErrorCode::Input, fmt::format("{}: {}", at.origin, message));
  throw Error(ErrorCode::Input, message, std::move(where));
}

[[noreturn]] void unknown_key(const json& props, const At& at, const std::string& key) {
  std::vector<std::string> names;
  std::string allowed;
  for (const auto& [name, sub] : props.items()) {
    allowed += (allowed.empty() ? "" : ", ") + name;
    names.push_back(name);
  }
  const std::string best = nearest_spelling(key, names);
  std::string hint = best.empty() ? "allowed: " + allowed
                                  : "did you mean " + path_text(at.step({best, {}}).path) + "?";
  At key_at = at.step({key, {}});
  fail_at(key_at, Part::Key, fmt::format("unknown key {} ({})", path_text(key_at.path), hint));
}

bool has_type(const Value& v, std::string_view type) {
  if (type == "object") return v.is_map();
  if (type == "array") return v.is_list();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_bool();
  if (type == "null") return v.is_nil();
  if (type == "number") return v.is_int() || v.is_uint() || v.is_float();
  if (type == "integer") {
    return v.is_int() || v.is_uint() || (v.is_float() && std::floor(v.as_float()) == v.as_float());
  }
  return false;
}

std::string type_phrase(std::string_view type) {
  if (type == "object") return "a map";
  if (type == "array") return "a list";
  if (type == "integer") return "an integer";
  if (type == "boolean") return "a boolean";
  if (type == "null") return "null";
  return "a " + std::string(type);
}

/// "a", "a or b", "a, b or c".
std::string one_of_phrases(const std::vector<std::string>& phrases) {
  std::string out;
  for (std::size_t i = 0; i < phrases.size(); ++i)
    out += (i == 0 ? "" : i + 1 == phrases.size() ? " or " : ", ") + phrases[i];
  return out;
}

/// The accepted form a schema describes, for messages: `an integer >= 0`, `one of "a", "b"`,
/// `a string, a number or a boolean`, `an integer >= 1 or null`; a pattern adds the
/// description (or the pattern itself when there is none).
std::string form_of(const json& schema) {
  if (schema.contains("enum")) {
    std::string out;
    for (const json& e : schema["enum"]) out += (out.empty() ? "" : ", ") + e.dump();
    return "one of " + out;
  }
  if (schema.contains("anyOf")) {
    std::string out;
    for (const json& alt : schema["anyOf"]) out += (out.empty() ? "" : " or ") + form_of(alt);
    return out;
  }
  std::vector<std::string> phrases;
  if (schema.contains("type")) {
    json types = schema["type"].is_array() ? schema["type"] : json::array({schema["type"]});
    for (const json& t : types) {
      const std::string type = t.get<std::string>();
      phrases.push_back(type_phrase(type));
      if ((type == "integer" || type == "number") && schema.contains("minimum"))
        phrases.back() += fmt::format(" >= {}", schema["minimum"].dump());
    }
  }
  std::string out = one_of_phrases(phrases);
  if (schema.contains("pattern")) {
    out += schema.contains("description") ? " (" + schema["description"].get<std::string>() + ")"
                                          : " matching " + schema["pattern"].get<std::string>();
  }
  return out;
}

/// True when `v` satisfies the scalar keywords of `schema` (type, enum, minimum, pattern,
/// anyOf); nested keys are checked separately.
bool scalar_ok(const Value& v, const json& schema) {
  if (schema.contains("anyOf")) {
    bool any = false;
    for (const json& alt : schema["anyOf"]) any = any || scalar_ok(v, alt);
    if (!any) return false;
  }
  if (schema.contains("type")) {
    json types = schema["type"].is_array() ? schema["type"] : json::array({schema["type"]});
    bool any = false;
    for (const json& t : types) any = any || has_type(v, t.get<std::string>());
    if (!any) return false;
  }
  if (schema.contains("enum")) {
    std::string text = render::go::json::marshal(v);
    bool any = false;
    for (const json& e : schema["enum"]) any = any || e.dump() == text;
    if (!any) return false;
  }
  bool number = v.is_int() || v.is_uint() || v.is_float();
  if (number && schema.contains("minimum")) {
    double d = v.is_float() ? v.as_float() : v.is_int() ? double(v.as_int()) : double(v.as_uint());
    if (d < schema["minimum"].get<double>()) return false;
  }
  if (v.is_string() && schema.contains("pattern")) {
    RE2 pattern(schema["pattern"].get<std::string>(), RE2::Quiet);
    if (pattern.ok() && !RE2::PartialMatch(v.as_string(), pattern)) return false;
  }
  return true;
}

void check_value(const Value& value, const json& schema, const At& at);

void check_map(const Value& value, const json& schema, const At& at) {
  static const json k_none = json::object();
  const json& props = schema.contains("properties") ? schema["properties"] : k_none;
  const json* extra =
      schema.contains("additionalProperties") ? &schema["additionalProperties"] : nullptr;
  for (const auto& [key, sub] : value.as_map()) {
    At inner = at.step({key, {}});
    if (props.contains(key)) {
      check_value(sub, props[key], inner);
    } else if (extra != nullptr && extra->is_object()) {
      check_value(sub, *extra, inner);
    } else if (extra != nullptr && extra->is_boolean() && !extra->get<bool>()) {
      unknown_key(props, at, key);
    }
  }
}

void check_value(const Value& value, const json& schema, const At& at) {
  // A null deletes a chart default (Helm's coalescing): nothing to check.
  if (value.is_nil()) return;
  if (!scalar_ok(value, schema)) {
    fail_at(at, Part::Value,
            fmt::format("{}: {} is not {}", path_text(at.path), render::go::json::marshal(value),
                        form_of(schema)));
  }
  if (value.is_map()) check_map(value, schema, at);
  if (value.is_list() && schema.contains("items") && schema["items"].is_object()) {
    std::size_t i = 0;
    for (const Value& item : value.as_list()) {
      check_value(item, schema["items"], at.step({{}, i++}));
    }
  }
}

}  // namespace

void check_job_values(const render::go::Map& layer, const json& schema, std::string_view origin,
                      const LocateValue& locate) {
  check_map(Value::map(layer), schema, {{}, origin, locate});
}

}  // namespace ejob::job
