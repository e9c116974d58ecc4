#pragma once
/// Writing YAML the way Helm's toYaml does: sigs.k8s.io/yaml.Marshal = encoding/json.Marshal,
/// go-yaml v2 Unmarshal of that JSON (integers come back as ints, other numbers as float64),
/// then go-yaml v2 Marshal. The emitter follows go-yaml v2.4's emitterc.go: keys in its
/// "natural" order, plain/single-quoted/double-quoted/literal scalar styles chosen by its
/// analysis, strings that would read back as another type double-quoted, folding at column 80,
/// block sequences not indented under their key, `{}`/`[]` for empty collections.

#include <string>

#include "src/render/go/value.hpp"

namespace ejob::render::yaml {

/// sigs.k8s.io/yaml.Marshal(v), including the final newline. Throws render::FuncError with
/// Go's message when JSON cannot hold the value
/// (`error marshaling into JSON: json: unsupported value: NaN`).
std::string to_yaml(const go::Value& v);

/// Helm's toYamlPretty before its newline trim: a go-yaml v3 Encoder with SetIndent(2) on the
/// value itself (no JSON step: ints stay ints, NaN is `.nan`), sequences indented under their
/// key, no line folding. Never throws.
std::string to_yaml_pretty(const go::Value& v);

/// go-yaml v2's key order (sorter.go keyList.Less) for two string keys: at the first
/// differing rune, letters sort after non-letters, and runs of digits compare numerically.
bool yaml_key_less(std::string_view a, std::string_view b);

}  // namespace ejob::render::yaml
