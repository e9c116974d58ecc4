#include "src/render/helm/strvals.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/go/utf8.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::GoType;
using go::List;
using go::Map;
using go::Value;

namespace {

// Limits Helm enforces (CVE fixes in pkg/strvals).
constexpr int k_max_index = 65536;
constexpr int k_max_nested_name_level = 30;
constexpr std::string_view k_replacement = "\xEF\xBF\xBD";  // U+FFFD

/// A real parse error (Go's non-EOF error values).
struct SetError {
  std::string message;
};

/// A Go runtime panic inside `key`; Helm recovers it as `unable to parse key: …`.
struct Panic {
  std::string message;
};

/// Go's io.EOF travels as an ordinary result, not as an error.
enum class Step { Ok, Eof };

/// The panic text of a failed type assertion `v.(T)` on an interface{} value.
[[noreturn]] void conversion_panic(const Value& v, std::string_view want) {
  std::string have = v.is_nil() ? "nil" : v.type_name();
  throw Panic{fmt::format("interface conversion: interface {{}} is {}, not {}", have, want)};
}

/// Decodes one UTF-8 rune at `s[pos]` (pos < s.size()) with Go's rules (go/utf8.hpp).
char32_t decode_rune(std::string_view s, size_t pos, size_t& width) {
  go::Rune r = go::decode_rune(s.substr(pos));
  width = r.width;
  return r.r;
}

/// fmt's %q of a []rune: each rune as a Go rune literal, `['n' 'a' 'm' 'e']`.
std::string quote_runes(std::string_view s) {
  std::string out = "[";
  for (size_t pos = 0, width = 0; pos < s.size(); pos += width) {
    if (pos > 0) out += ' ';
    out += go::quote_rune(decode_rune(s, pos, width));
  }
  return out + "]";
}

/// bytes.Buffer as an io.RuneReader with one rune of unread.
class RuneScanner {
 public:
  explicit RuneScanner(std::string_view s) : m_s(s) {}
  bool read(char32_t& r) {
    if (m_pos >= m_s.size()) return false;
    r = decode_rune(m_s, m_pos, m_last);
    m_pos += m_last;
    return true;
  }
  void unread() { m_pos -= m_last; }
  [[nodiscard]] std::string_view rest() const { return m_s.substr(m_pos); }
  void skip(size_t n) { m_pos += n; }

 private:
  std::string_view m_s;
  size_t m_pos = 0;
  size_t m_last = 0;
};

struct Runes {
  std::string text;
  char32_t last = 0;
  bool eof = false;
};

bool is_go_space(char32_t r) {
  return r == ' ' || (r >= '\t' && r <= '\r') || r == 0x85 || r == 0xA0 || r == 0x1680 ||
         (r >= 0x2000 && r <= 0x200A) || r == 0x2028 || r == 0x2029 || r == 0x202F || r == 0x205F ||
         r == 0x3000;
}

/// strconv.Atoi on an index, with Go's error text.
int atoi_index(const std::string& s) {
  std::string_view digits = s;
  bool neg = false;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
    neg = digits[0] == '-';
    digits.remove_prefix(1);
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ptr != digits.data() + digits.size() || ec == std::errc::invalid_argument)
    throw SetError{"error parsing index: strconv.Atoi: parsing " + go_quote(s) +
                   ": invalid syntax"};
  if (ec == std::errc::result_out_of_range)
    throw SetError{"error parsing index: strconv.Atoi: parsing " + go_quote(s) +
                   ": value out of range"};
  return static_cast<int>(neg ? -v : v);
}

List set_index(List list, int index, Value val) {
  if (index < 0) throw SetError{fmt::format("negative {} index not allowed", index)};
  if (index > k_max_index)
    throw SetError{fmt::format("index of {} is greater than maximum supported index of {}", index,
                               k_max_index)};
  if (list.size() <= static_cast<size_t>(index)) list.resize(index + 1);
  list[index] = std::move(val);
  return list;
}

