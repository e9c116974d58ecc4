#pragma once
/// net/netip.ParseAddr of Go 1.22 and later, with its error texts (`ParseAddr("1.2.3"): IPv4
/// address too short`): dotted decimal without leading zeros, or IPv6 hex groups with at most
/// one "::", an embedded IPv4 tail and a non-empty %zone. The first '.', ':' or '%' decides
/// which form is parsed. Used by the schema formats ipv6, uri and email (jsonschema v6).

#include <string>
#include <string_view>

namespace ejob::render::go {

/// netip.ParseAddr(s): "" when it parses (its zone, if any, in `zone`), else the error text.
std::string parse_addr(std::string_view s, std::string& zone);

}  // namespace ejob::render::go
