#include "src/render/go/utf8.hpp"

namespace ejob::render::go {

namespace {

bool is_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

}  // namespace

Rune decode_rune(std::string_view s) {
  if (s.empty()) return {k_rune_error, 0};
  auto c0 = static_cast<unsigned char>(s[0]);
  if (c0 < 0x80) return {c0, 1};
  auto at = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  if (c0 >= 0xC2 && c0 <= 0xDF) {
    if (s.size() >= 2 && is_cont(at(1))) return {char32_t((c0 & 0x1F) << 6 | (at(1) & 0x3F)), 2};
    return {k_rune_error, 1};
  }
  if (c0 >= 0xE0 && c0 <= 0xEF) {
    // Second-byte ranges exclude overlong forms (E0) and surrogates (ED), as Go's accept table.
    unsigned char lo = c0 == 0xE0 ? 0xA0 : 0x80;
    unsigned char hi = c0 == 0xED ? 0x9F : 0xBF;
    if (s.size() >= 3 && at(1) >= lo && at(1) <= hi && is_cont(at(2)))
      return {char32_t((c0 & 0x0F) << 12 | (at(1) & 0x3F) << 6 | (at(2) & 0x3F)), 3};
    return {k_rune_error, 1};
  }
  if (c0 >= 0xF0 && c0 <= 0xF4) {
    unsigned char lo = c0 == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = c0 == 0xF4 ? 0x8F : 0xBF;
    if (s.size() >= 4 && at(1) >= lo && at(1) <= hi && is_cont(at(2)) && is_cont(at(3)))
      return {
          char32_t((c0 & 0x07) << 18 | (at(1) & 0x3F) << 12 | (at(2) & 0x3F) << 6 | (at(3) & 0x3F)),
          4};
    return {k_rune_error, 1};
  }
  return {k_rune_error, 1};
}

Rune decode_last_rune(std::string_view s) {
  if (s.empty()) return {k_rune_error, 0};
  // The last rune starts at most three continuation bytes before the end.
  size_t start = s.size() - 1;
  while (start > 0 && s.size() - start < 4 && is_cont(static_cast<unsigned char>(s[start]))) {
    --start;
  }
  Rune d = decode_rune(s.substr(start));
  if (start + d.width != s.size()) return {k_rune_error, 1};
  return d;
}

void append_rune(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = k_rune_error;
  if (r < 0x80) {
    out += static_cast<char>(r);
  } else if (r < 0x800) {
    out += static_cast<char>(0xC0 | (r >> 6));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else if (r < 0x10000) {
    out += static_cast<char>(0xE0 | (r >> 12));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (r >> 18));
    out += static_cast<char>(0x80 | ((r >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((r >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (r & 0x3F));
  }
}

size_t rune_count(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++n) i += decode_rune(s.substr(i)).width;
  return n;
}

bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    Rune r = decode_rune(s.substr(i));
    if (r.r == k_rune_error && r.width == 1) return false;
    i += r.width;
  }
  return true;
}

std::u32string to_runes(std::string_view s) {
  std::u32string out;
  while (!s.empty()) {
    Rune d = decode_rune(s);
    out.push_back(d.r);
    s.remove_prefix(d.width);
  }
  return out;
}

std::string from_runes(std::u32string_view runes) {
  std::string out;
  for (char32_t r : runes) append_rune(out, r);
  return out;
}

}  // namespace ejob::render::go
