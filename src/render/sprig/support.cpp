#include "src/render/sprig/support.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"

namespace ejob::render::sprig {

Function fn(std::vector<Param> params, FuncImpl impl, Ret ret) {
  Function f;
  f.params = std::move(params);
  f.returns_error = ret == Ret::ValueError;
  f.impl = std::move(impl);
  return f;
}

Function fn_variadic(std::vector<Param> params, FuncImpl impl, Ret ret) {
  Function f = fn(std::move(params), std::move(impl), ret);
  f.variadic = true;
  return f;
}

std::string strval(const Value& v) {
  if (v.is_string() || v.type() == GoType::Bytes) return v.as_string();
  return format_v(v);
}

bool is_empty(const Value& v) {
  switch (v.type()) {
    case GoType::Nil: return true;
    case GoType::Object: {
      GoKind k = v.kind();
      if (k == GoKind::Slice || k == GoKind::Map || k == GoKind::String) {
        return is_empty(v.as_object().underlying());
      }
      return false;  // structs are never empty; our pointers are never nil
    }
    default: return !v.truthy();
  }
}

std::string kind_name(const Value& v) {
  switch (v.type()) {
    case GoType::Nil: return "invalid";
    case GoType::Object: break;
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt:
    case GoType::ListList:
    case GoType::Bytes: return "slice";
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values: return "map";
    default: return v.type_name();  // bool, int, int64, int32, uint8, uint64, float64, string
  }
  switch (v.kind()) {
    case GoKind::Invalid: return "invalid";
    case GoKind::Bool: return "bool";
    case GoKind::Int: return "int";
    case GoKind::Uint: return "uint";
    case GoKind::Float: return "float64";
    case GoKind::String: return "string";
    case GoKind::Slice: return "slice";
    case GoKind::Map: return "map";
    case GoKind::Struct: return "struct";
    case GoKind::Ptr: return "ptr";
    case GoKind::Func: return "func";
  }
  return "invalid";
}

int64_t go_float_to_int64(double f) {
  // amd64 CVTTSD2SQ yields the "integer indefinite" value for NaN and out-of-range inputs.
  if (std::isnan(f) || f >= 9223372036854775808.0 || f < -9223372036854775808.0) {
    return std::numeric_limits<int64_t>::min();
  }
  return static_cast<int64_t>(f);
}

namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  char lc = static_cast<char>(c | 0x20);
  if (lc >= 'a' && lc <= 'z') return lc - 'a' + 10;
  return 99;
}

}  // namespace

std::optional<int64_t> parse_go_int(std::string_view s, int base) {
  if (s.empty()) return std::nullopt;
  std::string_view orig = s;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  bool base_prefix = false;
  bool allow_underscore = base == 0;
  if (base == 0) {
    base = 10;
    if (!s.empty() && s[0] == '0') {
      char c = s.size() >= 2 ? static_cast<char>(s[1] | 0x20) : '\0';
      if (c == 'x' || c == 'b' || c == 'o') {
        base = c == 'x' ? 16 : (c == 'b' ? 2 : 8);
        s.remove_prefix(2);
        base_prefix = true;
      } else {
        base = 8;
        s.remove_prefix(1);
        base_prefix = true;
      }
    }
    if (!go::underscore_ok(orig)) return std::nullopt;
  }
  uint64_t n = 0;
  bool any = false;
  for (char c : s) {
    if (c == '_' && allow_underscore) continue;  // placement already checked by go::underscore_ok
    int d = digit_value(c);
    if (d >= base) return std::nullopt;
    if (n > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) /
                static_cast<uint64_t>(base)) {
      return std::nullopt;
    }
    n = n * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    any = true;
  }
  // "0" alone is consumed as the octal prefix and has no further digits.
  if (!any && !(base_prefix && base == 8)) return std::nullopt;
  uint64_t limit = neg ? 9223372036854775808ULL : 9223372036854775807ULL;
  if (n > limit) return std::nullopt;
  return neg ? static_cast<int64_t>(0 - n) : static_cast<int64_t>(n);
}

namespace {

/// Go's float literal syntax (strconv readFloat), without underscores.
bool valid_float_syntax(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool hex = false;
  if (i + 1 < s.size() && s[i] == '0' && (s[i + 1] | 0x20) == 'x') {
    hex = true;
    i += 2;
  }
  bool digits = false;
  bool dot = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '.') {
      if (dot) return false;
      dot = true;
    } else if ((c >= '0' && c <= '9') || (hex && digit_value(c) < 16)) {
      digits = true;
    } else {
      break;
    }
  }
  if (!digits) return false;
  if (i < s.size() && ((s[i] | 0x20) == (hex ? 'p' : 'e'))) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
  } else if (hex) {
    return false;  // hex mantissa needs a 'p' exponent
  }
  return i == s.size();
}

}  // namespace

