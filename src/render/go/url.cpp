// net/url of Go 1.26 (Helm v3.21's Go): url.Parse with url.Error's texts, URL.String for the
// fields Sprig's urlJoin sets (no OmitHost, ForceQuery, RawPath or RawFragment: that code reads
// the same in Go 1.19's and 1.24's sources), and URL.Hostname.
#include "src/render/go/url.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "src/render/go/netip.hpp"
#include "src/render/go/strconv.hpp"

namespace ejob::render::go {
namespace {

enum class Enc : uint8_t { Path, Host, Zone, UserPassword, Fragment };

bool should_escape(char c, Enc mode) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return false;
  if ((mode == Enc::Host || mode == Enc::Zone) &&
      std::string_view("!$&'()*+,;=:[]<>\"").find(c) != std::string_view::npos) {
    return false;
  }
  if (c == '-' || c == '_' || c == '.' || c == '~') return false;
  if (std::string_view("$&+,/:;=?@").find(c) != std::string_view::npos) {
    switch (mode) {
      case Enc::Path: return c == '?';
      case Enc::UserPassword: return c == '@' || c == '/' || c == '?' || c == ':';
      case Enc::Fragment: return false;
      case Enc::Host:
      case Enc::Zone: return true;
    }
  }
  if (mode == Enc::Fragment && std::string_view("!()*").find(c) != std::string_view::npos) {
    return false;
  }
  return true;
}

std::string escape(std::string_view s, Enc mode) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    if (should_escape(c, mode)) {
      auto u = static_cast<unsigned char>(c);
      out += '%';
      out += k_hex[u >> 4];
      out += k_hex[u & 0xF];
    } else {
      out += c;
    }
  }
  return out;
}

/// What url.Parse refuses, thrown inside this file and turned into url.Error's text.
struct UrlError {
  std::string message;
  bool whole_url = false;  ///< the error names the URL with its fragment (setFragment's errors)
};

std::string unescape(std::string_view s, Enc mode) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '%') {
      if (i + 2 >= s.size() || unhex(s[i + 1]) < 0 || unhex(s[i + 2]) < 0) {
        throw UrlError{"invalid URL escape " + quote(s.substr(i, 3))};
      }
      int hi = unhex(s[i + 1]);
      int lo = unhex(s[i + 2]);
      // In a host only non-ASCII bytes may be percent-encoded (and %25 for zones).
      if (mode == Enc::Host && hi < 8 && s.substr(i, 3) != "%25") {
        throw UrlError{"invalid URL escape " + quote(s.substr(i, 3))};
      }
      // A zone may escape only what a host could hold unescaped (and a space, for Windows).
      const char v = static_cast<char>(hi * 16 + lo);
      if (mode == Enc::Zone && s.substr(i, 3) != "%25" && v != ' ' && should_escape(v, Enc::Host)) {
        throw UrlError{"invalid URL escape " + quote(s.substr(i, 3))};
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
      continue;
    }
    if ((mode == Enc::Host || mode == Enc::Zone) && static_cast<unsigned char>(c) < 0x80 &&
        should_escape(c, mode)) {
      throw UrlError{"invalid character " + quote(std::string_view(&c, 1)) + " in host name"};
    }
    out += c;
  }
  return out;
}

bool valid_optional_port(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

/// Go 1.26's parseHost for a host starting with '[': an IPv6 literal that netip.ParseAddr takes
/// (an IPv4 one is refused), an optional %25-introduced zone, then an optional port.
std::string parse_ip_literal(std::string_view host) {
  const size_t close = host.rfind(']');
  if (close == std::string_view::npos) throw UrlError{"missing ']' in host"};
  const std::string_view port = host.substr(close + 1);
  if (!valid_optional_port(port)) throw UrlError{"invalid port " + quote(port) + " after host"};
  const std::string_view name = host.substr(1, close - 1);
  const size_t zone = name.find("%25");
  const std::string address =
      zone == std::string_view::npos
          ? unescape(name, Enc::Host)
          : unescape(name.substr(0, zone), Enc::Host) + unescape(name.substr(zone), Enc::Zone);
  std::string zone_name;
  if (std::string error = parse_addr(address, zone_name); !error.empty())
    throw UrlError{"invalid host: " + error};
  // ParseAddr reads an IPv4 address where a '.' comes before any ':' or '%'.
  if (const size_t first = address.find_first_of(".:%"); address[first] == '.')
    throw UrlError{"invalid IP-literal"};
  return "[" + address + "]" + unescape(port, Enc::Host);
}

/// Go 1.26's parseHost: '[' only at the start; otherwise the port follows the first ':' for
/// http and https (strict colons, the default since Go 1.26) and the last ':' for other schemes.
std::string parse_host(std::string_view scheme, std::string_view host) {
  const size_t bracket = host.rfind('[');
  if (bracket != std::string_view::npos && bracket > 0) throw UrlError{"invalid IP-literal"};
  if (bracket == 0) return parse_ip_literal(host);
  if (size_t i = host.find(':'); i != std::string_view::npos) {
    if (scheme != "http" && scheme != "https") i = host.rfind(':');
    const std::string_view port = host.substr(i);
    if (!valid_optional_port(port)) throw UrlError{"invalid port " + quote(port) + " after host"};
  }
  return unescape(host, Enc::Host);
}

/// User.String() of a parsed userinfo.
std::string userinfo_string(std::string_view raw) {
  size_t colon = raw.find(':');
  if (colon == std::string_view::npos)
    return escape(unescape(raw, Enc::UserPassword), Enc::UserPassword);
  return escape(unescape(raw.substr(0, colon), Enc::UserPassword), Enc::UserPassword) + ":" +
         escape(unescape(raw.substr(colon + 1), Enc::UserPassword), Enc::UserPassword);
}

/// getScheme: the scheme (lower case) into `u`; returns what follows its ':' (all of `raw`
/// when it has none).
std::string_view take_scheme(std::string_view raw, Url& u) {
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) return raw;
      continue;
    }
    if (c != ':') return raw;
    if (i == 0) throw UrlError{"missing protocol scheme"};
    for (char s : raw.substr(0, i)) u.scheme += static_cast<char>(std::tolower(s));
    return raw.substr(i + 1);
  }
  return raw;
}

