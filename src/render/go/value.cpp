#include "src/render/go/value.hpp"

namespace ejob::render::go {

GoKind Value::kind() const {
  switch (m_type) {
    case GoType::Nil: return GoKind::Invalid;
    case GoType::Bool: return GoKind::Bool;
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32: return GoKind::Int;
    case GoType::Uint8:
    case GoType::Uint64: return GoKind::Uint;
    case GoType::Float64: return GoKind::Float;
    case GoType::String: return GoKind::String;
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt:
    case GoType::ListList:
    case GoType::Bytes: return GoKind::Slice;
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values: return GoKind::Map;
    case GoType::Object: return as_object().kind();
  }
  return GoKind::Invalid;
}

bool Value::is_int() const {
  return m_type == GoType::Int || m_type == GoType::Int64 || m_type == GoType::Int32;
}

bool Value::is_uint() const { return m_type == GoType::Uint8 || m_type == GoType::Uint64; }

bool Value::is_list() const {
  return m_type == GoType::ListAny || m_type == GoType::ListString || m_type == GoType::ListInt ||
         m_type == GoType::ListList;
}

bool Value::is_map() const {
  return m_type == GoType::MapAny || m_type == GoType::MapString || m_type == GoType::Values;
}

std::string Value::type_name() const {
  switch (m_type) {
    case GoType::Nil: return "<nil>";
    case GoType::Bool: return "bool";
    case GoType::Int: return "int";
    case GoType::Int64: return "int64";
    case GoType::Int32: return "int32";
    case GoType::Uint8: return "uint8";
    case GoType::Uint64: return "uint64";
    case GoType::Float64: return "float64";
    case GoType::String: return "string";
    case GoType::ListAny: return "[]interface {}";
    case GoType::ListString: return "[]string";
    case GoType::ListInt: return "[]int";
    case GoType::ListList: return "[][]interface {}";
    case GoType::Bytes: return "[]uint8";
    case GoType::MapAny: return "map[string]interface {}";
    case GoType::MapString: return "map[string]string";
    case GoType::Values: return "chartutil.Values";
    case GoType::Object: return as_object().type_name();
  }
  return "<nil>";
}

bool Value::truthy() const {
  switch (m_type) {
    case GoType::Nil: return false;
    case GoType::Bool: return as_bool();
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32: return as_int() != 0;
    case GoType::Uint8:
    case GoType::Uint64: return as_uint() != 0;
    case GoType::Float64: return as_float() != 0.0;
    case GoType::String:
    case GoType::Bytes: return !as_string().empty();
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt:
    case GoType::ListList: return !as_list().empty();
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values: return !as_map().empty();
    case GoType::Object: return as_object().truthy();
  }
  return false;
}

namespace {
const ListPtr& shared_nil_list() {
  static const ListPtr k_nil = std::make_shared<List>();
  return k_nil;
}
}  // namespace

Value Value::nil_list(GoType t) { return Value(t, shared_nil_list()); }

bool Value::is_nil_list() const {
  const auto* p = std::get_if<ListPtr>(&m_data);
  return p != nullptr && *p == shared_nil_list();
}

bool operator==(const Value& a, const Value& b) {
  if (a.m_type != b.m_type) return false;
  switch (a.m_type) {
    case GoType::Nil: return true;
    case GoType::Object: return a.object_ptr() == b.object_ptr();
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt:
    case GoType::ListList: return a.list_ptr() == b.list_ptr();
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values: return a.map_ptr() == b.map_ptr();
    case GoType::String:
    case GoType::Bytes: return a.as_string() == b.as_string();  // held inline or shared
    default: return a.m_data == b.m_data;
  }
}

Value Value::deep_copy() const {
  if (is_list()) {
    List out;
    out.reserve(as_list().size());
    for (const Value& v : as_list()) out.push_back(v.deep_copy());
    return list(std::move(out), m_type);
  }
  if (is_map()) {
    Map out;
    // The keys come in order: each goes at the end, with one comparison instead of a search.
    for (const auto& [k, v] : as_map()) out.emplace_hint(out.end(), k, v.deep_copy());
    return map(std::move(out), m_type);
  }
  return *this;
}

}  // namespace ejob::render::go
