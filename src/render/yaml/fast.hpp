#pragma once
/// A fast path for the YAML that charts and rendered manifests are made of: block mappings and
/// sequences of single-line plain or quoted scalars (double-quoted ones with the escapes that
/// JSON and Go's %q print: toJson | quote), `{}`/`[]`, literal block scalars (`|`, `|-`) and
/// comments. It gives exactly what load.hpp's decode gives for such text, and declines
/// (std::nullopt) anything else — flow collections, anchors, tags, multi-line plain or quoted
/// scalars, other escapes, tabs, non-ASCII bytes, document markers, errors of any kind — so
/// the full parser handles every case where the two could differ, errors included.

#include <optional>
#include <string_view>

#include "src/render/go/value.hpp"

namespace ejob::render::yaml {

/// sigs.k8s.io/yaml.Unmarshal(text, &interface{}) for the simple subset above; std::nullopt
/// when the text is outside it (then the caller parses it fully).
std::optional<go::Value> load_simple(std::string_view text);

}  // namespace ejob::render::yaml
