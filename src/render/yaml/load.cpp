#include "src/render/yaml/load.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/yaml/errors.hpp"
#include "src/render/yaml/fast.hpp"
#include "src/render/yaml/scalar.hpp"
#include "src/util/base64.hpp"
#include "src/util/error.hpp"

namespace ejob::render::yaml {

using go::format_float;
using go::List;
using go::Map;
using go::Value;

namespace {

constexpr std::string_view k_tag_prefix = "tag:yaml.org,2002:";

// A failure while converting; the message is the part after "error converting YAML to JSON: ".
struct ConvertError {
  std::string message;
  YAML::Mark mark;
};

// Go's json.Marshal replaces invalid UTF-8 with U+FFFD; the round trip keeps that.
std::string json_clean(const std::string& s) {
  if (go::valid_utf8(s)) return s;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    go::Rune r = go::decode_rune(std::string_view(s).substr(i));
    if (r.r == go::k_rune_error && r.width == 1)
      go::append_rune(out, go::k_rune_error);
    else
      out.append(s, i, r.width);
    i += r.width;
  }
  return out;
}

// A scalar as go-yaml v2 decodes it into interface{}, before the JSON round trip.
yaml::Resolved resolve_scalar(const YAML::Node& n, std::string& str) {
  const std::string& tag = n.Tag();
  str = n.Scalar();
  if (tag == "?" || tag.empty()) return yaml::resolve_plain(str);
  if (tag == "!") return {};  // quoted or block scalar: a string
  std::string_view short_tag = tag;
  if (short_tag.starts_with(k_tag_prefix))
    short_tag.remove_prefix(k_tag_prefix.size());
  else
    return {};  // a local tag: go-yaml keeps the text
  if (short_tag == "str" || short_tag == "timestamp") return {};
  if (short_tag == "binary") {
    std::optional<std::string> bytes = base64_decode(str);
    if (!bytes) throw ConvertError{"yaml: !!binary value contains invalid base64 data", n.Mark()};
    str = std::move(*bytes);
    return {};
  }
  yaml::Resolved r = yaml::resolve_plain(str);
  bool fits = (short_tag == "int" &&
               (r.kind == yaml::ScalarKind::Int || r.kind == yaml::ScalarKind::Uint)) ||
              (short_tag == "float" &&
               (r.kind == yaml::ScalarKind::Float || r.kind == yaml::ScalarKind::Int)) ||
              (short_tag == "bool" && r.kind == yaml::ScalarKind::Bool) ||
              (short_tag == "null" && r.kind == yaml::ScalarKind::Null) ||
              (short_tag == "merge" && r.kind == yaml::ScalarKind::Merge);
  if (short_tag == "float" && r.kind == yaml::ScalarKind::Int) {
    r.kind = yaml::ScalarKind::Float;
    r.f = static_cast<double>(r.i);
  }
  if (!fits &&
      (short_tag == "int" || short_tag == "float" || short_tag == "bool" || short_tag == "null")) {
    static constexpr const char* k_names[] = {"!!null",  "!!bool", "!!int",       "!!int",
                                              "!!float", "!!str",  "!!timestamp", "!!merge"};
    throw ConvertError{"yaml: cannot decode " + std::string(k_names[static_cast<int>(r.kind)]) +
                           " `" + str + "` as a !!" + std::string(short_tag),
                       n.Mark()};
  }
  return fits ? r : yaml::Resolved{};
}

// True when the quoted scalar opening at text[pos] has its closing quote (yaml-cpp accepts a
// quoted scalar cut off by the end of the input; libyaml does not).
bool quote_closed(std::string_view text, size_t pos) {
  char q = text[pos];
  for (size_t i = pos + 1; i < text.size(); ++i) {
    if (q == '"' && text[i] == '\\') {
      ++i;
    } else if (text[i] == q) {
      if (q == '\'' && i + 1 < text.size() && text[i + 1] == '\'')
        ++i;
      else
        return true;
    }
  }
  return false;
}

// %#v of a collection used as a key, as go-yaml v2 holds it (maps are map[interface{}]…).
std::string go_syntax_key(const Value& v) {
  Value args[] = {v};
  std::string s = sprintf("%#v", args);
  constexpr std::string_view k_map = "map[string]interface {}";
  for (size_t at = s.find(k_map); at != std::string::npos; at = s.find(k_map, at))
    s.replace(at, k_map.size(), "map[interface {}]interface {}");
  return s;
}

class Converter {
 public:
  explicit Converter(std::string_view text) : m_text(text) {}

