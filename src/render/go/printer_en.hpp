#pragma once
/// Numbers as golang.org/x/text/message's Printer writes them for language.English (what
/// jsonschema v6 prints its messages with, so what Helm shows): `%d` with thousands grouped
/// (`65,535`), and `%v` of a float64 as `g` with the shortest digits but x/text's own switch to
/// scientific form (below 1e-4 or from 1e6 on, not Go's 1e21), written `1.5×10²⁵` with an
/// exponent of at least two superscript digits (`1×10⁻⁰⁵`; x/text >= v0.23.0, which Helm v3.21.4
/// builds with, writes no spaces around the `×`).

#include <cstdint>
#include <string>

namespace ejob::render::go {

/// p.Sprintf("%d", v) under language.English.
std::string english_int(int64_t v);

/// p.Sprintf("%v", v) of a finite float64 under language.English.
std::string english_float(double v);

}  // namespace ejob::render::go