/// parseAuthority: `[userinfo@]host[:port]` into `u`.
void parse_authority(std::string_view authority, Url& u) {
  size_t at = authority.rfind('@');
  u.host =
      parse_host(u.scheme, at == std::string_view::npos ? authority : authority.substr(at + 1));
  if (at == std::string_view::npos) return;
  std::string_view info = authority.substr(0, at);
  bool valid = std::all_of(info.begin(), info.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("-._:~!$&'()*+,;=%@").find(c) != std::string_view::npos;
  });
  if (!valid) throw UrlError{"net/url: invalid userinfo"};
  u.has_user = true;
  u.userinfo = userinfo_string(info);
}

/// url.parse of a URL without its fragment (viaRequest false), `*` excepted.
void parse_reference(std::string_view raw, Url& u) {
  std::string_view rest = take_scheme(raw, u);
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    u.raw_query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (!rest.starts_with("/")) {
    if (!u.scheme.empty()) {
      u.opaque = std::string(rest);
      return;
    }
    if (rest.substr(0, rest.find('/')).find(':') != std::string_view::npos)
      throw UrlError{"first path segment in URL cannot contain colon"};
  }
  if ((!u.scheme.empty() || !rest.starts_with("///")) && rest.starts_with("//")) {
    std::string_view authority = rest.substr(2);
    rest = "";
    if (size_t i = authority.find('/'); i != std::string_view::npos) {
      rest = authority.substr(i);
      authority = authority.substr(0, i);
    }
    parse_authority(authority, u);
  }
  u.path = unescape(rest, Enc::Path);
  if (escape(u.path, Enc::Path) != rest) u.raw_path = std::string(rest);  // setPath
}

/// url.Parse: the URL, then its fragment.
Url parse(std::string_view raw) {
  Url u;
  size_t hash = raw.find('#');
  std::string_view frag;
  if (hash != std::string_view::npos) {
    frag = raw.substr(hash + 1);
    raw = raw.substr(0, hash);
  }
  for (char c : raw) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
      throw UrlError{"net/url: invalid control character in URL"};
  }
  if (raw == "*")
    u.path = "*";
  else
    parse_reference(raw, u);
  try {
    u.fragment = unescape(frag, Enc::Fragment);
  } catch (UrlError& e) {
    e.whole_url = true;
    throw;
  }
  return u;
}

/// url.Error's text: url.Parse reports the URL without its fragment unless the fragment itself
/// is bad.
std::string error_text(std::string_view raw, const UrlError& e) {
  std::string_view shown = e.whole_url ? raw : raw.substr(0, raw.find('#'));
  return "parse " + quote(shown) + ": " + e.message;
}

}  // namespace

std::optional<Url> parse_url(std::string_view raw, std::string* error) {
  try {
    return parse(raw);
  } catch (const UrlError& e) {
    if (error != nullptr) *error = error_text(raw, e);
    return std::nullopt;
  }
}

std::string url_string(const Url& u) {
  std::string out;
  if (!u.scheme.empty()) out += u.scheme + ":";
  if (!u.opaque.empty()) {
    out += u.opaque;
  } else {
    if (!u.scheme.empty() || !u.host.empty() || u.has_user) {
      if (!u.host.empty() || !u.path.empty() || u.has_user) out += "//";
      if (u.has_user) out += u.userinfo + "@";
      if (!u.host.empty()) out += escape(u.host, Enc::Host);
    }
    std::string path = escape(u.path, Enc::Path);
    if (!path.empty() && path[0] != '/' && !u.host.empty()) out += '/';
    if (out.empty() && path.substr(0, path.find('/')).find(':') != std::string::npos) out += "./";
    out += path;
  }
  if (!u.raw_query.empty()) out += "?" + u.raw_query;
  if (!u.fragment.empty()) out += "#" + escape(u.fragment, Enc::Fragment);
  return out;
}

std::string url_hostname(std::string_view host) {
  std::string h(host);
  size_t colon = h.rfind(':');
  if (colon != std::string::npos && valid_optional_port(std::string_view(h).substr(colon))) {
    h = h.substr(0, colon);
  }
  if (h.starts_with("[") && h.ends_with("]")) h = h.substr(1, h.size() - 2);
  return h;
}

}  // namespace ejob::render::go