  Value convert(const YAML::Node& n, int depth = 0) {
    if (depth > 10000) throw ConvertError{"yaml: exceeded max depth", n.Mark()};
    switch (n.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null: return {};
      case YAML::NodeType::Scalar: return scalar(n);
      case YAML::NodeType::Sequence: {
        List items;
        for (const auto& item : n) items.push_back(convert(item, depth + 1));
        return Value::list(std::move(items));
      }
      case YAML::NodeType::Map: {
        Map m;
        mapping(n, m, depth);
        return Value::map(std::move(m));
      }
    }
    return {};
  }

 private:
  Value scalar(const YAML::Node& n) {
    check_terminated(n);
    std::string str;
    yaml::Resolved r = resolve_scalar(n, str);
    switch (r.kind) {
      case yaml::ScalarKind::Null: return {};
      case yaml::ScalarKind::Bool: return Value::boolean(r.b);
      case yaml::ScalarKind::Int: return Value::float64(static_cast<double>(r.i));
      case yaml::ScalarKind::Uint: return Value::float64(static_cast<double>(r.u));
      case yaml::ScalarKind::Float:
        if (std::isnan(r.f) || std::isinf(r.f))
          throw ConvertError{"json: unsupported value: " + format_float(r.f, 'g', -1, 64),
                             n.Mark()};
        return Value::float64(r.f);
      default: return Value::string(json_clean(str));
    }
  }

  std::string_view m_text;

  void check_terminated(const YAML::Node& n) const {
    if (n.Tag() != "!" || n.Mark().pos < 0) return;
    auto pos = static_cast<size_t>(n.Mark().pos);
    if (pos >= m_text.size() || (m_text[pos] != '"' && m_text[pos] != '\'')) return;
    if (quote_closed(m_text, pos)) return;
    auto lines = static_cast<int>(std::count(m_text.begin(), m_text.end(), '\n'));
    YAML::Mark end;
    end.pos = static_cast<int>(m_text.size());
    end.line = lines;
    throw ConvertError{
        "yaml: " + yaml::go_syntax_message(m_text, "illegal EOF in scalar", lines, -1), end};
  }

  static bool is_merge_key(const YAML::Node& k) {
    if (!k.IsScalar() || k.Scalar() != "<<") return false;
    return k.Tag() == "?" || k.Tag() == std::string(k_tag_prefix) + "merge";
  }

  // go-yaml's merge(): a map, or a sequence of maps applied last to first.
  void merge(const YAML::Node& v, Map& out, int depth) {
    auto fail = [&] {
      throw ConvertError{"yaml: map merge requires map or sequence of maps as the value", v.Mark()};
    };
    if (v.IsMap()) {
      mapping(v, out, depth);
    } else if (v.IsSequence()) {
      for (size_t i = v.size(); i-- > 0;) {
        if (!v[i].IsMap()) fail();
        mapping(v[i], out, depth);
      }
    } else {
      fail();
    }
  }

  void mapping(const YAML::Node& n, Map& out, int depth) {
    for (const auto& kv : n) {
      if (is_merge_key(kv.first)) {
        merge(kv.second, out, depth + 1);
        continue;
      }
      std::string key = key_string(kv.first, kv.second);
      out.insert_or_assign(std::move(key), convert(kv.second, depth + 1));
    }
  }

  std::string key_string(const YAML::Node& k, const YAML::Node& v) {
    if (k.IsScalar()) {
      std::string str;
      yaml::Resolved r = resolve_scalar(k, str);
      switch (r.kind) {
        case yaml::ScalarKind::Bool: return r.b ? "true" : "false";
        case yaml::ScalarKind::Int: return std::to_string(r.i);
        case yaml::ScalarKind::Float: {
          std::string s = format_float(r.f, 'g', -1, 32);
          if (s == "+Inf") return ".inf";
          if (s == "-Inf") return "-.inf";
          if (s == "NaN") return ".nan";
          return s;
        }
        case yaml::ScalarKind::Null: break;
        case yaml::ScalarKind::Uint: return unsupported_key("uint64", k, v);
        default: return json_clean(str);
      }
    }
    if (k.IsMap() || k.IsSequence())
      throw ConvertError{"yaml: invalid map key: " + go_syntax_key(convert(k)), k.Mark()};
    return unsupported_key("%!s(<nil>)", k, v);
  }

