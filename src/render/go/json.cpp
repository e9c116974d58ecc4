/// encoding/json's encoder (encode.go, indent.go of Go 1.19; `\b`/`\f` per Go 1.22).
#include "src/render/go/json.hpp"

#include <cmath>

#include "src/render/go/error.hpp"
#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/util/base64.hpp"

namespace ejob::render::go::json {
namespace {

constexpr char k_hex[] = "0123456789abcdef";

class Encoder {
 public:
  explicit Encoder(HtmlEscape html) : m_html(html) {}
  std::string out;

  void value(const Value& v) {
    switch (v.type()) {
      case GoType::Nil: out += "null"; return;
      case GoType::Bool: out += v.as_bool() ? "true" : "false"; return;
      case GoType::Uint64: out += std::to_string(v.as_uint()); return;
      case GoType::Int:
      case GoType::Int64:
      case GoType::Int32:
      case GoType::Uint8: out += std::to_string(v.as_int()); return;
      case GoType::Float64: float64(v.as_float()); return;
      case GoType::String: out += quote(v.as_string(), m_html); return;
      case GoType::Bytes: (out += '"') += base64_encode(v.as_string()) += '"'; return;
      case GoType::ListAny:
      case GoType::ListString:
      case GoType::ListInt:
      case GoType::ListList:
        if (v.is_nil_list()) {
          out += "null";  // a nil slice (regexFindAll with no match, rest of [])
          return;
        }
        list(v.as_list());
        return;
      case GoType::MapAny:
      case GoType::MapString:
      case GoType::Values: map(v.as_map()); return;
      case GoType::Object: object(v); return;
    }
  }

 private:
  HtmlEscape m_html;

  void float64(double f) {
    if (std::isnan(f) || std::isinf(f))
      throw FuncError{"json: unsupported value: " + render::go::format_float(f, 'g', -1, 64)};
    out += format_float(f);
  }
  void list(const List& items) {
    out += '[';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ',';
      value(items[i]);
    }
    out += ']';
  }
  void map(const Map& m) {
    out += '{';
    bool first = true;
    for (const auto& [k, v] : m) {
      if (!first) out += ',';
      first = false;
      out += quote(k, m_html);
      out += ':';
      value(v);
    }
    out += '}';
  }
  void object(const Value& v) {
    // Objects that stand for a Go list or map marshal as that; other structs marshal as
    // their printed form (templates never pass them to toJson in practice).
    Value u = v.as_object().underlying();
    if (!u.is_nil())
      value(u);
    else
      out += quote(v.as_object().format_v(), m_html);
  }
};

}  // namespace

std::string format_float(double f) {
  double a = std::fabs(f);
  char fmt = (a != 0 && (a < 1e-6 || a >= 1e21)) ? 'e' : 'f';
  std::string s = render::go::format_float(f, fmt, -1, 64);
  if (fmt == 'e') {
    // clean up e-09 to e-9
    size_t n = s.size();
    if (n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') s.erase(n - 2, 1);
  }
  return s;
}

std::string quote(std::string_view s, HtmlEscape html) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    auto b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      bool html_char = b == '<' || b == '>' || b == '&';
      if (b >= 0x20 && b != '"' && b != '\\' && !(html_char && html == HtmlEscape::Yes)) {
        out += static_cast<char>(b);
      } else {
        out += '\\';
        switch (b) {
          case '\\':
          case '"': out += static_cast<char>(b); break;
          case '\b': out += 'b'; break;
          case '\f': out += 'f'; break;
          case '\n': out += 'n'; break;
          case '\r': out += 'r'; break;
          case '\t': out += 't'; break;
          default:
            out += "u00";
            out += k_hex[b >> 4];
            out += k_hex[b & 0xF];
        }
      }
      ++i;
      continue;
    }
    go::Rune r = go::decode_rune(s.substr(i));
    if (r.r == go::k_rune_error && r.width == 1) {
      out += "\\ufffd";
    } else if (r.r == 0x2028 || r.r == 0x2029) {
      out += "\\u202";
      out += k_hex[r.r & 0xF];
    } else {
      out.append(s.substr(i, r.width));
    }
    i += r.width;
  }
  out += '"';
  return out;
}

std::string marshal(const Value& v, HtmlEscape html) {
  Encoder e(html);
  e.value(v);
  return std::move(e.out);
}

std::string indent(std::string_view src, std::string_view prefix, std::string_view ind) {
  // json.Indent: newline + prefix + depth×indent before each element and closing bracket;
  // an empty [] or {} stays on one line. Strings are copied verbatim.
  std::string out;
  int depth = 0;
  bool need_indent = false;
  bool in_string = false;
  auto newline = [&] {
    out += '\n';
    out += prefix;
    for (int i = 0; i < depth; ++i) out += ind;
  };
  for (size_t i = 0; i < src.size(); ++i) {
    char c = src[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < src.size())
        out += src[++i];
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (need_indent && c != ']' && c != '}') {
      need_indent = false;
      ++depth;
      newline();
    }
    switch (c) {
      case '"':
        in_string = true;
        out += c;
        break;
      case '{':
      case '[':
        out += c;
        need_indent = true;
        break;
      case ',':
        out += c;
        newline();
        break;
      case ':': out += ": "; break;
      case '}':
      case ']':
        if (need_indent) {
          need_indent = false;  // suppress indent in empty object/array
        } else {
          --depth;
          newline();
        }
        out += c;
        break;
      default: out += c;
    }
  }
  return out;
}

std::string marshal_indent(const Value& v, std::string_view prefix, std::string_view ind,
                           HtmlEscape html) {
  return indent(marshal(v, html), prefix, ind);
}

}  // namespace ejob::render::go::json