void set(Map& data, const std::string& key, Value val) {
  if (key.empty()) return;  // Helm never sets an empty key
  data.insert_or_assign(key, std::move(val));
}

/// The state of one parse (Helm's `parser` and `literalParser`).
class Parser {
 public:
  Parser(std::string_view s, SetFlag flag, const SetFileReader& reader)
      : m_sc(s), m_flag(flag), m_reader(reader) {}

  void parse(Map& data) {
    while (key(data, 0) == Step::Ok) {
    }
  }

 private:
  bool literal() const { return m_flag == SetFlag::SetLiteral; }

  Runes runes_until(std::u32string_view stop) {
    Runes out;
    char32_t r = 0;
    while (true) {
      if (!m_sc.read(r)) {
        out.eof = true;
        return out;
      }
      if (stop.find(r) != std::u32string_view::npos) {
        out.last = r;
        return out;
      }
      if (r == '\\' && !literal()) {
        if (!m_sc.read(r)) {
          out.eof = true;
          return out;
        }
      }
      go::append_rune(out.text, r);
    }
  }

  Step key(Map& data, int level) {
    try {
      return key_body(data, level);
    } catch (const Panic& p) {
      throw SetError{"unable to parse key: " + p.message};
    }
  }

  Step key_body(Map& data, int level) {
    Runes k = runes_until(literal() ? U"=[." : U"=[,.");
    if (k.eof) {
      if (k.text.empty()) return Step::Eof;
      throw SetError{"key " + go_quote(k.text) + " has no value"};
    }
    switch (k.last) {
      case '[': return key_index_value(data, k.text, level);
      case '=': return key_value(data, k.text);
      case ',':
        set(data, k.text, Value::string(""));
        throw SetError{"key " + go_quote(k.text) + " has no value (cannot end with ,)"};
      default: return key_nested(data, k.text, level + 1);
    }
  }

  Step key_index_value(Map& data, const std::string& k, int level) {
    int i = key_index();
    List list;
    if (auto it = data.find(k); it != data.end()) {
      if (it->second.type() != GoType::ListAny) conversion_panic(it->second, "[]interface {}");
      list = it->second.as_list();
    }
    Step step = Step::Ok;
    list = list_item(std::move(list), i, level, step);
    set(data, k, Value::list(std::move(list)));
    return step;
  }

  Step key_nested(Map& data, const std::string& k, int level) {
    if (level > k_max_nested_name_level)
      throw SetError{fmt::format(
          "value name nested level is greater than maximum supported nested level of {}",
          k_max_nested_name_level)};
    Value inner = Value::map();
    if (auto it = data.find(k); it != data.end()) {
      if (it->second.type() != GoType::MapAny)
        conversion_panic(it->second, "map[string]interface {}");
      inner = it->second;  // Go maps are references: fill the existing one
    }
    Step step = key(inner.mutable_map(), level);
    if (step == Step::Ok && inner.as_map().empty())
      throw SetError{"key map " + go_quote(k) + " has no value"};
    if (!inner.as_map().empty()) set(data, k, inner);
    return step;
  }

  Step key_value(Map& data, const std::string& k) {
    if (literal()) {
      set(data, k, Value::string(std::string(m_sc.rest())));
      m_sc.skip(m_sc.rest().size());
      return Step::Ok;
    }
    if (m_flag == SetFlag::SetJson) {
      set(data, k, json_value());
      return Step::Ok;
    }
    std::optional<List> list;
    switch (val_list(list)) {
      case ListResult::List: set(data, k, Value::list(std::move(*list))); return Step::Ok;
      case ListResult::Eof: set(data, k, Value::string("")); return Step::Eof;
      case ListResult::NotList: break;
    }
    Runes v = runes_until(U",");
    set(data, k, read_value(v.text));
    return Step::Ok;
  }

  int key_index() {
    Runes v = runes_until(U"]");
    if (v.eof) throw SetError{"error parsing index: EOF"};
    return atoi_index(v.text);
  }

