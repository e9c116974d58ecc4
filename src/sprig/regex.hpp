#pragma once
/// Go's regexp.Compile for callers outside the Sprig functions (the schema's `regex` format):
/// the same RE2 compile and Go error texts as regex.cpp.

#include <string>

namespace ejob::render::sprig {

/// regexp.Compile(expr)'s error text (`error parsing regexp: missing closing ): `(``), or ""
/// when it compiles.
std::string regexp_compile_error(const std::string& expr);

}  // namespace ejob::render::sprig
