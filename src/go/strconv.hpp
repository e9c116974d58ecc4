#pragma once
/// Go's unicode/utf8 and strconv helpers that fmt, encoding/json and the YAML emitter share:
/// rune decoding with Go's error rules, strconv.IsPrint, strconv.Quote/QuoteRune and
/// CanBackquote. Byte-for-byte the behaviour of Go 1.19's standard library.

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
};

/// utf8.DecodeRuneInString: invalid or truncated encodings, surrogates and overlong forms
/// decode as {k_rune_error, 1}; an empty string as {k_rune_error, 0}.
Rune decode_rune(std::string_view s);

/// utf8.AppendRune: invalid runes (surrogates, > U+10FFFF) are written as U+FFFD.
void append_rune(std::string& out, char32_t r);

/// strconv's unhex: the value of a hexadecimal digit (either case), -1 for any other byte.
int unhex(char c);

/// ASCII-only strings.EqualFold: equal after folding A-Z to a-z (what Go's own parsers use
/// for fixed names: time zones, charsets, "inf"/"nan", struct tags).
bool equal_fold_ascii(std::string_view a, std::string_view b);

/// utf8.RuneCountInString: each invalid byte counts as one rune.
size_t rune_count(std::string_view s);

/// utf8.ValidString.
bool valid_utf8(std::string_view s);

/// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space
/// (Unicode tables of Go 1.19).
bool is_print(char32_t r);

/// unicode.IsLetter (category L).
bool is_letter(char32_t r);

/// unicode.IsDigit (category Nd).
bool is_digit(char32_t r);

/// strconv.Quote (ascii_only false) or strconv.QuoteToASCII (ascii_only true).
std::string quote(std::string_view s, bool ascii_only = false);

/// strconv.QuoteRune / QuoteRuneToASCII; invalid runes become U+FFFD.
std::string quote_rune(char32_t r, bool ascii_only = false);

/// strconv.CanBackquote: s can be written as a raw string without control characters.
bool can_backquote(std::string_view s);

/// strconv's underscoreOK: `_` only between digits (or right after a base prefix) of a
/// number literal with an optional sign.
bool underscore_ok(std::string_view s);

}  // namespace ejob::render::go
