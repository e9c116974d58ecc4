#pragma once
/// net.ParseIP of Go 1.19 (the same answers in Go 1.24 for what is checked here): four decimal
/// octets without leading zeros, or IPv6 hex groups with at most one "::" and an IPv4 tail; the
/// first '.' or ':' decides which form is parsed. Used by net/mail's domain literals (mail.hpp)
/// and the schema formats ipv4/ipv6.

#include <string_view>

namespace ejob::render::go {

/// Whether net.ParseIP(s) != nil.
bool parses_as_ip(std::string_view s);

}  // namespace ejob::render::go
