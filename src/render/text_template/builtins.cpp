// Go text/template's builtin functions (text/template/funcs.go) on our Go value model. The
// reflect.Value-typed builtins see whether an argument sat in an interface{} slot through
// CallContext::iface_mask (`len` of a nil interface is `len of nil pointer`).

#include <fmt/format.h>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/text_template/exec.hpp"
#include "src/render/text_template/funcs.hpp"

namespace ejob::render::text_template {

using go::FuncError;
using go::GoKind;
using go::GoType;
using go::List;
using go::Map;
using go::Value;

std::string_view param_type_name(Param p) {
  switch (p) {
    case Param::Any: return "interface {}";
    case Param::String: return "string";
    case Param::Int: return "int";
    case Param::Int64: return "int64";
    case Param::Float64: return "float64";
    case Param::Bool: return "bool";
    case Param::ListAny: return "[]interface {}";
    case Param::ListString: return "[]string";
    case Param::MapAny: return "map[string]interface {}";
    case Param::Bytes: return "[]uint8";
    case Param::Time: return "time.Time";
    case Param::Certificate: return "sprig.certificate";
  }
  return "interface {}";
}

namespace {

bool arg_is_iface(const FuncArgs& a, size_t i) {
  return a.ctx != nullptr && i < 64 && ((a.ctx->iface_mask >> i) & 1U) != 0;
}

/// The list/map an object stands for when indexed or measured, else the value itself.
Value container(const Value& v) {
  if (v.is_object()) {
    Value u = v.as_object().underlying();
    if (!u.is_nil()) return u;
  }
  return v;
}

Value length(const FuncArgs& a) {
  if (a[0].is_nil()) {
    if (arg_is_iface(a, 0)) throw FuncError{"len of nil pointer"};
    throw FuncError{"reflect: call of reflect.Value.Type on zero Value"};
  }
  Value v = container(a[0]);
  if (v.is_string() || v.type() == GoType::Bytes) {
    return Value::integer(static_cast<int64_t>(v.as_string().size()));
  }
  if (v.is_list()) return Value::integer(static_cast<int64_t>(v.as_list().size()));
  if (v.is_map()) return Value::integer(static_cast<int64_t>(v.as_map().size()));
  throw FuncError{"len of type " + a[0].type_name()};
}

/// indexArg: an integer index in [0, cap].
size_t index_arg(const Value& index, size_t cap) {
  int64_t x = 0;
  if (index.is_int()) {
    x = index.as_int();
  } else if (index.is_uint()) {
    x = static_cast<int64_t>(index.as_uint());
  } else if (index.is_nil()) {
    throw FuncError{"cannot index slice/array with nil"};
  } else {
    throw FuncError{"cannot index slice/array with type " + index.type_name()};
  }
  if (x < 0 || static_cast<uint64_t>(x) > cap) {
    throw FuncError{"index out of range: " + std::to_string(x)};
  }
  return static_cast<size_t>(x);
}

/// One step of `index`: item[key] with Go's reflect rules.
EVal index_one(const EVal& item_in, const Value& key) {
  if (item_in.v.is_nil()) throw FuncError{"index of nil pointer"};
  Value item = container(item_in.v);
  if (item.is_list()) {
    size_t x = index_arg(key, item.as_list().size());
    if (x == item.as_list().size()) throw FuncError{"reflect: slice index out of range"};
    return {item.as_list()[x], item.type() == GoType::ListAny};
  }
  if (item.is_string() || item.type() == GoType::Bytes) {
    const std::string& s = item.as_string();
    size_t x = index_arg(key, s.size());
    if (x == s.size()) {
      throw FuncError{item.is_string() ? "reflect: string index out of range"
                                       : "reflect: slice index out of range"};
    }
    return {Value::unsigned_integer(static_cast<unsigned char>(s[x]), GoType::Uint8), false};
  }
  if (item.is_map()) {
    if (key.is_nil()) throw FuncError{"value is nil; should be of type string"};
    if (!key.is_string()) {
      throw FuncError{"value has type " + key.type_name() + "; should be string"};
    }
    bool iface = item.type() != GoType::MapString;
    const Map& m = item.as_map();
    auto it = m.find(key.as_string());
    if (it != m.end()) return {it->second, iface};
    return iface ? EVal{Value(), true} : EVal{Value::string(""), false};
  }
  throw FuncError{"can't index item of type " + item_in.v.type_name()};
}

Value index(const FuncArgs& a) {
  if (a[0].is_nil()) throw FuncError{"index of untyped nil"};
  EVal item{a[0], false};
  for (size_t i = 1; i < a.size(); ++i) item = index_one(item, a[i]);
  return item.v;
}

Value slice(const FuncArgs& a) {
  if (a[0].is_nil()) throw FuncError{"slice of untyped nil"};
  size_t nidx = a.size() - 1;
  if (nidx > 3) throw FuncError{"too many slice indexes: " + std::to_string(nidx)};
  Value item = container(a[0]);
  size_t len = 0;
  if (item.is_string()) {
    if (nidx == 3) throw FuncError{"cannot 3-index slice a string"};
    len = item.as_string().size();
  } else if (item.is_list()) {
    len = item.as_list().size();
  } else if (item.type() == GoType::Bytes) {
    len = item.as_string().size();
  } else {
    throw FuncError{"can't slice item of type " + a[0].type_name()};
  }
  size_t idx[3] = {0, len, len};
  for (size_t i = 0; i < nidx; ++i) idx[i] = index_arg(a[i + 1], len);
  if (idx[0] > idx[1]) {
    throw FuncError{fmt::format("invalid slice index: {} > {}", idx[0], idx[1])};
  }
  if (nidx == 3 && idx[1] > idx[2]) {
    throw FuncError{fmt::format("invalid slice index: {} > {}", idx[1], idx[2])};
  }
  if (item.is_list()) {
    const List& l = item.as_list();
    return Value::list(
        List(l.begin() + static_cast<long>(idx[0]), l.begin() + static_cast<long>(idx[1])),
        item.type());
  }
  std::string s = item.as_string().substr(idx[0], idx[1] - idx[0]);
  return item.is_string() ? Value::string(std::move(s)) : Value::bytes(std::move(s));
}

// ---- comparisons ----

enum class BasicKind { Invalid, Bool, Complex, Int, Float, String, Uint };

BasicKind basic_kind(const Value& v) {
  switch (v.kind()) {
    case GoKind::Bool: return BasicKind::Bool;
    case GoKind::Int: return BasicKind::Int;
    case GoKind::Uint: return v.is_uint() ? BasicKind::Uint : BasicKind::Invalid;
    case GoKind::Float: return BasicKind::Float;
    case GoKind::String: return v.is_string() ? BasicKind::String : BasicKind::Invalid;
    default: return BasicKind::Invalid;
  }
}

const char* const k_bad_type = "invalid type for comparison";
/// Go 1.26 names both types (Go 1.19..1.25: "incompatible types for comparison" alone).
std::string bad_comparison(const Value& a, const Value& b) {
  return "incompatible types for comparison: " + a.type_name() + " and " + b.type_name();
}

bool comparable(const Value& v) { return !v.is_list() && !v.is_map() && v.type() != GoType::Bytes; }

bool eq_one(const Value& a, const Value& b) {
  BasicKind k1 = basic_kind(a);
  BasicKind k2 = basic_kind(b);
  if (k1 != k2) {
    if (k1 == BasicKind::Int && k2 == BasicKind::Uint) {
      return a.as_int() >= 0 && static_cast<uint64_t>(a.as_int()) == b.as_uint();
    }
    if (k1 == BasicKind::Uint && k2 == BasicKind::Int) {
      return b.as_int() >= 0 && a.as_uint() == static_cast<uint64_t>(b.as_int());
    }
    if (!a.is_nil() && !b.is_nil()) throw FuncError{bad_comparison(a, b)};
    return false;
  }
  switch (k1) {
    case BasicKind::Bool: return a.as_bool() == b.as_bool();
    case BasicKind::Float: return a.as_float() == b.as_float();
    case BasicKind::Int: return a.as_int() == b.as_int();
    case BasicKind::String: return a.as_string() == b.as_string();
    case BasicKind::Uint: return a.as_uint() == b.as_uint();
    default: break;
  }
  if (!a.is_nil() && !b.is_nil() && a.kind() != b.kind()) {
    throw FuncError{sprintf(
        "non-comparable types %s: %v, %s: %v",
        std::vector<Value>{a, Value::string(a.type_name()), Value::string(b.type_name()), b})};
  }
  // Go's isNil: a missing value or a nil slice.
  bool a_nil = a.is_nil() || a.is_nil_list();
  bool b_nil = b.is_nil() || b.is_nil_list();
  if (a_nil || b_nil) return a_nil == b_nil;
  if (!comparable(b)) {
    throw FuncError{
        sprintf("non-comparable type %s: %v", std::vector<Value>{b, Value::string(b.type_name())})};
  }
  return a == b;
}

Value eq(const FuncArgs& a) {
  if (a.size() < 2) throw FuncError{"missing argument for comparison"};
  for (size_t i = 1; i < a.size(); ++i) {
    if (eq_one(a[0], a[i])) return Value::boolean(true);
  }
  return Value::boolean(false);
}

bool lt_values(const Value& a, const Value& b) {
  BasicKind k1 = basic_kind(a);
  if (k1 == BasicKind::Invalid) throw FuncError{k_bad_type};
  BasicKind k2 = basic_kind(b);
  if (k2 == BasicKind::Invalid) throw FuncError{k_bad_type};
  if (k1 != k2) {
    if (k1 == BasicKind::Int && k2 == BasicKind::Uint) {
      return a.as_int() < 0 || static_cast<uint64_t>(a.as_int()) < b.as_uint();
    }
    if (k1 == BasicKind::Uint && k2 == BasicKind::Int) {
      return b.as_int() >= 0 && a.as_uint() < static_cast<uint64_t>(b.as_int());
    }
    throw FuncError{bad_comparison(a, b)};
  }
  switch (k1) {
    case BasicKind::Float: return a.as_float() < b.as_float();
    case BasicKind::Int: return a.as_int() < b.as_int();
    case BasicKind::String: return a.as_string() < b.as_string();
    case BasicKind::Uint: return a.as_uint() < b.as_uint();
    default: throw FuncError{k_bad_type};
  }
}

bool le_values(const Value& a, const Value& b) { return lt_values(a, b) || eq_one(a, b); }

// ---- escapers ----

/// evalArgs: a lone string as is, else fmt.Sprint with nil printed as `<no value>`.
std::string eval_args(const FuncArgs& a) {
  if (a.size() == 1 && a[0].is_string()) return a[0].as_string();
  std::vector<Value> args(a.args.begin(), a.args.end());
  for (Value& v : args) {
    if (v.is_nil()) v = Value::string("<no value>");
  }
  return sprint(args);
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '\0': out += "\xEF\xBF\xBD"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string js_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      go::Rune r = go::decode_rune(std::string_view(s).substr(i));
      if (go::is_print(r.r)) {
        out.append(s, i, r.width);
      } else {
        out += fmt::format("\\u{:04X}", static_cast<uint32_t>(r.r));
      }
      i += r.width - 1;
      continue;
    }
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '"': out += "\\\""; break;
      case '<': out += "\\u003C"; break;
      case '>': out += "\\u003E"; break;
      case '&': out += "\\u0026"; break;
      case '=': out += "\\u003D"; break;
      default:
        if (c < ' ') {
          out += fmt::format("\\u00{:02X}", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

std::string query_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

Function fn(std::vector<Param> params, bool variadic, bool returns_error, FuncImpl impl) {
  return Function{std::move(params), variadic, returns_error, std::move(impl)};
}

Value never_called(const FuncArgs&) {
  // and/or are evaluated by the executor (short-circuit); reaching this is a bug.
  throw FuncError{"and/or called outside the executor"};
}

}  // namespace

void register_builtins(FuncMap& map) {
  using P = Param;
  map.add("and", fn({P::Any, P::Any}, true, false, never_called));
  map.add("or", fn({P::Any, P::Any}, true, false, never_called));
  map.add("not", fn({P::Any}, false, false,
                    [](const FuncArgs& a) { return Value::boolean(!a[0].truthy()); }));
  map.add("len", fn({P::Any}, false, true, length));
  map.add("index", fn({P::Any, P::Any}, true, true, index));
  map.add("slice", fn({P::Any, P::Any}, true, true, slice));
  map.add("eq", fn({P::Any, P::Any}, true, true, eq));
  map.add("ne", fn({P::Any, P::Any}, false, true,
                   [](const FuncArgs& a) { return Value::boolean(!eq_one(a[0], a[1])); }));
  map.add("lt", fn({P::Any, P::Any}, false, true,
                   [](const FuncArgs& a) { return Value::boolean(lt_values(a[0], a[1])); }));
  map.add("le", fn({P::Any, P::Any}, false, true,
                   [](const FuncArgs& a) { return Value::boolean(le_values(a[0], a[1])); }));
  map.add("gt", fn({P::Any, P::Any}, false, true,
                   [](const FuncArgs& a) { return Value::boolean(!le_values(a[0], a[1])); }));
  map.add("ge", fn({P::Any, P::Any}, false, true,
                   [](const FuncArgs& a) { return Value::boolean(!lt_values(a[0], a[1])); }));
  map.add("print", fn({P::Any}, true, false,
                      [](const FuncArgs& a) { return Value::string(sprint(a.args)); }));
  map.add("printf", fn({P::String, P::Any}, true, false, [](const FuncArgs& a) {
            return Value::string(sprintf(a[0].as_string(), a.args.subspan(1)));
          }));
  map.add("println", fn({P::Any}, true, false,
                        [](const FuncArgs& a) { return Value::string(sprintln(a.args)); }));
  map.add("html", fn({P::Any}, true, false,
                     [](const FuncArgs& a) { return Value::string(html_escape(eval_args(a))); }));
  map.add("js", fn({P::Any}, true, false,
                   [](const FuncArgs& a) { return Value::string(js_escape(eval_args(a))); }));
  map.add("urlquery", fn({P::Any}, true, false, [](const FuncArgs& a) {
            return Value::string(query_escape(eval_args(a)));
          }));
  map.add("call", fn({P::Any, P::Any}, true, true, [](const FuncArgs& a) -> Value {
            if (a[0].is_nil()) throw FuncError{"call of nil"};
            // Go >= 1.24 names the callee (1.19: "non-function of type T").
            std::string callee = a.ctx != nullptr ? a.ctx->callee : std::string();
            throw FuncError{"non-function " + callee + " of type " + a[0].type_name()};
          }));
}

}  // namespace ejob::render::text_template
