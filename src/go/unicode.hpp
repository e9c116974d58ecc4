#pragma once
/// Go's UTF-8 decoding and the parts of Go's `unicode` package that Sprig's string functions
/// use. Decoding follows utf8.DecodeRuneInString: an invalid byte is U+FFFD of width 1.
/// Case mapping and classes beyond ASCII come from the C library's C.UTF-8 tables (Unicode
/// simple case mappings, as Go's unicode.ToUpper/ToLower/ToTitle use).

#include <cstddef>
#include <string>
#include <string_view>

namespace ejob::render::sprig {

/// One decoded rune and its width in bytes; `valid` false for an invalid encoding.
struct Rune {
  char32_t r = 0;
  size_t width = 0;
  bool valid = true;
};

constexpr char32_t k_rune_error = 0xFFFD;

/// utf8.DecodeRuneInString on a non-empty string.
Rune decode_rune(std::string_view s);

/// utf8.AppendRune (surrogates and out-of-range values become U+FFFD).
void append_rune(std::string& out, char32_t r);

/// The runes of s, invalid bytes as U+FFFD (Go's []rune(s)).
std::u32string to_runes(std::string_view s);

/// string(runes) in Go.
std::string from_runes(std::u32string_view runes);

bool is_space(char32_t r);   ///< unicode.IsSpace
bool is_letter(char32_t r);  ///< unicode.IsLetter
bool is_digit(char32_t r);   ///< unicode.IsDigit
bool is_upper(char32_t r);   ///< unicode.IsUpper
bool is_lower(char32_t r);   ///< unicode.IsLower
bool is_title(char32_t r);   ///< unicode.IsTitle
char32_t to_upper(char32_t r);
char32_t to_lower(char32_t r);
char32_t to_title(char32_t r);

/// strings.Map with a rune mapping (invalid bytes become U+FFFD in the output).
template <class F>
std::string map_runes(std::string_view s, F&& f) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    Rune d = decode_rune(s);
    append_rune(out, f(d.r));
    s.remove_prefix(d.width);
  }
  return out;
}

}  // namespace ejob::render::sprig
