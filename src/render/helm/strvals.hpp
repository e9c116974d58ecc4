#pragma once
/// Helm's `--set` family of flags (pkg/strvals), helm-template.md §7. One flag argument is a
/// comma-separated list of `key=value` assignments parsed *into* an existing values map:
///
///   key   := name ( '.' name | '[' index ']' )*      (≤ 30 dots, index 0..65536)
///   value := '{' item (',' item)* '}'                 (a list; `--set` and friends)
///          | runes up to the next unescaped ','       (a scalar)
///
/// A backslash escapes the next rune in keys and values (`a\.b=x\,y` sets key `a.b` to `x,y`).
/// How a scalar is typed depends on the flag (SetFlag). Errors carry Helm's exact texts
/// (`key "b" has no value`, `unable to parse key: interface conversion: …`), without the
/// `failed parsing --set data: ` prefix that values.cpp-style callers add.

#include <functional>
#include <string>
#include <string_view>

#include "src/render/go/value.hpp"

namespace ejob::render::helm {

/// Which flag an argument came from.
enum class SetFlag {
  Set,         ///< --set: `true`/`false` → bool, `null` → nil, base-10 integers → int64
  SetString,   ///< --set-string: every value a string
  SetJson,     ///< --set-json: each value is one JSON document (numbers float64)
  SetFile,     ///< --set-file: each value is a path whose contents become the string value
  SetLiteral,  ///< --set-literal: one `key=rest`, the rest taken verbatim (no commas, escapes)
};

/// Reads the file a `--set-file` value names (`-` = stdin). Throws ejob::Error on failure.
using SetFileReader = std::function<std::string(const std::string& path)>;

/// Parses one flag argument into `dest`, creating nested maps and lists as needed and
/// replacing existing leaves. `reader` is used only for SetFlag::SetFile. Throws
/// ejob::Error(ErrorCode::Usage) with Helm's message on a malformed argument; assignments
/// made before the error stay in `dest` (as in Helm).
void parse_set_into(std::string_view arg, go::Map& dest, SetFlag flag,
                    const SetFileReader& reader = {});

/// Helm's `typedVal` for `--set`: `true`/`false` (any case) → bool, `null` → nil, `0` →
/// int64 0, a base-10 int64 not starting with `0` → int64, anything else the string itself.
go::Value typed_set_value(std::string_view text);

/// Decodes one JSON document the way Go's encoding/json does into interface{} (objects →
/// map[string]interface {}, arrays → []interface {}, numbers → float64). Leading white space
/// is skipped; `consumed` receives the offset just past the value. Throws ejob::Error(Input)
/// with Go's message on malformed JSON.
go::Value decode_json_value(std::string_view text, size_t& consumed);

}  // namespace ejob::render::helm