  List list_item(List list, int i, int level, Step& step) {
    if (i < 0) throw SetError{fmt::format("negative {} index not allowed", i)};
    Runes k = runes_until(U"[.=");
    if (!k.text.empty())
      throw SetError{"unexpected data at end of array index: " + quote_runes(k.text)};
    if (k.eof) {
      step = Step::Eof;
      return list;
    }
    switch (k.last) {
      case '=': return set_index(std::move(list), i, item_value());
      case '[': return nested_list_item(std::move(list), i, level, step);
      default: return map_list_item(std::move(list), i, level, step);
    }
  }

  List nested_list_item(List list, int i, int level, Step& step) {
    int next = key_index();
    List current;
    if (list.size() > static_cast<size_t>(i) && !list[i].is_nil()) {
      if (list[i].type() != GoType::ListAny) conversion_panic(list[i], "[]interface {}");
      current = list[i].as_list();
    }
    List inner = list_item(std::move(current), next, level, step);
    if (step == Step::Eof) {
      // Helm returns the outer list unchanged, but an existing inner list shares its array
      // with list[i]: items the inner call replaced in place (never appended) stay replaced.
      if (list.size() > static_cast<size_t>(i) && !list[i].is_nil())
        list[i] = Value::list(std::move(inner));
      return list;
    }
    return set_index(std::move(list), i, Value::list(std::move(inner)));
  }

  List map_list_item(List list, int i, int level, Step& step) {
    Value inner = Value::map();
    if (list.size() > static_cast<size_t>(i)) {
      if (list[i].type() == GoType::MapAny)
        inner = list[i];
      else
        list[i] = inner;  // indices out of order: Helm starts a fresh map here
    }
    step = key(inner.mutable_map(), level);
    // Helm's parser_test.go keeps only what EOF leaves: at the end of the input (`a[1].c=`)
    // the item is not set; an existing item (list[i], shared map) keeps what key() put in it.
    if (step == Step::Eof) return list;
    return set_index(std::move(list), i, inner);
  }

  /// The value after `key[i]=`.
  Value item_value() {
    if (literal()) {
      std::string rest(m_sc.rest());
      m_sc.skip(rest.size());
      return Value::string(std::move(rest));
    }
    if (m_flag == SetFlag::SetJson) return json_value();
    std::optional<List> list;
    switch (val_list(list)) {
      case ListResult::List: return Value::list(std::move(*list));
      case ListResult::Eof: return Value::string("");
      case ListResult::NotList: break;
    }
    return read_value(runes_until(U",").text);
  }

  enum class ListResult { List, Eof, NotList };

  ListResult val_list(std::optional<List>& out) {
    char32_t r = 0;
    if (!m_sc.read(r)) return ListResult::Eof;
    if (r != '{') {
      m_sc.unread();
      return ListResult::NotList;
    }
    List list;
    while (true) {
      Runes item = runes_until(U",}");
      if (item.eof) throw SetError{"list must terminate with '}'"};
      if (item.last == '}') {
        if (m_sc.read(r) && r != ',') m_sc.unread();
        list.push_back(read_value(item.text));
        out = std::move(list);
        return ListResult::List;
      }
      list.push_back(read_value(item.text));
    }
  }

  /// Helm's `reader`: how a scalar becomes a value for this flag.
  Value read_value(const std::string& text) {
    switch (m_flag) {
      case SetFlag::Set: return typed_set_value(text);
      case SetFlag::SetFile:
        if (!m_reader) throw SetError{"no reader for --set-file values"};
        return Value::string(m_reader(text));
      default: return Value::string(text);
    }
  }

  /// Skips white space and one comma; true if the value is empty (EOF or a comma came first).
  bool empty_val() {
    char32_t r = 0;
    while (m_sc.read(r)) {
      if (r == ',') return true;
      if (!is_go_space(r)) {
        m_sc.unread();
        return false;
      }
    }
    return true;
  }

  Value json_value() {
    if (empty_val()) return {};
    size_t consumed = 0;
    Value v;
    try {
      v = decode_json_value(m_sc.rest(), consumed);
    } catch (const Error& e) {
      throw SetError{e.message()};
    }
    m_sc.skip(consumed);
    empty_val();
    return v;
  }

