#pragma once
/// Go's literal syntax as text/template's parser reads it (strconv.Unquote, UnquoteChar,
/// ParseInt/ParseUint/ParseFloat with base prefixes and `_` separators).

#include <cstdint>
#include <string>
#include <string_view>

namespace ejob::render::text_template {

/// strconv.UnquoteChar: decodes one (possibly escaped) character of s at `at` inside a literal
/// quoted with `quote`; `as_byte` tells a \x/\ooo byte from a rune. False on invalid syntax.
bool unquote_char(std::string_view s, size_t& at, char quote, char32_t& r, bool& as_byte);

/// strconv.Unquote for "…" and `…` literals (raw strings lose their \r); false = invalid syntax.
bool unquote(std::string_view in, std::string& out);

/// strconv.ParseUint(s, 0, 64) (is_signed false, result in u) or ParseInt(s, 0, 64) (in i).
bool parse_integer(std::string_view s, bool is_signed, int64_t& i, uint64_t& u);

/// strconv.ParseFloat(s, 64) for the number forms the lexer lets through; false on error or
/// overflow.
bool parse_float(std::string_view s, double& f);

}  // namespace ejob::render::text_template