  std::string unsupported_key(const std::string& type, const YAML::Node& k, const YAML::Node& v) {
    Value args[] = {Value::string(type), k.IsNull() ? Value() : scalar(k), convert(v)};
    throw ConvertError{sprintf("Unsupported map key of type: %s, key: %+#v, value: %+#v", args),
                       k.Mark()};
  }
};

// go-yaml names the missing anchor: `unknown anchor 'x' referenced`.
std::string unknown_anchor(std::string_view text, const YAML::Mark& mark) {
  size_t at = mark.pos >= 0 ? text.find('*', static_cast<size_t>(mark.pos)) : std::string::npos;
  if (at == std::string_view::npos) return "unknown anchor referenced";
  size_t end = text.find_first_of(" \t\r\n,[]{}", at + 1);
  std::string_view name = text.substr(at + 1, end == std::string_view::npos ? end : end - at - 1);
  return "unknown anchor '" + std::string(name) + "' referenced";
}

YamlDecoded decode(std::string_view text, TopKeyFilter keep_top = nullptr) {
  YamlDecoded out;
  // Most YAML, without yaml-cpp. The fast path declines every byte go-yaml's reader refuses
  // (control characters, bad UTF-8, and more), so what it reads needs no reader check.
  if (std::optional<Value> simple = yaml::load_simple(text, keep_top)) {
    out.value = std::move(*simple);
    return out;
  }
  size_t bad = 0;
  std::string reader = yaml::go_reader_error(text, bad);
  // go-yaml decodes its first 512-byte chunk before scanning: an error there comes first
  if (!reader.empty() && bad < 512) {
    out.error = "error converting YAML to JSON: yaml: " + reader;
    return out;
  }
  int directive_line = -1;
  std::string directive = yaml::go_directive_error(text, directive_line);
  try {
    YAML::Node root = YAML::Load(std::string(text));
    out.value = Converter{text}.convert(root);
    if (!reader.empty()) {  // yaml-cpp takes bytes go-yaml's reader refuses
      out.value = Value();
      out.error = "error converting YAML to JSON: yaml: " + reader;
    } else if (!directive.empty()) {  // yaml-cpp skips directives go-yaml's scanner refuses
      out.value = Value();
      out.line = directive_line + 1;
      out.column = 1;
      out.error = "error converting YAML to JSON: yaml: " + directive;
    }
  } catch (const YAML::ParserException& e) {
    bool directive_first = !directive.empty() && directive_line <= e.mark.line;
    out.line = directive_first ? directive_line + 1 : e.mark.line + 1;
    out.column = directive_first ? 1 : e.mark.column + 1;
    std::string msg =
        directive_first ? directive : yaml::go_syntax_message(text, e.msg, e.mark.line, e.mark.pos);
    if (msg == "unknown anchor referenced") msg = unknown_anchor(text, e.mark);
    out.error = "error converting YAML to JSON: yaml: " + msg;
  } catch (const ConvertError& e) {
    if (!e.mark.is_null()) {
      out.line = e.mark.line + 1;
      out.column = e.mark.column + 1;
    }
    out.error = "error converting YAML to JSON: " + e.message;
  }
  return out;
}

const char* json_kind(const Value& v) {
  if (v.is_map()) return "object";
  if (v.is_list()) return "array";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  return "number";
}

YamlDecoded decode_into(std::string_view text, bool want_map) {
  YamlDecoded d = decode(text);
  Value empty = want_map ? Value::map() : Value::list();
  if (!d.error.empty()) {
    d.value = empty;
    return d;
  }
  if (d.value.is_nil()) {
    d.value = empty;
  } else if (want_map ? !d.value.is_map() : !d.value.is_list()) {
    d.error = std::string("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ") +
              json_kind(d.value) + " into Go value of type " +
              (want_map ? "map[string]interface {}" : "[]interface {}");
    d.value = empty;
  }
  return d;
}

}  // namespace

YamlDecoded try_load_yaml(std::string_view text) { return decode(text); }

YamlDecoded try_load_yaml_map(std::string_view text) { return decode_into(text, true); }

YamlDecoded try_load_yaml_list(std::string_view text) { return decode_into(text, false); }

Value load_yaml(std::string_view text, std::string_view file) {
  return load_yaml_keys(text, file, nullptr);
}

Value load_yaml_keys(std::string_view text, std::string_view file, TopKeyFilter keep_top) {
  YamlDecoded d = decode(text, keep_top);
  if (d.error.empty()) return d.value;
  Location where{std::string(file), d.line, d.column, {}};
  if (d.line > 0) {
    // The offending line, for the caret display.
    size_t start = 0;
    for (int l = 1; l < d.line && start != std::string_view::npos; ++l) {
      start = text.find('\n', start);
      if (start != std::string_view::npos) ++start;
    }
    if (start != std::string_view::npos) {
      size_t end = text.find('\n', start);
      where.source_line = std::string(
          text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    }
  }
  throw Error(ErrorCode::Input, d.error, std::move(where));
}

}  // namespace ejob::render::yaml
