#pragma once
/// Go's regexp.Compile for callers outside the Sprig functions (the schema's `regex` format):
/// the same RE2 compile and Go error texts as regex.cpp.

#include <string>
#include <string_view>

namespace ejob::render::sprig {

/// Go's syntax in RE2's: Go (1.22+) also names a group `(?<name>…)`, which RE2 spells only
/// `(?P<name>…)`. Everything else RE2 reads as Go does, bar `\C` (regexp_compile_error).
std::string re2_syntax(std::string_view expr);

/// regexp.Compile(expr)'s error text (`error parsing regexp: missing closing ): `(``), or ""
/// when it compiles.
std::string regexp_compile_error(const std::string& expr);

}  // namespace ejob::render::sprig
