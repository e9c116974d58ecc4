#pragma once
/// TOML for Helm's toToml/fromToml, following BurntSushi/toml v1.2 (what Helm links).
///
/// Encoding (toml.NewEncoder(w).Encode(v)): a map's plain keys first, then its tables and
/// arrays of tables, each group sorted; `[a.b]` headers indented two spaces per level, a blank
/// line before each top-level table; floats always with a decimal point (`1.0`, `nan`,
/// `+inf`); nil map values skipped.
///
/// Decoding (toml.Unmarshal into map[string]interface{}): integers become int64, floats
/// float64, arrays []interface{}, tables map[string]interface{}; date-times become the text Go
/// prints for the time.Time BurntSushi returns (`1979-05-27 07:32:00 +0000 UTC`).

#include <string>

#include "src/render/go/value.hpp"

namespace ejob::render::helm::toml {

/// The encoder's output. Throws render::FuncError with BurntSushi's message, e.g.
/// `toml: top-level values must be Go maps or structs`,
/// `toml: cannot encode array with nil element`.
std::string encode(const go::Value& v);

/// The outcome of a decode: `error` empty on success; the value is always a map (empty on
/// error). Parse errors read `toml: line N: <what is wrong>` (the wording after the line
/// number comes from toml++ and differs from BurntSushi's).
struct Decoded {
  go::Value value;
  std::string error;
};

/// toml.Unmarshal(text, &map[string]interface{}).
Decoded decode(const std::string& text);

}  // namespace ejob::render::helm::toml