  RuneScanner m_sc;
  SetFlag m_flag;
  const SetFileReader& m_reader;
};

// ---- encoding/json decoding into interface{} ----------------------------------------------

class JsonDecoder {
 public:
  explicit JsonDecoder(std::string_view s) : m_s(s) {}

  Value document(size_t& consumed) {
    skip_space();
    if (m_pos >= m_s.size()) fail(m_s.empty() ? "EOF" : "unexpected EOF");
    Value v = value();
    consumed = m_pos;
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const { throw Error(ErrorCode::Input, msg); }
  [[noreturn]] void unexpected(std::string_view context) const {
    if (m_pos >= m_s.size()) fail("unexpected EOF");
    std::string ch(1, m_s[m_pos]);
    fail("invalid character " + std::string(ch == "'" ? "'\\''" : "'" + ch + "'") + " " +
         std::string(context));
  }
  void skip_space() {
    while (m_pos < m_s.size() &&
           (m_s[m_pos] == ' ' || m_s[m_pos] == '\t' || m_s[m_pos] == '\n' || m_s[m_pos] == '\r'))
      ++m_pos;
  }
  bool eat(char c) {
    if (m_pos < m_s.size() && m_s[m_pos] == c) {
      ++m_pos;
      return true;
    }
    return false;
  }

  Value value() {
    skip_space();
    if (m_pos >= m_s.size()) fail("unexpected EOF");
    char c = m_s[m_pos];
    if (c == '{' || c == '[') return nested(c);
    if (c == '"') return Value::string(string());
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    for (auto [word, v] : {std::pair<std::string_view, Value>{"true", Value::boolean(true)},
                           {"false", Value::boolean(false)},
                           {"null", Value()}}) {
      if (m_s.substr(m_pos, word.size()) == word) {
        m_pos += word.size();
        return v;
      }
    }
    unexpected("looking for beginning of value");
  }

  // encoding/json's scanner refuses arrays/objects nested more than 10000 deep.
  Value nested(char c) {
    if (++m_depth > 10000) unexpected("exceeded max depth");
    Value v = c == '{' ? object() : array();
    --m_depth;
    return v;
  }

  Value object() {
    ++m_pos;
    Map m;
    skip_space();
    if (eat('}')) return Value::map(std::move(m));
    while (true) {
      skip_space();
      if (m_pos >= m_s.size() || m_s[m_pos] != '"')
        unexpected("looking for beginning of object key string");
      std::string k = string();
      skip_space();
      if (!eat(':')) unexpected("after object key");
      m.insert_or_assign(std::move(k), value());
      skip_space();
      if (eat('}')) return Value::map(std::move(m));
      if (!eat(',')) unexpected("after object key:value pair");
    }
  }

  Value array() {
    ++m_pos;
    List l;
    skip_space();
    if (eat(']')) return Value::list(std::move(l));
    while (true) {
      l.push_back(value());
      skip_space();
      if (eat(']')) return Value::list(std::move(l));
      if (!eat(',')) unexpected("after array element");
    }
  }

  Value number() {
    size_t start = m_pos;
    eat('-');
    if (eat('0')) {
    } else if (m_pos < m_s.size() && m_s[m_pos] >= '1' && m_s[m_pos] <= '9') {
      digits();
    } else {
      unexpected("in numeric literal");
    }
    if (eat('.')) {
      if (!digits()) unexpected("after decimal point in numeric literal");
    }
    if (eat('e') || eat('E')) {
      if (!eat('+')) eat('-');
      if (!digits()) unexpected("in exponent of numeric literal");
    }
    std::string text(m_s.substr(start, m_pos - start));
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (std::abs(d) == HUGE_VAL)
      fail("json: cannot unmarshal number " + text + " into Go value of type float64");
    return Value::float64(d);
  }

  bool digits() {
    size_t start = m_pos;
    while (m_pos < m_s.size() && m_s[m_pos] >= '0' && m_s[m_pos] <= '9') ++m_pos;
    return m_pos > start;
  }

  int hex4() {
    if (m_pos + 4 > m_s.size()) fail("unexpected EOF");
    int v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = m_s[m_pos++];
      int d = c >= '0' && c <= '9'   ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                     : -1;
      if (d < 0) {
        --m_pos;
        unexpected("in \\u hexadecimal character escape");
      }
      v = v * 16 + d;
    }
    return v;
  }

