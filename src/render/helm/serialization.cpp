// Helm's serialization functions (pkg/engine/funcs.go): toYaml, toYamlPretty, fromYaml,
// fromYamlArray, toJson, fromJson, fromJsonArray, toToml, fromToml. None of them fails the
// template: encoders return "" (toToml: the error text), decoders put the error text in the
// result ({"Error": msg} or [msg]).
#include <string>

#include "src/render/go/json.hpp"
#include "src/render/helm/base_funcs.hpp"
#include "src/render/helm/toml.hpp"
#include "src/render/text_template/funcs.hpp"
#include "src/render/yaml/emit.hpp"
#include "src/render/yaml/load.hpp"

namespace ejob::render::helm {

using go::FuncError;
using go::List;
using go::Value;
using text_template::FuncArgs;
using text_template::FuncImpl;
using text_template::FuncMap;
using text_template::Function;
using text_template::Param;
using yaml::to_yaml;
using yaml::to_yaml_pretty;
using yaml::try_load_yaml_list;
using yaml::try_load_yaml_map;
using yaml::YamlDecoded;

namespace {

Function unary(Param p, FuncImpl impl) { return Function{{p}, false, false, std::move(impl)}; }

std::string trim_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// An encoder whose Go error becomes "".
template <class Encode>
Function encoder(Encode encode) {
  return unary(Param::Any, [encode](const FuncArgs& a) {
    try {
      return Value::string(encode(a[0]));
    } catch (const FuncError&) {
      return Value::string("");
    }
  });
}

// sigs.k8s.io/yaml's Marshal re-reads its own JSON with goyaml.v2, which refuses collections
// nested more than 10000 deep ("exceeded max depth of 10000"): Helm's toYaml then gives "".
constexpr int k_yaml_max_depth = 10000;

/// Whether v holds maps/lists (empty ones included) nested more than budget deep.
bool deeper_than(const Value& v, int budget) {
  bool map = v.is_map() && !v.is_nil();
  bool list = v.is_list() && !v.is_nil_list();
  if (!map && !list) return false;
  if (budget == 0) return true;
  if (map) {
    for (const auto& [k, e] : v.as_map())
      if (deeper_than(e, budget - 1)) return true;
    return false;
  }
  for (const Value& e : v.as_list())
    if (deeper_than(e, budget - 1)) return true;
  return false;
}

std::string helm_to_yaml(const Value& v) {
  if (deeper_than(v, k_yaml_max_depth)) return "";
  return trim_newline(to_yaml(v));
}

Value with_error_key(Value m, const std::string& error) {
  if (!error.empty()) m.mutable_map().insert_or_assign("Error", Value::string(error));
  return m;
}

Value error_list(Value l, const std::string& error) {
  if (error.empty()) return l;
  return Value::list(List{Value::string(error)});
}

}  // namespace

void register_helm_serialization(FuncMap& map) {
  map.add("toYaml", encoder(helm_to_yaml));
  map.add("toYamlPretty", encoder([](const Value& v) { return trim_newline(to_yaml_pretty(v)); }));
  map.add("toJson", encoder([](const Value& v) { return go::json::marshal(v); }));
  map.add("fromYaml", unary(Param::String, [](const FuncArgs& a) {
            YamlDecoded d = try_load_yaml_map(a[0].as_string());
            return with_error_key(d.value, d.error);
          }));
  map.add("fromYamlArray", unary(Param::String, [](const FuncArgs& a) {
            YamlDecoded d = try_load_yaml_list(a[0].as_string());
            return error_list(d.value, d.error);
          }));
  map.add("fromJson", unary(Param::String, [](const FuncArgs& a) {
            go::json::Decoded d = go::json::unmarshal(a[0].as_string(), go::json::Target::Map);
            return with_error_key(d.value, d.error);
          }));
  map.add("fromJsonArray", unary(Param::String, [](const FuncArgs& a) {
            go::json::Decoded d = go::json::unmarshal(a[0].as_string(), go::json::Target::Slice);
            return error_list(d.value, d.error);
          }));
  map.add("toToml", unary(Param::Any, [](const FuncArgs& a) {
            try {
              return Value::string(toml::encode(a[0]));
            } catch (const FuncError& e) {
              return Value::string(e.message);
            }
          }));
  map.add("fromToml", unary(Param::String, [](const FuncArgs& a) {
            toml::Decoded d = toml::decode(a[0].as_string());
            return with_error_key(d.value, d.error);
          }));
}

}  // namespace ejob::render::helm
