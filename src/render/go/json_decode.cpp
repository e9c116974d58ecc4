/// encoding/json's decoder for interface{} targets (scanner.go, decode.go of Go 1.19): the
/// whole input is validated first with Go's scanner state machine (so the first syntax error
/// wins, with Go's wording), then decoded.
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "src/render/go/json.hpp"
#include "src/render/go/strconv.hpp"

namespace ejob::render::go::json {
namespace {

// scanner.go's quoteChar.
std::string quote_char(unsigned char c) {
  if (c == '\'') return R"('\'')";
  if (c == '"') return R"('"')";
  std::string s;
  go::append_rune(s, c);  // Go's string(byte) is the rune U+00XX
  std::string q = go::quote(s);
  return "'" + q.substr(1, q.size() - 2) + "'";
}

struct SyntaxError {
  std::string message;
};

[[noreturn]] void fail(unsigned char c, std::string_view context) {
  throw SyntaxError{"invalid character " + quote_char(c) + " " + std::string(context)};
}

[[noreturn]] void fail_eof() { throw SyntaxError{"unexpected end of JSON input"}; }

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A recursive-descent reading of Go's scanner: same acceptance, same first error.
class Parser {
 public:
  explicit Parser(std::string_view s) : m_s(s) {}

  Value parse_top() {
    skip_space();
    if (m_i >= m_s.size()) fail_eof();
    Value v = value();
    skip_space();
    if (m_i < m_s.size()) fail(cur(), "after top-level value");
    return v;
  }
  std::string number_error;

 private:
  std::string_view m_s;
  size_t m_i = 0;
  int m_depth = 0;

  unsigned char cur() const { return static_cast<unsigned char>(m_s[m_i]); }
  // Go's scanner feeds a space at the end of input: mid-token, that space is the culprit.
  unsigned char cur_or_space() const { return m_i < m_s.size() ? cur() : ' '; }
  void skip_space() {
    while (m_i < m_s.size() && is_space(m_s[m_i])) ++m_i;
  }
  unsigned char next_nonspace() {
    skip_space();
    if (m_i >= m_s.size()) fail_eof();
    return cur();
  }

  Value value() {
    unsigned char c = next_nonspace();
    switch (c) {
      case '{': return object();
      case '[': return array();
      case '"': return Value::string(string());
      case 't': return literal("true", Value::boolean(true));
      case 'f': return literal("false", Value::boolean(false));
      case 'n': return literal("null", Value());
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        fail(c, "looking for beginning of value");
    }
  }

  Value literal(std::string_view word, Value v) {
    for (size_t k = 0; k < word.size(); ++k, ++m_i) {
      if (k > 0 && cur_or_space() != static_cast<unsigned char>(word[k]))
        fail(cur_or_space(), "in literal " + std::string(word) + " (expecting '" + word[k] + "')");
    }
    return v;
  }

  void enter() {
    if (++m_depth > 10000) throw SyntaxError{"exceeded max depth"};
  }

  Value object() {
    enter();
    ++m_i;
    Map m;
    unsigned char c = next_nonspace();
    if (c == '}') {
      ++m_i;
      --m_depth;
      return Value::map(std::move(m));
    }
    for (;;) {
      if (c != '"') fail(c, "looking for beginning of object key string");
      std::string key = string();
      if (next_nonspace() != ':') fail(cur(), "after object key");
      ++m_i;
      Value v = value();
      m.insert_or_assign(std::move(key), std::move(v));  // duplicate keys: last wins
      c = next_nonspace();
      if (c == '}') break;
      if (c != ',') fail(c, "after object key:value pair");
      ++m_i;
      c = next_nonspace();
    }
    ++m_i;
    --m_depth;
    return Value::map(std::move(m));
  }

  Value array() {
    enter();
    ++m_i;
    List items;
    if (next_nonspace() == ']') {
      ++m_i;
      --m_depth;
      return Value::list(std::move(items));
    }
    for (;;) {
      items.push_back(value());
      unsigned char c = next_nonspace();
      if (c == ']') break;
      if (c != ',') fail(c, "after array element");
      ++m_i;
    }
    ++m_i;
    --m_depth;
    return Value::list(std::move(items));
  }

  // Reads \uXXXX after the backslash-u; returns the code unit.
  char32_t hex4() {
    char32_t r = 0;
    for (int k = 0; k < 4; ++k, ++m_i) {
      int h = m_i < m_s.size() ? go::unhex(m_s[m_i]) : -1;
      if (h < 0) fail(cur_or_space(), "in \\u hexadecimal character escape");
      r = r << 4 | static_cast<char32_t>(h);
    }
    return r;
  }

