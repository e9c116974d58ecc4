#pragma once
/// Go's unicode/utf8 and its string <-> []rune conversions, with Go 1.19's error rules: the one
/// UTF-8 decoder of the code base (fmt, encoding/json, the YAML emitter, the template lexer and
/// Sprig's string functions all decode through it).

#include <cstddef>
#include <string>
#include <string_view>

namespace ejob::render::go {

/// Unicode replacement character (utf8.RuneError).
inline constexpr char32_t k_rune_error = 0xFFFD;

/// One decoded rune and the number of bytes it took.
struct Rune {
  char32_t r = 0;
  size_t width = 0;
  /// False for an encoding error (U+FFFD of width 1); a U+FFFD written out in the text is valid.
  [[nodiscard]] bool valid() const { return !(r == k_rune_error && width == 1); }
};

/// utf8.DecodeRuneInString: invalid or truncated encodings, surrogates and overlong forms
/// decode as {k_rune_error, 1}; an empty string as {k_rune_error, 0}.
Rune decode_rune(std::string_view s);

/// utf8.DecodeLastRuneInString: the rune that ends s, decoded as decode_rune does; an
/// encoding error (or a rune cut short) is {k_rune_error, 1}, an empty string {k_rune_error, 0}.
Rune decode_last_rune(std::string_view s);

/// utf8.AppendRune: invalid runes (surrogates, > U+10FFFF) are written as U+FFFD.
void append_rune(std::string& out, char32_t r);

/// utf8.RuneCountInString: each invalid byte counts as one rune.
size_t rune_count(std::string_view s);

/// utf8.ValidString.
bool valid_utf8(std::string_view s);

/// The runes of s, invalid bytes as U+FFFD (Go's []rune(s)).
std::u32string to_runes(std::string_view s);

/// string(runes) in Go.
std::string from_runes(std::u32string_view runes);

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

}  // namespace ejob::render::go
