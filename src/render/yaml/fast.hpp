#pragma once
/// A fast path for the YAML that charts and rendered manifests are made of: block mappings and
/// sequences of plain or quoted scalars (double-quoted ones on one line, with the escapes that
/// JSON and Go's %q print: toJson | quote; plain and single-quoted ones also wrapped over lines,
/// as controller-gen writes CRDs), `{}`/`[]`, literal and folded block scalars (`|`, `|-`,
/// `>`, `>-`, empty lines before their text included) and comments,
/// in ASCII or in UTF-8 that go-yaml reads as printable text. It gives exactly what load.hpp's
/// decode gives for such text, and declines (std::nullopt) anything else — flow collections,
/// anchors, tags, multi-line double-quoted scalars, other escapes, tabs, invalid UTF-8, control
/// characters and the line breaks NEL, LS and PS, document markers, errors of any kind — so
/// the full parser handles every case where the two could differ, errors included.

#include <optional>
#include <string_view>

#include "src/render/go/value.hpp"
#include "src/render/yaml/load.hpp"

namespace ejob::render::yaml {

/// sigs.k8s.io/yaml.Unmarshal(text, &interface{}) for the simple subset above; std::nullopt
/// when the text is outside it (then the caller parses it fully). Top-level keys that
/// `keep_top` turns down are read and checked all the same, and left out of the result.
std::optional<go::Value> load_simple(std::string_view text, TopKeyFilter keep_top = nullptr);

}  // namespace ejob::render::yaml
