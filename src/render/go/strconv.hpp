#pragma once
/// Go's strconv helpers that fmt, encoding/json and the YAML emitter share: strconv.IsPrint,
/// strconv.Quote/QuoteRune and CanBackquote, with unicode.IsLetter/IsDigit from Go 1.24's own
/// tables (unicode_tables.cpp, Unicode 15.0.0). Byte-for-byte the behaviour of Go's standard
/// library as Helm v3.21's Go (1.26) has it.
/// UTF-8 itself is utf8.hpp.

#include <cstddef>
#include <string>
#include <string_view>

#include "src/render/go/utf8.hpp"

namespace ejob::render::go {

/// strconv's unhex: the value of a hexadecimal digit (either case), -1 for any other byte.
int unhex(char c);

/// ASCII-only strings.EqualFold: equal after folding A-Z to a-z (what Go's own parsers use
/// for fixed names: time zones, charsets, "inf"/"nan", struct tags).
bool equal_fold_ascii(std::string_view a, std::string_view b);

/// strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space
/// (Unicode tables of Go 1.24: Unicode 15.0.0, as Go 1.26 has).
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
