#include "ejob/go/unicode.hpp"

#include <locale.h>
#include <wctype.h>

namespace ejob::render::sprig {

namespace {

locale_t utf8_locale() {
  static locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

wint_t w(char32_t r) { return static_cast<wint_t>(r); }

}  // namespace

Rune decode_rune(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  unsigned char c0 = b(0);
  if (c0 < 0x80) return {c0, 1, true};
  auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  if (c0 >= 0xC2 && c0 <= 0xDF && cont(1)) {
    return {static_cast<char32_t>(((c0 & 0x1F) << 6) | (b(1) & 0x3F)), 2, true};
  }
  if (c0 >= 0xE0 && c0 <= 0xEF && cont(1) && cont(2)) {
    char32_t r = ((c0 & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    if (r >= 0x800 && (r < 0xD800 || r > 0xDFFF)) return {r, 3, true};
  }
  if (c0 >= 0xF0 && c0 <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    char32_t r = ((c0 & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    if (r >= 0x10000 && r <= 0x10FFFF) return {r, 4, true};
  }
  return {k_rune_error, 1, false};
}

void append_rune(std::string& out, char32_t r) {
  if (r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) r = k_rune_error;
  if (r < 0x80) {
    out.push_back(static_cast<char>(r));
  } else if (r < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (r >> 6)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else if (r < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (r >> 12)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (r >> 18)));
    out.push_back(static_cast<char>(0x80 | ((r >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((r >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (r & 0x3F)));
  }
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

bool is_space(char32_t r) {
  switch (r) {
    case '\t':
    case '\n':
    case '\v':
    case '\f':
    case '\r':
    case ' ':
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000: return true;
    default: return r >= 0x2000 && r <= 0x200A;
  }
}

bool is_letter(char32_t r) {
  if (r < 0x80) return (r | 0x20) >= 'a' && (r | 0x20) <= 'z';
  return iswalpha_l(w(r), utf8_locale()) != 0 && !is_digit(r);
}

bool is_digit(char32_t r) {
  if (r < 0x80) return r >= '0' && r <= '9';
  return iswdigit_l(w(r), utf8_locale()) != 0;
}

bool is_upper(char32_t r) {
  if (r < 0x80) return r >= 'A' && r <= 'Z';
  return iswupper_l(w(r), utf8_locale()) != 0 && !is_title(r);
}

bool is_lower(char32_t r) {
  if (r < 0x80) return r >= 'a' && r <= 'z';
  return iswlower_l(w(r), utf8_locale()) != 0 && !is_title(r);
}

bool is_title(char32_t r) {
  // The Lt category: digraphs and Greek capitals with prosgegrammeni.
  return r == 0x1C5 || r == 0x1C8 || r == 0x1CB || r == 0x1F2 || (r >= 0x1F88 && r <= 0x1F8F) ||
         (r >= 0x1F98 && r <= 0x1F9F) || (r >= 0x1FA8 && r <= 0x1FAF) || r == 0x1FBC ||
         r == 0x1FCC || r == 0x1FFC;
}

char32_t to_upper(char32_t r) {
  if (r < 0x80) return (r >= 'a' && r <= 'z') ? r - 32 : r;
  return static_cast<char32_t>(towupper_l(w(r), utf8_locale()));
}

char32_t to_lower(char32_t r) {
  if (r < 0x80) return (r >= 'A' && r <= 'Z') ? r + 32 : r;
  return static_cast<char32_t>(towlower_l(w(r), utf8_locale()));
}

char32_t to_title(char32_t r) {
  if (r < 0x80) return to_upper(r);
  static wctrans_t title = wctrans_l("totitle", utf8_locale());
  return static_cast<char32_t>(towctrans_l(w(r), title, utf8_locale()));
}

}  // namespace ejob::render::sprig
