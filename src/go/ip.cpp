// net.ParseIP (ip.hpp): net's own parsers, dtoi and xtoi included.
#include "ejob/go/ip.hpp"

#include <optional>
#include <utility>

namespace ejob::render::go {
namespace {

constexpr int k_big = 0xFFFFFF;  // net's "big": dtoi/xtoi give up at it

/// net.dtoi: a decimal prefix of s; nullopt when there is none or it is too big.
std::optional<std::pair<int, size_t>> dtoi(std::string_view s) {
  int n = 0;
  size_t i = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    n = n * 10 + (s[i] - '0');
    if (n >= k_big) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  return std::make_pair(n, i);
}

/// net.xtoi: a hexadecimal prefix of s.
std::optional<std::pair<int, size_t>> xtoi(std::string_view s) {
  int n = 0;
  size_t i = 0;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      break;
    n = n * 16 + d;
    if (n >= k_big) return std::nullopt;
  }
  if (i == 0) return std::nullopt;
  return std::make_pair(n, i);
}

/// net.parseIPv4 (Go 1.19: four decimal octets, no leading zeros).
bool parse_ipv4(std::string_view s) {
  for (int i = 0; i < 4; ++i) {
    if (s.empty()) return false;
    if (i > 0) {
      if (s[0] != '.') return false;
      s.remove_prefix(1);
    }
    const auto d = dtoi(s);
    if (!d || d->first > 0xFF) return false;
    if (d->second > 1 && s[0] == '0') return false;
    s.remove_prefix(d->second);
  }
  return s.empty();
}

/// net.parseIPv6 (Go 1.19): hex groups, one "::", a trailing IPv4 in the last 32 bits.
bool parse_ipv6(std::string_view s) {
  constexpr int k_len = 16;
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  int i = 0;
  while (i < k_len) {
    const auto x = xtoi(s);
    if (!x || x->first > 0xFFFF) return false;
    const size_t c = x->second;
    if (c < s.size() && s[c] == '.') {
      if (ellipsis < 0 && i != k_len - 4) return false;
      if (i + 4 > k_len || !parse_ipv4(s)) return false;
      s = {};
      i += 4;
      break;
    }
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s[0] != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (i < k_len) return ellipsis >= 0;
  return ellipsis < 0;  // "::" must stand for at least one group
}

}  // namespace

bool parses_as_ip(std::string_view s) {
  for (char c : s) {
    if (c == '.') return parse_ipv4(s);
    if (c == ':') return parse_ipv6(s);
  }
  return false;
}

}  // namespace ejob::render::go
