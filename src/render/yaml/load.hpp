#pragma once
/// Reading YAML the way Helm does (sigs.k8s.io/yaml.Unmarshal into interface{}): go-yaml v2
/// parses with YAML 1.1 scalar resolution (`yes`/`on`/`y` are booleans, also as keys; `0777`
/// is octal; `0x1F` hex; timestamps and base-60 numbers stay strings), then the result takes
/// a JSON round trip: every number becomes float64, map keys become strings (ints via Itoa,
/// floats via FormatFloat(f, 'g', -1, 32), bools "true"/"false"), `.inf`/`.nan` are an error.
/// Anchors, aliases and `<<` merge keys are resolved; duplicate keys: the last one wins.
///
/// yaml-cpp parses the structure; its node tags tell plain scalars ("?") from quoted and block
/// ones ("!"), and the YAML 1.1 resolution is ours (scalar.hpp). Only the first document
/// of a stream is read, as yaml.Unmarshal does.
///
/// Most chart and manifest YAML takes a fast path first (fast.hpp), with the same results.

#include <string>
#include <string_view>

#include "src/render/go/value.hpp"

namespace ejob::render::yaml {

/// The result of a Go-style decode: `error` empty on success, else Go's err.Error() text,
/// e.g. `error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this
/// context`.
struct YamlDecoded {
  go::Value value;
  std::string error;
  int line = 0;    ///< 1-based line of a syntax error (0 = unknown)
  int column = 0;  ///< 1-based column of a syntax error (0 = unknown)
};

/// sigs.k8s.io/yaml.Unmarshal(text, &interface{}): a nil Value for an empty document, else
/// MapAny/ListAny/String/Float64/Bool values. Never throws.
YamlDecoded try_load_yaml(std::string_view text);

/// The same, into a Go target of type map[string]interface{} (fromYaml, values files):
/// a document that is not a mapping gives `error unmarshaling JSON: while decoding JSON:
/// json: cannot unmarshal array into Go value of type map[string]interface {}`; an empty
/// document an empty map.
YamlDecoded try_load_yaml_map(std::string_view text);

/// The same, into []interface{} (fromYamlArray).
YamlDecoded try_load_yaml_list(std::string_view text);

/// try_load_yaml for files: throws ejob::Error(ErrorCode::Input, message, Location{file,
/// line, column}) when the text is not valid YAML or cannot be converted.
go::Value load_yaml(std::string_view text, std::string_view file);

/// Which keys of a document's top-level mapping a reader wants (nullptr: all of them).
using TopKeyFilter = bool (*)(std::string_view key);

/// load_yaml for a reader of a few top-level keys (a manifest's kind and metadata): the other
/// top-level keys may be left out of the result, which then costs nothing to build. What
/// fails, and how, is load_yaml's.
go::Value load_yaml_keys(std::string_view text, std::string_view file, TopKeyFilter keep_top);

}  // namespace ejob::render::yaml
