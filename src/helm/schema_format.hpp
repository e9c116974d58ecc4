#pragma once
/// The `format` keyword of values.schema.json as gojsonschema (Helm 3 before 3.18) checks it,
/// with the same Go functions behind each name: date, time and date-time (time.Parse with its
/// layouts), hostname, uuid, json-pointer and relative-json-pointer (its regular expressions),
/// ipv4 and ipv6 (net.ParseIP of Go 1.19, and a '.' or ':' in the text), uri and iri (url.Parse
/// with a scheme), uri-reference and iri-reference (url.Parse), uri-template (url.Parse, then
/// its expression on the path), regex (the pattern compiles). A backslash fails every uri
/// form, as there.
///
/// email and idn-email are net/mail.ParseAddress (go/mail.hpp).
///
/// Helm >= 3.18 checks format with jsonschema v6's own checkers, which differ in places (v6
/// wants an offset in `time`, takes upper-case hex in `uuid`, ...): schema.cpp asks these
/// checks for the names v6 knows, which is as near as ejob comes (docs/template-versions.md).

#include <string_view>

namespace ejob::render {

/// Whether a string is of `format`; an unknown format accepts everything.
bool string_has_format(std::string_view format, std::string_view text);

}  // namespace ejob::render
