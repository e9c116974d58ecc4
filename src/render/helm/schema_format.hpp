#pragma once
/// The `format` keyword of values.schema.json as jsonschema v6 (Helm >= 3.18) checks it: v6's
/// format.go checkers, each with the reason v6 prints after `'x' is not valid ipv4: `.
///
/// Most are v6's own hand-written parsers (uuid, hostname, email, time, duration, period,
/// semver, json-pointer, relative-json-pointer, ipv4); the rest call Go: date is
/// time.Parse("2006-01-02"), ipv6 is netip.ParseAddr (go/netip.hpp), the uri forms are
/// url.Parse (go/url.hpp) with v6's own IPv6-host check, regex is regexp.Compile
/// (sprig/regex.hpp). Their reasons are those functions' Go error texts. Non-strings and names
/// v6 does not know pass; where v6 asserts `format` at all is schema.cpp's decision.

#include <optional>
#include <string>
#include <string_view>

namespace ejob::render::helm {

/// Why `text` is not of `format` (v6's error text), or nullopt where it is or where v6 has no
/// checker of that name.
std::optional<std::string> format_error(std::string_view format, std::string_view text);

}  // namespace ejob::render::helm
