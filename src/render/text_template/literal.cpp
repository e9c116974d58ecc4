#include "src/render/text_template/literal.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "src/render/go/strconv.hpp"
#include "src/render/go/utf8.hpp"

namespace ejob::render::text_template {

/// strconv.UnquoteChar: decodes one (possibly escaped) character of s at `at`. Returns false
/// on invalid syntax. `multibyte` tells whether the result is a rune (vs a single byte \x/\ooo).
bool unquote_char(std::string_view s, size_t& at, char quote, char32_t& r, bool& as_byte) {
  as_byte = false;
  auto c = static_cast<unsigned char>(s[at]);
  if (c == static_cast<unsigned char>(quote) && (quote == '\'' || quote == '"')) return false;
  if (c >= 0x80) {
    go::Rune d = go::decode_rune(s.substr(at));
    at += d.width;
    r = d.r;
    return true;
  }
  if (c != '\\') {
    ++at;
    r = c;
    return true;
  }
  if (at + 1 >= s.size()) return false;
  char e = s[at + 1];
  at += 2;
  switch (e) {
    case 'a': r = '\a'; return true;
    case 'b': r = '\b'; return true;
    case 'f': r = '\f'; return true;
    case 'n': r = '\n'; return true;
    case 'r': r = '\r'; return true;
    case 't': r = '\t'; return true;
    case 'v': r = '\v'; return true;
    case '\\': r = '\\'; return true;
    case '\'':
    case '"':
      if (e != quote) return false;
      r = static_cast<unsigned char>(e);
      return true;
    case 'x':
    case 'u':
    case 'U': {
      size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
      if (at + n > s.size()) return false;
      uint32_t v = 0;
      for (size_t i = 0; i < n; ++i) {
        int d = go::unhex(s[at + i]);
        if (d < 0) return false;
        v = v << 4 | static_cast<uint32_t>(d);
      }
      at += n;
      if (e == 'x') {
        r = v;
        as_byte = true;
        return true;
      }
      if (v > 0x10FFFF || (v >= 0xD800 && v < 0xE000)) return false;
      r = v;
      return true;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
      uint32_t v = static_cast<uint32_t>(e - '0');
      if (at + 2 > s.size()) return false;
      for (size_t i = 0; i < 2; ++i) {
        char d = s[at + i];
        if (d < '0' || d > '7') return false;
        v = v * 8 + static_cast<uint32_t>(d - '0');
      }
      at += 2;
      if (v > 255) return false;
      r = v;
      as_byte = true;
      return true;
    }
    default: return false;
  }
}

/// strconv.Unquote for "…" and `…` literals; false = invalid syntax.
bool unquote(std::string_view in, std::string& out) {
  out.clear();
  if (in.size() < 2) return false;
  char q = in.front();
  if (q != in.back()) return false;
  std::string_view body = in.substr(1, in.size() - 2);
  if (q == '`') {
    if (body.find('`') != std::string_view::npos) return false;
    for (char c : body) {
      if (c != '\r') out += c;
    }
    return true;
  }
  if (q != '"') return false;
  if (body.find('\n') != std::string_view::npos) return false;
  if (body.find('\\') == std::string_view::npos && go::valid_utf8(body)) {
    out.assign(body);  // strconv.Unquote's own shortcut: nothing to decode
    return true;
  }
  size_t at = 0;
  while (at < body.size()) {
    char32_t r = 0;
    bool as_byte = false;
    if (!unquote_char(body, at, '"', r, as_byte)) return false;
    if (as_byte || r < 0x80) {
      out += static_cast<char>(r);
    } else {
      go::append_rune(out, r);
    }
  }
  return true;
}

/// strconv.ParseUint(s, 0, 64) / ParseInt(s, 0, 64).
bool parse_integer(std::string_view s, bool is_signed, int64_t& i, uint64_t& u) {
  if (s.empty()) return false;
  bool neg = false;
  std::string_view body = s;
  if (is_signed && (body[0] == '+' || body[0] == '-')) {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return false;
  int base = 10;
  if (body[0] == '0') {
    if (body.size() >= 3 && (body[1] | 0x20) == 'x') {
      base = 16;
      body.remove_prefix(2);
    } else if (body.size() >= 3 && (body[1] | 0x20) == 'o') {
      base = 8;
      body.remove_prefix(2);
    } else if (body.size() >= 3 && (body[1] | 0x20) == 'b') {
      base = 2;
      body.remove_prefix(2);
    } else {
      base = 8;
      body.remove_prefix(1);
    }
  }
  uint64_t v = 0;
  bool any = false;
  bool seen_underscore = false;
  for (char c : body) {
    if (c == '_') {
      seen_underscore = true;
      continue;
    }
    int d = go::unhex(c);
    if (d < 0 || d >= base) return false;
    if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return false;
    v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    any = true;
  }
  if (!any && !(base == 8 && body.empty())) return false;
  if (seen_underscore && !go::underscore_ok(s)) return false;
  if (!is_signed) {
    u = v;
    return true;
  }
  if (neg) {
    if (v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    i = static_cast<int64_t>(0 - v);
  } else {
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    i = static_cast<int64_t>(v);
  }
  return true;
}

/// strconv.ParseFloat(s, 64) for the forms the lexer lets through.
bool parse_float(std::string_view s, double& f) {
  std::string clean;
  bool hex = false;
  {
    std::string_view b = s;
    if (!b.empty() && (b[0] == '+' || b[0] == '-')) b.remove_prefix(1);
    hex = b.size() >= 2 && b[0] == '0' && (b[1] | 0x20) == 'x';
    if (b.size() >= 2 && b[0] == '0' && ((b[1] | 0x20) == 'o' || (b[1] | 0x20) == 'b')) {
      return false;
    }
  }
  if (s.find('_') != std::string_view::npos && !go::underscore_ok(s)) return false;
  for (char c : s) {
    if (c != '_') clean += c;
  }
  if (hex && clean.find_first_of("pP") == std::string::npos) return false;
  if (!hex && clean.find_first_of("pP") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end != clean.c_str() + clean.size()) return false;
  if (errno == ERANGE && std::isinf(v)) return false;
  f = v;
  return true;
}

}  // namespace ejob::render::text_template
