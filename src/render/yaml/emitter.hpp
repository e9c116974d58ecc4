#pragma once
/// Internal to yaml_emit*.cpp: go-yaml's emitter (emitterc.go of v2.4 and v3.0.1) over a small
/// node tree holding what the encoder would emit.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ejob::render::yaml::detail {

/// A node as go-yaml's encoder sees it.
struct YNode {
  enum Kind : uint8_t { Scalar, String, Seq, Map, Tagged } kind = Scalar;
  std::string text;               // Scalar: the plain text go-yaml writes (null, true, 12, 1.5e+06)
  std::string tag;                // Tagged: `!!binary`, written before the plain text
  std::vector<YNode> items;       // Seq: the elements; Map: the values, in key order
  std::vector<std::string> keys;  // Map: the keys, sorted in go-yaml's order
};

/// Which go-yaml writes: v2 (toYaml) or v3 (toYamlPretty: no folding, sequences indented under
/// their key, tabs allowed in block scalars, and a few indention-flag differences).
enum class Flavor : uint8_t { V2, V3 };

/// One document with go-yaml's emitter, ending in a newline.
std::string emit_document(const YNode& root, Flavor flavor);

}  // namespace ejob::render::yaml::detail
