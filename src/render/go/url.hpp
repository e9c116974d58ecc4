#pragma once
/// net/url of Go 1.26 (Helm v3.21's Go): url.Parse with url.Error's text, URL.String and
/// URL.Hostname, for Sprig's urlParse/urlJoin and the schema's uri formats.

#include <optional>
#include <string>
#include <string_view>

namespace ejob::render::go {

/// url.URL's fields as url.Parse sets them: scheme (lower case), opaque, Host (decoded, with
/// brackets and port), decoded Path, RawPath (the path as written, or "" where re-escaping the
/// decoded path gives it back, as setPath decides), RawQuery, decoded Fragment, and User as
/// User.String() writes it (`has_user` for a URL with a userinfo, even an empty one).
struct Url {
  std::string scheme;
  std::string opaque;
  std::string host;
  std::string path;
  std::string raw_path;
  std::string raw_query;
  std::string fragment;
  std::string userinfo;
  bool has_user = false;
};

/// url.Parse(raw); nullopt where it returns an error, whose text (`parse "x": missing protocol
/// scheme`) goes to `error` when given.
std::optional<Url> parse_url(std::string_view raw, std::string* error = nullptr);

/// URL.String() of a URL without OmitHost, ForceQuery, RawPath or RawFragment (what Sprig's
/// urlJoin builds).
std::string url_string(const Url& u);

/// URL.Hostname(): Host less a valid ":port" and the brackets around an IPv6 literal.
std::string url_hostname(std::string_view host);

}  // namespace ejob::render::go
