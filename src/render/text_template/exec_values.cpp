// The methods of Helm's chartutil.Values (pkg/chartutil/values.go) as templates call them:
// `.Values.YAML`, `.Values.Table "a.b"`, `.Values.AsMap`, `.Values.PathValue "a.b"` and
// `.Values.Encode`. A method wins over a key of the same name (Go's evalField order).

#include <string>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/text_template/exec.hpp"

namespace ejob::render::text_template {

using go::FuncError;
using go::go_quote;
using go::GoType;
using go::Map;
using go::Value;

namespace {

std::vector<std::string> split_path(std::string_view key) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    parts.emplace_back(key.substr(start, dot == std::string_view::npos ? dot : dot - start));
    if (dot == std::string_view::npos) return parts;
    start = dot + 1;
  }
}

const Value& receiver(const FuncArgs& a) { return *a.ctx->receiver; }

/// tableLookup: the named sub-table (a map[string]interface{} or Values), else ErrNoTable.
bool table_lookup(const Value& v, const std::string& simple, Value& out) {
  const Map& m = v.as_map();
  auto it = m.find(simple);
  if (it == m.end()) return false;
  if (it->second.type() == GoType::MapAny || it->second.type() == GoType::Values) {
    out = Value::map(it->second.map_ptr(), GoType::Values);
    return true;
  }
  return false;
}

/// Values.Table: walks dotted names; error `no table named "x"`.
Value table(const Value& v, std::string_view name) {
  Value t = Value::map(v.map_ptr(), GoType::Values);
  for (const std::string& part : split_path(name)) {
    Value next;
    if (!table_lookup(t, part, next)) throw FuncError{"no table named " + go_quote(part)};
    t = next;
  }
  return t;
}

bool is_table(const Value& v) { return v.type() == GoType::MapAny; }

/// Values.PathValue: a non-table value at a dotted path, else `"key" is not a value`.
Value path_value(const Value& v, std::string_view path) {
  if (path.empty()) throw FuncError{"YAML path cannot be empty"};
  std::vector<std::string> parts = split_path(path);
  std::string key = parts.back();
  const Map* m = &v.as_map();
  Value t;
  if (parts.size() > 1) {
    std::string joined;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (i > 0) joined += '.';
      joined += parts[i];
    }
    try {
      t = table(v, joined);
    } catch (const FuncError&) {
      throw FuncError{go_quote(key) + " is not a value"};
    }
    m = &t.as_map();
  }
  auto it = m->find(key);
  if (it != m->end() && !is_table(it->second)) return it->second;
  throw FuncError{go_quote(key) + " is not a value"};
}

/// Values.YAML is yaml.Marshal; Helm's toYaml is the same text with its final newline trimmed.
const Function k_yaml{{}, false, true, [](const FuncArgs& a) {
                        const FuncMap* funcs = a.ctx->exec->set().funcs();
                        const Function* to_yaml =
                            funcs != nullptr ? funcs->find("toYaml") : nullptr;
                        if (to_yaml == nullptr) throw FuncError{"toYaml is not available"};
                        Value v = receiver(a);
                        Value text = to_yaml->impl(FuncArgs{std::span<const Value>(&v, 1), a.ctx});
                        return Value::string(text.as_string() + "\n");
                      }};
const Function k_table{{Param::String}, false, true, [](const FuncArgs& a) {
                         return table(receiver(a), a[0].as_string());
                       }};
const Function k_as_map{{}, false, false, [](const FuncArgs& a) {
                          const Value& v = receiver(a);
                          if (v.as_map().empty()) return Value::map(Map{}, GoType::MapAny);
                          return Value::map(v.map_ptr(), GoType::MapAny);
                        }};
// Encode(io.Writer) cannot be given a writer from a template: any argument has the wrong type.
const Function k_encode{
    {Param::Any}, false, true, [](const FuncArgs& a) -> Value {
      throw FuncError{"wrong type for value; expected io.Writer; got " + a[0].type_name()};
    }};
const Function k_path_value{{Param::String}, false, true, [](const FuncArgs& a) {
                              return path_value(receiver(a), a[0].as_string());
                            }};

}  // namespace

const Function* values_method(std::string_view name) {
  if (name == "YAML") return &k_yaml;
  if (name == "Table") return &k_table;
  if (name == "AsMap") return &k_as_map;
  if (name == "Encode") return &k_encode;
  if (name == "PathValue") return &k_path_value;
  return nullptr;
}

}  // namespace ejob::render::text_template
