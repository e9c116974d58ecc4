#include "src/render/go/unicode.hpp"

#include <locale.h>
#include <wctype.h>

#include "src/render/go/utf8.hpp"

namespace ejob::render::go::unicode {

namespace {

locale_t utf8_locale() {
  static locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

wint_t w(char32_t r) { return static_cast<wint_t>(r); }

}  // namespace

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

std::string trim_space(std::string_view s) { return std::string(trimmed_space(s)); }

std::string_view trimmed_space(std::string_view s) {
  while (!s.empty()) {
    go::Rune d = go::decode_rune(s);
    if (!d.valid() || !is_space(d.r)) break;
    s.remove_prefix(d.width);
  }
  while (!s.empty()) {
    go::Rune d = go::decode_last_rune(s);
    if (!d.valid() || !is_space(d.r)) break;
    s.remove_suffix(d.width);
  }
  return s;
}

}  // namespace ejob::render::go::unicode
