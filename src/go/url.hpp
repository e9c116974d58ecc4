#pragma once
/// net/url.Parse of Go 1.26 (Helm v3.21's Go) for callers outside Sprig's urlParse/urlJoin (the
/// schema's uri formats), with url.Error's text. The parser itself is in sprig/paths.cpp.

#include <optional>
#include <string>
#include <string_view>

namespace ejob::render::go {

/// What url.Parse made of a URL: its scheme (lower case), Host (decoded, with brackets and
/// port), decoded Path, and RawPath (the path as written, or "" where re-escaping the decoded
/// path gives it back, as setPath decides).
struct ParsedUrl {
  std::string scheme;
  std::string host;
  std::string path;
  std::string raw_path;
};

/// url.Parse(raw); nullopt where it returns an error, whose text (`parse "x": missing protocol
/// scheme`) goes to `error` when given.
std::optional<ParsedUrl> parse_url(std::string_view raw, std::string* error = nullptr);

/// URL.Hostname(): Host less a valid ":port" and the brackets around an IPv6 literal.
std::string url_hostname(std::string_view host);

}  // namespace ejob::render::go
