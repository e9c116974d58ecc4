#pragma once
/// net/mail.ParseAddress of Go 1.24, as far as whether it succeeds (gojsonschema's email and
/// idn-email formats): one RFC 5322 address — an addr-spec (dot-atom or quoted-string local
/// part, dot-atom or [IP address] domain; UTF-8 allowed as RFC 6532 does; specials never
/// unquoted in a display name, comments allowed between its words), optionally with a display name
/// in a trailing comment, or a display-name phrase and an angle-addr, or a group of exactly one
/// address; comments and spaces around; RFC 2047 encoded words whose charset Go cannot decode
/// (anything but utf-8, iso-8859-1 and us-ascii) fail, as there.

#include <string_view>

namespace ejob::render::go {

/// Whether mail.ParseAddress(text) returns no error.
bool parses_as_address(std::string_view text);

}  // namespace ejob::render::go
