#pragma once
/// go-yaml v2's YAML 1.1 resolution of plain scalars (resolve.go), shared by the loader
/// (what a plain scalar means) and the emitter (whether a string must be quoted).

#include <cstdint>
#include <string>
#include <string_view>

namespace ejob::render::yaml {

/// The tag a plain scalar resolves to.
enum class ScalarKind : uint8_t { Null, Bool, Int, Uint, Float, Str, Timestamp, Merge };

/// A resolved plain scalar: which kind, and its value for Bool/Int/Uint/Float.
struct Resolved {
  ScalarKind kind = ScalarKind::Str;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
};

/// resolve("", s): `y/yes/on/true…` bools, `~/null/""` null, ints (`0x`, `0o`, leading-0
/// octal, `0b`, `_` separators, signs; int64 then uint64), floats (`1e3`, `.5`, `.inf`,
/// `.nan`), `YYYY-…` timestamps; anything else a string (`<<` too: go-yaml's merge key is
/// recognised by the decoder from the raw text, never by resolution).
Resolved resolve_plain(std::string_view s);

/// isBase60Float: `1:20`, `-1:30:00.5` (the emitter quotes these).
bool is_base60_float(std::string_view s);

/// time.Parse of s with go-yaml v2's timestamp layouts (`2006-1-2T15:4:5.999999999Z07:00`,
/// its lower-case `t` form, `2006-1-2 15:4:5.999999999`, `2006-1-2`).
bool is_timestamp(std::string_view s);

}  // namespace ejob::render::yaml
