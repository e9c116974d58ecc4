// Sprig's dict functions (dict.go) and the dario.cat/mergo 1.0.1 merge they use (Sprig v3.3.0,
// what Helm v3.21 links; Sprig 3.2.3 used imdario/mergo 0.3.12).
//
// Merge rules (mergo deepMerge for map[string]interface{}), per key of the source:
// - a nil source value is copied only when overwriting;
// - a map source value is merged recursively into a map destination value (in place);
// - after that, a non-empty destination value is kept when the source value is a slice, or a
//   map over a map (mergo 1.0 narrowed 0.3's "a map or a slice": mergeOverwrite now replaces
//   "x" with a map, where 0.3.12 kept "x");
// - otherwise the source value is stored when overwriting, or when the destination value is
//   missing or empty (Sprig's `empty` rules).
// Go iterates maps in random order; every outcome here is order-independent, and `keys`/`values`
// return key order (one of Go's possible orders).
#include <string>

#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

bool is_map_kind(const Value& v) {
  return v.is_map() || (v.is_object() && v.kind() == GoKind::Map);
}

bool is_slice_kind(const Value& v) { return slice_elements(v).has_value(); }

void mergo(Map& dst, const Map& src, bool overwrite) {
  for (const auto& [key, sv] : src) {
    auto it = dst.find(key);
    bool present = it != dst.end();
    Value old = present ? it->second : Value();
    if (sv.is_nil()) {
      if (overwrite) dst[key] = Value();
      continue;
    }
    bool src_map = is_map_kind(sv);
    bool src_slice = is_slice_kind(sv);
    if (src_map && sv.is_map() && present && old.is_map()) {
      mergo(old.mutable_map(), sv.as_map(), overwrite);
    } else if (src_slice) {
      Value empty_slice = sv.is_list() ? Value::list(List{}, sv.type()) : Value::bytes("");
      Value slice = (!present || old.is_nil()) ? empty_slice : old;
      if (overwrite || dst.empty()) slice = sv;
      dst[key] = slice;
    }
    if (present && !is_empty(old) && (src_slice || (src_map && is_map_kind(old)))) continue;
    if (overwrite || !present || is_empty(old)) dst[key] = sv;
  }
}

Value merge(const FuncArgs& a, bool overwrite) {
  Value dst = as_plain_map(a[0]);
  for (size_t i = 1; i < a.size(); ++i) mergo(dst.mutable_map(), a[i].as_map(), overwrite);
  return dst;
}

[[noreturn]] void conversion_panic(const Value& v, const std::string& want) {
  std::string have = v.is_nil() ? "nil" : v.type_name();
  throw FuncError{"interface conversion: interface {} is " + have + ", not " + want};
}

Value dig(const FuncArgs& a) {
  if (a.size() < 3) throw FuncError{"dig needs at least three arguments"};
  const Value& last = a[a.size() - 1];
  if (last.type() != GoType::MapAny) conversion_panic(last, "map[string]interface {}");
  const Value& def = a[a.size() - 2];
  std::vector<std::string> keys;
  for (size_t i = 0; i + 2 < a.size(); ++i) {
    if (!a[i].is_string()) conversion_panic(a[i], "string");
    keys.push_back(a[i].as_string());
  }
  const Map* dict = &last.as_map();
  for (size_t i = 0; i < keys.size(); ++i) {
    auto it = dict->find(keys[i]);
    if (it == dict->end()) return def;
    if (i + 1 == keys.size()) return it->second;
    if (it->second.type() != GoType::MapAny) {
      conversion_panic(it->second, "map[string]interface {}");
    }
    dict = &it->second.as_map();
  }
  return def;
}

}  // namespace

void register_sprig_dicts(FuncMap& map) {
  auto key = [](const FuncArgs& a, size_t i) -> const std::string& { return a[i].as_string(); };
  map.add("dict", fn_variadic({P::Any}, [](const FuncArgs& a) {
            Map m;
            for (size_t i = 0; i < a.size(); i += 2) {
              m.insert_or_assign(strval(a[i]), i + 1 < a.size() ? a[i + 1] : Value::string(""));
            }
            return Value::map(std::move(m));
          }));
  map.add("get", fn({P::MapAny, P::String}, [=](const FuncArgs& a) {
            auto it = a[0].as_map().find(key(a, 1));
            return it == a[0].as_map().end() ? Value::string("") : it->second;
          }));
  map.add("set", fn({P::MapAny, P::String, P::Any}, [=](const FuncArgs& a) {
            a[0].mutable_map().insert_or_assign(key(a, 1), a[2]);
            return as_plain_map(a[0]);
          }));
  map.add("unset", fn({P::MapAny, P::String}, [=](const FuncArgs& a) {
            auto& m = a[0].mutable_map();
            if (auto it = m.find(key(a, 1)); it != m.end()) m.erase(it);
            return as_plain_map(a[0]);
          }));
  map.add("hasKey", fn({P::MapAny, P::String}, [=](const FuncArgs& a) {
            return Value::boolean(a[0].as_map().contains(key(a, 1)));
          }));
  map.add("pluck", fn_variadic({P::String, P::MapAny}, [=](const FuncArgs& a) {
            List out;
            for (size_t i = 1; i < a.size(); ++i) {
              auto it = a[i].as_map().find(key(a, 0));
              if (it != a[i].as_map().end()) out.push_back(it->second);
            }
            return Value::list(std::move(out));
          }));
  map.add("keys", fn_variadic({P::MapAny}, [](const FuncArgs& a) {
            std::vector<std::string> out;
            for (const Value& d : a.args) {
              for (const auto& kv : d.as_map()) out.push_back(kv.first);
            }
            return string_list(std::move(out));
          }));
  map.add("values", fn({P::MapAny}, [](const FuncArgs& a) {
            List out;
            for (const auto& kv : a[0].as_map()) out.push_back(kv.second);
            return Value::list(std::move(out));
          }));
  map.add("pick", fn_variadic({P::MapAny, P::String}, [=](const FuncArgs& a) {
            Map out;
            for (size_t i = 1; i < a.size(); ++i) {
              auto it = a[0].as_map().find(key(a, i));
              if (it != a[0].as_map().end()) out.insert_or_assign(it->first, it->second);
            }
            return Value::map(std::move(out));
          }));
  map.add("omit", fn_variadic({P::MapAny, P::String}, [=](const FuncArgs& a) {
            Map out = a[0].as_map();
            for (size_t i = 1; i < a.size(); ++i) {
              if (auto it = out.find(key(a, i)); it != out.end()) out.erase(it);
            }
            return Value::map(std::move(out));
          }));
  auto merge_fn = [](bool overwrite, Ret ret) {
    return fn_variadic(
        {P::MapAny, P::MapAny}, [overwrite](const FuncArgs& a) { return merge(a, overwrite); },
        ret);
  };
  map.add("merge", merge_fn(false, Ret::Value));
  map.add("mustMerge", merge_fn(false, Ret::ValueError));
  map.add("mergeOverwrite", merge_fn(true, Ret::Value));
  map.add("mustMergeOverwrite", merge_fn(true, Ret::ValueError));
  map.add("dig", fn_variadic({P::Any}, dig, Ret::ValueError));
}

}  // namespace ejob::render::sprig
