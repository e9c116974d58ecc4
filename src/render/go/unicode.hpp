#pragma once
/// The parts of Go's `unicode` package that the template lexer and Sprig's string functions
/// use, and strings.TrimSpace on them. Case mapping and classes beyond ASCII come from the C
/// library's C.UTF-8 tables (Unicode simple case mappings, as Go's unicode.ToUpper/ToLower/
/// ToTitle use); strconv.hpp's is_letter/is_digit/is_print are Go 1.19's own tables, which
/// fmt and encoding/json need byte for byte.

#include <cstddef>
#include <string>
#include <string_view>

namespace ejob::render::go::unicode {

bool is_space(char32_t r);   ///< unicode.IsSpace
bool is_letter(char32_t r);  ///< unicode.IsLetter
bool is_digit(char32_t r);   ///< unicode.IsDigit
bool is_upper(char32_t r);   ///< unicode.IsUpper
bool is_lower(char32_t r);   ///< unicode.IsLower
bool is_title(char32_t r);   ///< unicode.IsTitle
char32_t to_upper(char32_t r);
char32_t to_lower(char32_t r);
char32_t to_title(char32_t r);

/// strings.TrimSpace: s without the leading and trailing white space of is_space (an invalid
/// byte is not space).
std::string trim_space(std::string_view s);
/// regexp's \s (Perl's class, ASCII only: [\t\n\f\r ]), which Helm's regular expressions use.
inline bool is_regexp_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}
/// The part of s that trim_space keeps, as a view into s.
std::string_view trimmed_space(std::string_view s);

}  // namespace ejob::render::go::unicode
