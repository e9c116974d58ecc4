#include "src/render/go/netip.hpp"

#include "src/render/go/strconv.hpp"

namespace ejob::render::go {
namespace {

/// parseAddrError.Error: the input, the reason, and where parsing stopped when known.
std::string addr_error(std::string_view in, std::string_view msg, std::string_view at = {}) {
  std::string out = "ParseAddr(" + quote(in) + "): " + std::string(msg);
  if (!at.empty()) out += " (at " + quote(at) + ")";
  return out;
}

/// parseIPv4Fields over in[off:end]; errors name the whole input `in`.
std::string ipv4_fields(std::string_view in, size_t off, size_t end) {
  const std::string_view s = in.substr(off, end - off);
  int val = 0, pos = 0, digits = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] >= '0' && s[i] <= '9') {
      if (digits == 1 && val == 0) return addr_error(in, "IPv4 field has octet with leading zero");
      val = val * 10 + (s[i] - '0');
      ++digits;
      if (val > 255) return addr_error(in, "IPv4 field has value >255");
    } else if (s[i] == '.') {
      if (i == 0 || i == s.size() - 1 || s[i - 1] == '.')
        return addr_error(in, "IPv4 field must have at least one digit", s.substr(i));
      if (pos == 3) return addr_error(in, "IPv4 address too long");
      ++pos;
      val = digits = 0;
    } else {
      return addr_error(in, "unexpected character", s.substr(i));
    }
  }
  return pos < 3 ? addr_error(in, "IPv4 address too short") : "";
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// One hex group at the front of s: its length in `off`, or an error (more than 4 digits, none).
std::string hex_group(std::string_view in, std::string_view s, size_t& off) {
  for (off = 0; off < s.size() && hex_digit(s[off]) >= 0; ++off)
    if (off > 3) return addr_error(in, "each group must have 4 or less digits", s);
  if (off == 0) return addr_error(in, "each colon-separated field must have at least one digit", s);
  return "";
}

/// The state of parseIPv6's loop: bytes filled so far and where the "::" stands (-1: none).
struct V6 {
  std::string_view in, s, zone;
  int filled = 0, ellipsis = -1;
};

/// An embedded IPv4 tail at the front of v.s (a group followed by '.').
std::string ipv4_tail(V6& v) {
  if (v.ellipsis < 0 && v.filled != 12)
    return addr_error(v.in, "embedded IPv4 address must replace the final 2 fields of the address",
                      v.s);
  if (v.filled + 4 > 16)
    return addr_error(v.in, "too many hex fields to fit an embedded IPv4 at the end of the address",
                      v.s);
  size_t end = v.in.size() - (v.zone.empty() ? 0 : v.zone.size() + 1);
  std::string err = ipv4_fields(v.in, end - v.s.size(), end);
  v.s = {};
  v.filled += 4;
  return err;
}

/// parseIPv6's loop: groups, colons and one "::"; stops at the end or after an IPv4 tail.
std::string ipv6_groups(V6& v) {
  while (v.filled < 16) {
    size_t off = 0;
    if (std::string err = hex_group(v.in, v.s, off); !err.empty()) return err;
    if (off < v.s.size() && v.s[off] == '.') return ipv4_tail(v);
    v.filled += 2;
    v.s = v.s.substr(off);
    if (v.s.empty()) break;
    if (v.s[0] != ':') return addr_error(v.in, "unexpected character, want colon", v.s);
    if (v.s.size() == 1) return addr_error(v.in, "colon must be followed by more characters", v.s);
    v.s = v.s.substr(1);
    if (v.s[0] == ':') {
      if (v.ellipsis >= 0) return addr_error(v.in, "multiple :: in address", v.s);
      v.ellipsis = v.filled;
      v.s = v.s.substr(1);
      if (v.s.empty()) break;
    }
  }
  return "";
}

std::string parse_ipv6(std::string_view in, std::string& zone) {
  V6 v{in, in, {}};
  if (size_t pct = in.find('%'); pct != std::string_view::npos) {
    v.s = in.substr(0, pct);
    v.zone = in.substr(pct + 1);
    if (v.zone.empty()) return addr_error(in, "zone must be a non-empty string");
  }
  zone = std::string(v.zone);
  if (v.s.starts_with("::")) {
    v.ellipsis = 0;
    v.s = v.s.substr(2);
    if (v.s.empty()) return "";  // "::" alone
  }
  if (std::string err = ipv6_groups(v); !err.empty()) return err;
  if (!v.s.empty()) return addr_error(in, "trailing garbage after address", v.s);
  if (v.filled < 16 && v.ellipsis < 0) return addr_error(in, "address string too short");
  if (v.filled == 16 && v.ellipsis >= 0)
    return addr_error(in, "the :: must expand to at least one field of zeros");
  return "";
}

}  // namespace

std::string parse_addr(std::string_view s, std::string& zone) {
  zone.clear();
  for (char c : s) {
    if (c == '.') return ipv4_fields(s, 0, s.size());
    if (c == ':') return parse_ipv6(s, zone);
    // A zone with no address before it.
    if (c == '%') return addr_error(s, "missing IPv6 address");
  }
  return addr_error(s, "unable to parse IP");
}

}  // namespace ejob::render::go
