#include "src/render/go/strconv.hpp"

namespace ejob::render::go {
namespace {

constexpr char k_lower_hex[] = "0123456789abcdef";

// Appends Go's escape of one rune inside a quoted literal (strconv.appendEscapedRune).
void append_escaped_rune(std::string& out, char32_t r, char quote_char, bool ascii_only) {
  if (r == static_cast<char32_t>(quote_char) || r == '\\') {
    out += '\\';
    out += static_cast<char>(r);
    return;
  }
  if (ascii_only ? (r < 0x80 && is_print(r)) : is_print(r)) {
    append_rune(out, r);
    return;
  }
  switch (r) {
    case '\a': out += "\\a"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\v': out += "\\v"; return;
    default: break;
  }
  if (r < ' ' || r == 0x7F) {
    out += "\\x";
    out += k_lower_hex[(r >> 4) & 0xF];
    out += k_lower_hex[r & 0xF];
    return;
  }
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = k_rune_error;
  int digits = r < 0x10000 ? 4 : 8;
  out += r < 0x10000 ? "\\u" : "\\U";
  for (int s = (digits - 1) * 4; s >= 0; s -= 4) out += k_lower_hex[(r >> s) & 0xF];
}

}  // namespace

std::string quote(std::string_view s, bool ascii_only) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    if (auto b = static_cast<unsigned char>(s[i]); b >= 0x20 && b < 0x7F && b != '"' && b != '\\') {
      out += s[i++];  // printable ASCII stands for itself (Go's appendQuotedWith, width 1)
      continue;
    }
    Rune r = decode_rune(s.substr(i));
    if (r.width == 1 && r.r == k_rune_error) {
      out += "\\x";
      out += k_lower_hex[static_cast<unsigned char>(s[i]) >> 4];
      out += k_lower_hex[static_cast<unsigned char>(s[i]) & 0xF];
    } else {
      append_escaped_rune(out, r.r, '"', ascii_only);
    }
    i += r.width;
  }
  out += '"';
  return out;
}

std::string quote_rune(char32_t r, bool ascii_only) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = k_rune_error;
  std::string out = "'";
  append_escaped_rune(out, r, '\'', ascii_only);
  out += '\'';
  return out;
}

bool can_backquote(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    Rune r = decode_rune(s.substr(i));
    i += r.width;
    if (r.width > 1) {
      if (r.r == 0xFEFF) return false;
      continue;
    }
    if (r.r == k_rune_error) return false;
    if ((r.r < ' ' && r.r != '\t') || r.r == '`' || r.r == 0x7F) return false;
  }
  return true;
}

bool underscore_ok(std::string_view s) {
  char saw = '^';
  size_t i = 0;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  bool hex = false;
  if (s.size() >= 2 && s[0] == '0') {
    char l = static_cast<char>(s[1] | 0x20);
    if (l == 'b' || l == 'o' || l == 'x') {
      i = 2;
      saw = '0';
      hex = l == 'x';
    }
  }
  for (; i < s.size(); ++i) {
    char c = s[i];
    char l = static_cast<char>(c | 0x20);
    if ((c >= '0' && c <= '9') || (hex && l >= 'a' && l <= 'f')) {
      saw = '0';
      continue;
    }
    if (c == '_') {
      if (saw != '0') return false;
      saw = '_';
      continue;
    }
    if (saw == '_') return false;
    saw = '!';
  }
  return saw != '_';
}

int unhex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool equal_fold_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace ejob::render::go