  void escape(std::string& out) {
    if (m_i >= m_s.size()) fail(' ', "in string escape code");
    char c = m_s[m_i++];
    switch (c) {
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case '\\':
      case '/':
      case '"': out += c; return;
      case 'u': break;
      default: --m_i; fail(cur(), "in string escape code");
    }
    char32_t r = hex4();
    if (r >= 0xD800 && r < 0xDC00) {
      // A high surrogate combines with a following \u low surrogate; alone it is U+FFFD.
      if (m_i + 1 < m_s.size() && m_s[m_i] == '\\' && m_s[m_i + 1] == 'u') {
        size_t save = m_i;
        m_i += 2;
        char32_t r2 = hex4();
        if (r2 >= 0xDC00 && r2 < 0xE000) {
          go::append_rune(out, 0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00));
          return;
        }
        m_i = save;
      }
      r = go::k_rune_error;
    } else if (r >= 0xDC00 && r < 0xE000) {
      r = go::k_rune_error;
    }
    go::append_rune(out, r);
  }

  std::string string() {
    ++m_i;  // opening quote
    std::string out;
    for (;;) {
      if (m_i >= m_s.size()) fail_eof();
      auto c = cur();
      if (c == '"') {
        ++m_i;
        return out;
      }
      if (c == '\\') {
        ++m_i;
        escape(out);
      } else if (c < 0x20) {
        fail(c, "in string literal");
      } else if (c < 0x80) {
        // the run of plain ASCII from here on, appended at once
        size_t end = m_i + 1;
        while (end < m_s.size()) {
          const auto b = static_cast<unsigned char>(m_s[end]);
          if (b == '"' || b == '\\' || b < 0x20 || b >= 0x80) break;
          ++end;
        }
        out.append(m_s.substr(m_i, end - m_i));
        m_i = end;
      } else {
        go::Rune r = go::decode_rune(m_s.substr(m_i));
        if (r.r == go::k_rune_error && r.width == 1)
          go::append_rune(out, go::k_rune_error);
        else
          out.append(m_s.substr(m_i, r.width));
        m_i += r.width;
      }
    }
  }

  void digits() {
    while (m_i < m_s.size() && m_s[m_i] >= '0' && m_s[m_i] <= '9') ++m_i;
  }

  Value number() {
    size_t start = m_i;
    if (m_s[m_i] == '-') {
      ++m_i;
      if (cur_or_space() < '0' || cur_or_space() > '9') fail(cur_or_space(), "in numeric literal");
    }
    if (m_s[m_i] == '0')
      ++m_i;
    else
      digits();
    if (m_i < m_s.size() && m_s[m_i] == '.') {
      ++m_i;
      if (cur_or_space() < '0' || cur_or_space() > '9')
        fail(cur_or_space(), "after decimal point in numeric literal");
      digits();
    }
    if (m_i < m_s.size() && (m_s[m_i] == 'e' || m_s[m_i] == 'E')) {
      ++m_i;
      if (m_i < m_s.size() && (m_s[m_i] == '+' || m_s[m_i] == '-')) ++m_i;
      if (cur_or_space() < '0' || cur_or_space() > '9')
        fail(cur_or_space(), "in exponent of numeric literal");
      digits();
    }
    std::string text(m_s.substr(start, m_i - start));
    double f = std::strtod(text.c_str(), nullptr);
    if (std::isinf(f)) {
      // Go stores nothing for the value and reports the first such error after decoding.
      if (number_error.empty())
        number_error = "json: cannot unmarshal number " + text + " into Go value of type float64";
      return Value();
    }
    return Value::float64(f);
  }
};

std::string kind_word(const Value& v) {
  if (v.is_map()) return "object";
  if (v.is_list()) return "array";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  return "number";
}

}  // namespace

Decoded unmarshal(std::string_view text, Target target) {
  Parser p(text);
  Decoded out;
  try {
    out.value = p.parse_top();
  } catch (const SyntaxError& e) {
    out.error = e.message;
    out.value = Value();
    if (target == Target::Map) out.value = Value::map();
    if (target == Target::Slice) out.value = Value::list();
    return out;
  }
  out.error = p.number_error;
  if (target == Target::Any || out.value.is_nil()) {
    if (out.value.is_nil() && target == Target::Map) out.value = Value::map();
    if (out.value.is_nil() && target == Target::Slice) out.value = Value::list();
    return out;
  }
  bool fits = target == Target::Map ? out.value.is_map() : out.value.is_list();
  if (!fits) {
    const char* type = target == Target::Map ? "map[string]interface {}" : "[]interface {}";
    out.error = "json: cannot unmarshal " + kind_word(out.value) + " into Go value of type " + type;
    out.value = target == Target::Map ? Value::map() : Value::list();
  }
  return out;
}

}  // namespace ejob::render::go::json