std::optional<double> parse_go_float(std::string_view s) {
  std::string_view body = s;
  bool neg = false;
  if (!body.empty() && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (go::equal_fold_ascii(body, "inf") || go::equal_fold_ascii(body, "infinity")) {
    return neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  if (go::equal_fold_ascii(s, "nan")) return std::numeric_limits<double>::quiet_NaN();
  std::string clean;
  for (char c : s) {
    if (c != '_') clean.push_back(c);
  }
  if (clean.size() != s.size() && !go::underscore_ok(s)) return std::nullopt;
  if (!valid_float_syntax(clean)) return std::nullopt;
  errno = 0;
  double d = std::strtod(clean.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(d)) return std::nullopt;
  return d;
}

int64_t to_int64(const Value& v) {
  switch (v.type()) {
    case GoType::Bool: return v.as_bool() ? 1 : 0;
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32: return v.as_int();
    case GoType::Uint8:
    case GoType::Uint64: return static_cast<int64_t>(v.as_uint());
    case GoType::Float64: return go_float_to_int64(v.as_float());
    case GoType::String: {
      // cast's trimZeroDecimal: "12.000" -> "12" (only zeros after the point).
      std::string_view s = v.as_string();
      size_t dot = s.find('.');
      if (dot != std::string_view::npos && dot + 1 < s.size() &&
          s.find_first_not_of('0', dot + 1) == std::string_view::npos) {
        s = s.substr(0, dot);
      }
      return parse_go_int(s, 0).value_or(0);
    }
    default: return 0;
  }
}

double to_float64(const Value& v) {
  switch (v.type()) {
    case GoType::Bool: return v.as_bool() ? 1 : 0;
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32: return static_cast<double>(v.as_int());
    case GoType::Uint8:
    case GoType::Uint64: return static_cast<double>(v.as_uint());
    case GoType::Float64: return v.as_float();
    case GoType::String: return parse_go_float(v.as_string()).value_or(0);
    default: return 0;
  }
}

std::optional<List> slice_elements(const Value& v) {
  if (v.is_list()) return v.as_list();
  if (v.type() == GoType::Bytes) {
    // Value has no uint8 constructor: bytes come out as uint64 elements (same printing).
    List out;
    for (unsigned char c : v.as_string()) out.push_back(Value::uint64(c));
    return out;
  }
  if (v.is_object() && v.kind() == GoKind::Slice) return slice_elements(v.as_object().underlying());
  return std::nullopt;
}

bool deep_equal(const Value& a, const Value& b) {
  if (a.type() != b.type()) return false;
  if (a.is_list()) {
    const List& x = a.as_list();
    const List& y = b.as_list();
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!deep_equal(x[i], y[i])) return false;
    }
    return true;
  }
  if (a.is_map()) {
    const Map& x = a.as_map();
    const Map& y = b.as_map();
    if (x.size() != y.size()) return false;
    for (auto xi = x.begin(), yi = y.begin(); xi != x.end(); ++xi, ++yi) {
      if (xi->first != yi->first || !deep_equal(xi->second, yi->second)) return false;
    }
    return true;
  }
  if (a.is_object()) {
    return a.object_ptr() == b.object_ptr() ||
           (a.type_name() == b.type_name() && format_v(a) == format_v(b));
  }
  if (a.is_float()) return a.as_float() == b.as_float();  // NaN != NaN as in Go
  return a == b;
}

void throw_nil_deref() {
  throw FuncError{"runtime error: invalid memory address or nil pointer dereference"};
}

Value string_list(std::vector<std::string> items) {
  List out;
  out.reserve(items.size());
  for (std::string& s : items) out.push_back(Value::string(std::move(s)));
  return Value::list(std::move(out), GoType::ListString);
}

Value as_plain_map(const Value& v) {
  if (v.type() == GoType::Values) return Value::map(v.map_ptr(), GoType::MapAny);
  return v;
}

}  // namespace ejob::render::sprig

namespace ejob::render::sprig {

void register_sprig(FuncMap& map, std::shared_ptr<const Env> env) {
  using namespace sprig;
  register_sprig_strings(map, env);
  register_sprig_text(map, env);
  register_sprig_lists(map);
  register_sprig_dicts(map);
  register_sprig_math(map, env);
  register_sprig_defaults(map);
  register_sprig_reflect(map);
  register_sprig_encoding(map);
  register_sprig_regex(map);
  register_sprig_semver(map);
  register_sprig_crypto(map, env);
  register_sprig_certs(map, env);
  register_sprig_dates(map, env);
  register_sprig_paths(map, env);
  register_sprig_json(map);
}

}  // namespace ejob::render::sprig
