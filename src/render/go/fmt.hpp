#pragma once
/// Go's fmt and strconv formatting of template values, byte for byte: `{{ x }}` is
/// fmt.Fprint (%v), `print`/`printf`/`println` are fmt.Sprint/Sprintf/Sprintln, `quote` uses
/// strconv.Quote. Floats use the shortest round-trip digits and Go's %v rule: exponent form
/// iff the decimal exponent is < -4 or >= 6 (helm-template.md §4.2: 1e6 -> 1e+06, 123456 ->
/// 123456).

#include <span>
#include <string>
#include <string_view>

#include "src/render/go/value.hpp"

namespace ejob::render::go {

/// strconv.FormatFloat(f, fmt, prec, bitSize) for fmt in 'e','E','f','g','G' (prec -1 = shortest).
std::string format_float(double f, char fmt, int prec, int bit_size = 64);

/// fmt's %v of a value (what `{{ . }}` prints before `<no value>` removal): nil → `<nil>`
/// inside composites; top-level nil is printed by the executor as `<no value>`.
std::string format_v(const Value& v);

/// fmt.Sprint(args...): a space between operands when neither is a string.
std::string sprint(std::span<const Value> args);

/// fmt.Sprintln(args...): spaces between all operands, trailing newline.
std::string sprintln(std::span<const Value> args);

/// fmt.Sprintf(format, args...) with every Go verb, flag, width, precision and argument index,
/// and Go's error forms (`%!d(string=x)`, `%!(EXTRA int=1)`, `%!v(MISSING)`).
std::string sprintf(std::string_view format, std::span<const Value> args);

/// strconv.Quote: Go-escaped double-quoted string (`%q`).
std::string go_quote(std::string_view s);

}  // namespace ejob::render::go