  std::string string() {
    ++m_pos;
    std::string out;
    while (true) {
      if (m_pos >= m_s.size()) fail("unexpected EOF");
      auto c = static_cast<unsigned char>(m_s[m_pos]);
      if (c == '"') {
        ++m_pos;
        return out;
      }
      if (c < 0x20) unexpected("in string literal");
      if (c == '\\') {
        ++m_pos;
        escape(out);
        continue;
      }
      size_t width = 0;
      char32_t r = decode_rune(m_s, m_pos, width);
      if (r == 0xFFFD && width == 1)
        out += k_replacement;
      else
        out.append(m_s.substr(m_pos, width));
      m_pos += width;
    }
  }

  void escape(std::string& out) {
    if (m_pos >= m_s.size()) fail("unexpected EOF");
    char e = m_s[m_pos++];
    switch (e) {
      case '"':
      case '\\':
      case '/': out += e; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': break;
      default: --m_pos; unexpected("in string escape code");
    }
    char32_t r = hex4();
    if (r >= 0xD800 && r < 0xDC00) {
      // A surrogate pair, if the next escape completes it; otherwise U+FFFD.
      if (m_s.substr(m_pos, 2) == "\\u") {
        size_t save = m_pos;
        m_pos += 2;
        char32_t r2 = hex4();
        if (r2 >= 0xDC00 && r2 < 0xE000) {
          go::append_rune(out, 0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00));
          return;
        }
        m_pos = save;
      }
      r = 0xFFFD;
    } else if (r >= 0xDC00 && r < 0xE000) {
      r = 0xFFFD;
    }
    go::append_rune(out, r);
  }

  std::string_view m_s;
  size_t m_pos = 0;
  int m_depth = 0;
};

}  // namespace

Value typed_set_value(std::string_view p) {
  auto equal_fold = [&](std::string_view word) {
    if (p.size() != word.size()) return false;
    for (size_t i = 0; i < p.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(p[i])) != word[i]) return false;
    return true;
  };
  if (equal_fold("true")) return Value::boolean(true);
  if (equal_fold("false")) return Value::boolean(false);
  if (equal_fold("null")) return {};
  if (p == "0") return Value::int64(0);
  if (!p.empty() && p[0] != '0') {
    // strconv.ParseInt(p, 10, 64): optional sign, decimal digits only, in range.
    std::string_view digits = p;
    bool neg = false;
    if (digits[0] == '+' || digits[0] == '-') {
      neg = digits[0] == '-';
      digits.remove_prefix(1);
    }
    uint64_t u = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), u);
    bool all = !digits.empty() && ptr == digits.data() + digits.size() && ec == std::errc();
    if (all && digits[0] != '+' && digits[0] != '-') {
      if (!neg && u <= static_cast<uint64_t>(INT64_MAX))
        return Value::int64(static_cast<int64_t>(u));
      if (neg && u <= static_cast<uint64_t>(INT64_MAX) + 1)
        return Value::int64(static_cast<int64_t>(0 - u));
    }
  }
  return Value::string(std::string(p));
}

Value decode_json_value(std::string_view text, size_t& consumed) {
  return JsonDecoder(text).document(consumed);
}

void parse_set_into(std::string_view arg, Map& dest, SetFlag flag, const SetFileReader& reader) {
  try {
    Parser(arg, flag, reader).parse(dest);
  } catch (const SetError& e) {
    throw Error(ErrorCode::Usage, e.message);
  }
}

}  // namespace ejob::render::helm
