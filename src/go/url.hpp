#pragma once
/// net/url.Parse of Go 1.19 for callers outside Sprig's urlParse/urlJoin (the schema's uri
/// formats). The parser itself is in sprig/paths.cpp.

#include <optional>
#include <string>
#include <string_view>

namespace ejob::render::go {

/// What url.Parse made of a URL: its scheme (lower case) and its decoded path.
struct ParsedUrl {
  std::string scheme;
  std::string path;
};

/// url.Parse(raw); nullopt where it returns an error.
std::optional<ParsedUrl> parse_url(std::string_view raw);

}  // namespace ejob::render::go
