// jsonschema v6's format checkers (format.go), each returning v6's reason text. v6 builds its
// reasons with LocalizableError and Go's fmt verbs: %q of a rune is strconv.QuoteRune, %d and
// %s as written; its Go calls (strconv.Atoi, time.Parse, netip.ParseAddr, url.Parse,
// regexp.Compile) give their own error texts, which v6 passes on or wraps.
#include "src/render/helm/schema_format.hpp"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "src/render/go/netip.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/go/time.hpp"
#include "src/render/go/url.hpp"
#include "src/render/go/utf8.hpp"
#include "src/render/sprig/regex.hpp"

namespace ejob::render::helm {
namespace {

using Reason = std::optional<std::string>;

/// strings.Split: n+1 pieces for n separators, so "" gives {""}.
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t at = s.find(sep); at != std::string_view::npos; at = s.find(sep)) {
    out.push_back(s.substr(0, at));
    s = s.substr(at + 1);
  }
  out.push_back(s);
  return out;
}

/// Go's %q of a rune (a byte is quoted as the rune of its value, as fmt does for uint8).
std::string q(char32_t r) { return go::quote_rune(r); }

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }
bool is_alpha(char32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/// The number of ASCII digits that start s (v6 counts them rune by rune, stopping at the first
/// other rune).
size_t leading_digits(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && is_digit(static_cast<unsigned char>(s[n]))) ++n;
  return n;
}

/// strconv.Atoi: an optional sign and decimal digits fitting int64; otherwise Go's NumError
/// text. ParseUint stops at the first overflow, before looking at later characters.
std::optional<int64_t> atoi(std::string_view s0, std::string& error) {
  auto fail = [&](std::string_view why) {
    error = "strconv.Atoi: parsing " + go::quote(s0) + ": " + std::string(why);
    return std::nullopt;
  };
  std::string_view s = s0;
  const bool neg = !s.empty() && s[0] == '-';
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.empty()) return fail("invalid syntax");
  const uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  uint64_t n = 0;
  for (char c : s) {
    if (!is_digit(static_cast<unsigned char>(c))) return fail("invalid syntax");
    const auto d = static_cast<uint64_t>(c - '0');
    if (n > (std::numeric_limits<uint64_t>::max() - d) / 10) return fail("value out of range");
    n = n * 10 + d;
  }
  if (n > limit) return fail("value out of range");
  return neg ? static_cast<int64_t>(0 - n) : static_cast<int64_t>(n);
}

/// Atoi without the error text, for the checks that print their own reason on failure.
std::optional<int64_t> atoi(std::string_view s) {
  std::string ignored;
  return atoi(s, ignored);
}

// --- json-pointer, relative-json-pointer, uuid ---------------------------------------------

/// RFC 6901: "" or '/'-led tokens where '~' is followed by 0 or 1. v6 also checks each
/// character's range, but the only ones outside it are '/' and '~', which never reach it.
Reason json_pointer(std::string_view s) {
  if (s.empty()) return std::nullopt;
  if (s[0] != '/') return "not starting with /";
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '~') continue;
    if (i + 1 == s.size() || (s[i + 1] != '0' && s[i + 1] != '1'))
      return "~ must be followed by 0 or 1";
    ++i;
  }
  return std::nullopt;
}

/// A non-negative integer without a leading zero, then '#' or a json-pointer.
Reason relative_json_pointer(std::string_view s) {
  const size_t digits = leading_digits(s);
  if (digits == 0) return "must start with non-negative integer";
  if (digits > 1 && s[0] == '0') return "starts with zero";
  s.remove_prefix(digits);
  return s == "#" ? std::nullopt : json_pointer(s);
}

/// Five '-'-separated groups of 8-4-4-4-12 hex digits, either case.
Reason uuid(std::string_view s) {
  static constexpr std::array<size_t, 5> k_sizes = {8, 4, 4, 4, 12};
  const auto groups = split(s, '-');
  if (groups.size() != k_sizes.size()) return "must have 5 elements";
  for (size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].size() != k_sizes[i])
      return "element " + std::to_string(i + 1) + " must be " + std::to_string(k_sizes[i]) +
             " characters long";
    for (char32_t c : go::to_runes(groups[i]))
      if (!is_digit(c) && !(c >= 'a' && c <= 'f') && !(c >= 'A' && c <= 'F'))
        return "non-hex character " + q(c);
  }
  return std::nullopt;
}

// --- ipv4, ipv6, hostname, email ------------------------------------------------------------

/// Four '.'-separated decimals 0-255 without a leading '0'; each goes through strconv.Atoi,
/// so a sign passes ("+1", "-0") and Atoi's own error is the reason for anything else.
Reason ipv4(std::string_view s) {
  const auto groups = split(s, '.');
  if (groups.size() != 4) return "expected four decimals";
  for (std::string_view group : groups) {
    if (group.size() > 1 && group[0] == '0') return "leading zeros";
    std::string error;
    const auto n = atoi(group, error);
    if (!n) return error;
    if (*n < 0 || *n > 255) return "decimal must be between 0 and 255";
  }
  return std::nullopt;
}

/// netip.ParseAddr of a text with a ':', and no zone.
Reason ipv6(std::string_view s) {
  if (s.find(':') == std::string_view::npos) return "missing colon";
  std::string zone;
  if (std::string error = go::parse_addr(s, zone); !error.empty()) return error;
  if (!zone.empty()) return "zone id is not a part of ipv6 address";
  return std::nullopt;
}

/// One hostname label: 1 to 63 letters, digits or inner hyphens.
Reason label(std::string_view label) {
  if (label.empty() || label.size() > 63) return "label must be 1 to 63 characters long";
  if (label.front() == '-') return "label starts with hyphen";
  if (label.back() == '-') return "label ends with hyphen";
  for (char32_t c : go::to_runes(label))
    if (!is_alpha(c) && !is_digit(c) && c != '-') return "invalid character " + q(c);
  return std::nullopt;
}

/// At most 253 bytes without a trailing dot, then labels (ASCII only: no punycode decoding).
Reason hostname(std::string_view s) {
  if (s.ends_with('.')) s.remove_suffix(1);
  if (s.size() > 253) return "more than 253 characters long";
  for (std::string_view part : split(s, '.'))
    if (Reason why = label(part)) return why;
  return std::nullopt;
}

/// The local part of an email. v6 takes a local part that starts with '"' as quoted (it tests
/// the prefix twice, not the suffix) and drops its first and last byte.
Reason email_local(std::string_view local) {
  if (local.size() > 64) return "local part more than 64 characters long";
  if (local.size() > 1 && local[0] == '"') {
    const std::string_view inner = local.substr(1, local.size() - 2);
    if (inner.find_first_of("\\\"") != std::string_view::npos)
      return "backslash and quote are not allowed within quoted local part";
    return std::nullopt;
  }
  if (local.starts_with('.')) return "starts with dot";
  if (local.ends_with('.')) return "ends with dot";
  if (local.find("..") != std::string_view::npos) return "consecutive dots";
  static constexpr std::string_view k_specials = ".!#$%&'*+-/=?^_`{|}~";
  for (char32_t c : go::to_runes(local))
    if (!is_alpha(c) && !is_digit(c) && (c >= 0x80 || k_specials.find(char(c)) == k_specials.npos))
      return "invalid character " + q(c);
  return std::nullopt;
}

/// The domain of an email: a bracketed IPv6:/IPv4 literal, or a hostname.
Reason email_domain(std::string_view domain) {
  if (domain.size() >= 2 && domain.front() == '[' && domain.back() == ']') {
    domain = domain.substr(1, domain.size() - 2);
    if (domain.starts_with("IPv6:")) {
      if (Reason why = ipv6(domain.substr(5))) return "invalid ipv6 address: " + *why;
      return std::nullopt;
    }
    if (Reason why = ipv4(domain)) return "invalid ipv4 address: " + *why;
    return std::nullopt;
  }
  if (Reason why = hostname(domain)) return "invalid domain: " + *why;
  return std::nullopt;
}

/// v6's own email parser, split at the last '@' (its length message says 255 for a 254 limit).
Reason email(std::string_view s) {
  if (s.size() > 254) return "more than 255 characters long";
  const size_t at = s.rfind('@');
  if (at == std::string_view::npos) return "missing @";
  if (Reason why = email_local(s.substr(0, at))) return why;
  return email_domain(s.substr(at + 1));
}

// --- date, time, date-time ------------------------------------------------------------------

/// time.Parse("2006-01-02", s): RFC 3339 full-date, days checked against the month and year.
Reason date(std::string_view s) {
  std::string error;
  if (go::gotime::parse("2006-01-02", s, go::gotime::Location::utc(), error)) return std::nullopt;
  return error;
}

/// A time-numoffset "+hh:mm" / "-hh:mm"; moves h:m to UTC, which only the leap-second check
/// looks at (no wrap past midnight forwards, as in v6).
Reason time_offset(std::string_view z, int64_t& h, int64_t& m) {
  if (z.size() != 6) return "offset must be 6 characters long";
  if (z[0] != '+' && z[0] != '-') return "offset must begin with plus/minus";
  const int64_t sign = z[0] == '+' ? -1 : 1;
  z.remove_prefix(1);
  if (z[2] != ':') return "missing colon in offset in correct place";
  const auto zh = atoi(z.substr(0, 2));
  const auto zm = atoi(z.substr(3));
  if (!zh || !zm) return "invalid hour/min in offset";
  if (*zh < 0 || *zm < 0) return "non-positive hour/min in offset";
  if (*zh > 23 || *zm > 59) return "hour/min in offset out of range";
  int64_t hm = (h * 60 + m) + sign * (*zh * 60 + *zm);
  if (hm < 0) hm += 24 * 60;
  h = hm / 60;
  m = hm % 60;
  return std::nullopt;
}

/// RFC 3339 full-time: hh:mm:ss, an optional fraction, then Z or an offset; second 60 only at
/// 23:59 UTC. Each field is strconv.Atoi of its two bytes, so "+1" and "-0" parse there.
Reason time(std::string_view s) {
  if (s.size() < 9) return "less than 9 characters long";
  if (s[2] != ':' || s[5] != ':') return "missing colon in correct place";
  std::array<int64_t, 3> hms{};
  for (size_t i = 0; i < 3; ++i) {
    const auto n = atoi(s.substr(i * 3, 2));
    if (!n) return "invalid hour/min/sec";
    if (*n < 0) return "non-positive hour/min/sec";
    hms[i] = *n;
  }
  auto [h, m, sec] = hms;
  if (h > 23 || m > 59 || sec > 60) return "hour/min/sec out of range";
  s.remove_prefix(8);
  if (s.starts_with('.')) {
    const size_t digits = leading_digits(s.substr(1));
    if (digits == 0) return "no digits in second fraction";
    s.remove_prefix(1 + digits);
  }
  if (s != "z" && s != "Z")
    if (Reason why = time_offset(s, h, m)) return why;
  if (sec >= 60 && (h != 23 || m != 59)) return "invalid leap second";
  return std::nullopt;
}

/// full-date, 'T' or 't', full-time; at least 20 bytes.
Reason date_time(std::string_view s) {
  if (s.size() < 20) return "less than 20 characters long";
  if (s[10] != 't' && s[10] != 'T') return "11th character must be t or T";
  if (Reason why = date(s.substr(0, 10))) return "invalid date element: " + *why;
  if (Reason why = time(s.substr(11))) return "invalid time element: " + *why;
  return std::nullopt;
}

// --- duration, period, semver ---------------------------------------------------------------

/// Number-unit pairs of one part of a duration, units in the order of `units` ("YMD" before a
/// 'T', "HMS" after it), each at most once.
Reason duration_units(std::string_view s, std::string_view units) {
  const std::string_view all = units;
  while (!s.empty()) {
    const size_t digits = leading_digits(s);
    if (digits == 0) return "missing number";
    s.remove_prefix(digits);
    if (s.empty()) return "missing unit";
    const char unit = s[0];
    const size_t j = units.find(unit);
    if (j == std::string_view::npos) {
      const char32_t r = static_cast<unsigned char>(unit);
      if (all.find(unit) != std::string_view::npos) return "unit " + q(r) + " out of order";
      return "invalid unit " + q(r);
    }
    units.remove_prefix(j + 1);
    s.remove_prefix(1);
  }
  return std::nullopt;
}

/// RFC 3339 appendix A duration: P, then weeks alone, or date units and/or T and time units.
Reason duration(std::string_view s) {
  if (!s.starts_with('P')) return "must start with P";
  s.remove_prefix(1);
  if (s.empty()) return "nothing after P";
  if (s.ends_with('W')) {
    s.remove_suffix(1);
    if (s.empty()) return "no number in week";
    if (leading_digits(s) != s.size()) return "invalid week";
    return std::nullopt;
  }
  static constexpr std::array<std::string_view, 2> k_units = {"YMD", "HMS"};
  const auto parts = split(s, 'T');
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i != 0 && parts[i].empty()) return "no time elements";
    if (i >= k_units.size()) return "more than one T";
    if (Reason why = duration_units(parts[i], k_units[i])) return why;
  }
  return std::nullopt;
}

/// An end of a period after the start: a duration (only after a date-time start) or a
/// date-time.
Reason period_end(std::string_view end, bool may_be_duration) {
  if (may_be_duration && end.starts_with('P')) {
    if (Reason why = duration(end)) return "invalid end duration: " + *why;
  } else if (Reason why = date_time(end)) {
    return "invalid end date-time: " + *why;
  }
  return std::nullopt;
}

/// RFC 3339 period: start/end, start/duration or duration/end.
Reason period(std::string_view s) {
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return "missing slash";
  const std::string_view start = s.substr(0, slash);
  if (start.starts_with('P')) {
    if (Reason why = duration(start)) return "invalid start duration: " + *why;
    return period_end(s.substr(slash + 1), false);
  }
  if (Reason why = date_time(start)) return "invalid start date-time: " + *why;
  return period_end(s.substr(slash + 1), true);
}

/// Whether c may be in a semver identifier: [0-9A-Za-z-].
bool semver_char(char32_t c) { return is_digit(c) || is_alpha(c) || c == '-'; }

/// The "+build" identifiers: non-empty, [0-9A-Za-z-].
Reason semver_build(std::string_view build) {
  if (build.empty()) return "build is empty";
  for (std::string_view id : split(build, '.')) {
    if (id.empty()) return "build identifier is empty";
    for (char32_t c : go::to_runes(id))
      if (!semver_char(c)) return "invalid character " + q(c) + " in build identifier";
  }
  return std::nullopt;
}

/// The "-pre" identifiers: non-empty, [0-9A-Za-z-], numeric ones without a leading zero.
Reason semver_pre(std::string_view pre) {
  for (std::string_view id : split(pre, '.')) {
    if (id.empty()) return "pre-release identifier is empty";
    for (char32_t c : go::to_runes(id))
      if (!semver_char(c)) return "invalid character " + q(c) + " in pre-release identifier";
    if (leading_digits(id) == id.size() && id.size() > 1 && id[0] == '0')
      return "pre-release numeric identifier starts with zero";
  }
  return std::nullopt;
}

/// semver.org 2.0.0: major.minor.patch, then an optional -pre-release and +build. The build
/// is cut at the first '+', then the pre-release at the first '-' of what is left.
Reason semver(std::string_view s) {
  if (size_t plus = s.find('+'); plus != std::string_view::npos) {
    if (Reason why = semver_build(s.substr(plus + 1))) return why;
    s = s.substr(0, plus);
  }
  if (size_t dash = s.find('-'); dash != std::string_view::npos) {
    if (Reason why = semver_pre(s.substr(dash + 1))) return why;
    s = s.substr(0, dash);
  }
  const auto core = split(s, '.');
  if (core.size() != 3) return "versionCore must have 3 numbers separated by dot";
  static constexpr std::array<std::string_view, 3> k_names = {"major", "minor", "patch"};
  for (size_t i = 0; i < 3; ++i) {
    const std::string name(k_names[i]);
    if (core[i].empty()) return name + " is empty";
    if (core[i].size() > 1 && core[i][0] == '0') return name + " starts with zero";
    if (leading_digits(core[i]) != core[i].size()) return name + " contains non-digit";
  }
  return std::nullopt;
}

// --- uri, uri-reference, uri-template, regex ------------------------------------------------

/// v6's parseURL: url.Parse, then an IPv6 host (a ':' in Hostname()) must be bracketed and
/// parse as ipv6, which url.Parse does not check.
std::optional<go::Url> parse_url(std::string_view s, std::string& error) {
  auto u = go::parse_url(s, &error);
  if (!u) return std::nullopt;
  const std::string host = go::url_hostname(u->host);
  if (host.find(':') == std::string::npos) return u;
  if (u->host.find('[') == std::string::npos || u->host.find(']') == std::string::npos)
    error = "ipv6 address not enclosed in brackets";
  else if (Reason why = ipv6(host))
    error = "invalid ipv6 address: " + *why;
  else
    return u;
  return std::nullopt;
}

/// uri and iri: parses, with a scheme.
Reason uri(std::string_view s) {
  std::string error;
  const auto u = parse_url(s, error);
  if (!u) return error;
  if (u->scheme.empty()) return "relative url";
  return std::nullopt;
}

/// uri-reference and iri-reference: parses, and has no backslash.
Reason uri_reference(std::string_view s) {
  if (s.find('\\') != std::string_view::npos) return "contains \\";
  std::string error;
  if (!parse_url(s, error)) return error;
  return std::nullopt;
}

/// url.PathUnescape of a segment whose escapes url.Parse has already found valid.
std::string percent_decoded(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && go::unhex(s[i + 1]) >= 0 && go::unhex(s[i + 2]) >= 0) {
      out += static_cast<char>(go::unhex(s[i + 1]) * 16 + go::unhex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// Braces of one path segment: alternate '{' and '}', starting with '{', ending closed.
Reason template_braces(std::string_view segment) {
  bool want_open = true;
  for (char c : segment) {
    if (c != '{' && c != '}') continue;
    if ((c == '{') != want_open) return "nested curly braces";
    want_open = !want_open;
  }
  if (!want_open) return "no matching closing brace";
  return std::nullopt;
}

/// uri-template: parses, then braces pair up in each segment of the RawPath only (empty when
/// the path needs no escaping, so "%7B" written escaped, the query and the fragment are never
/// looked at). The segments decode, as url.Parse already checked their escapes.
Reason uri_template(std::string_view s) {
  std::string error;
  const auto u = parse_url(s, error);
  if (!u) return error;
  for (std::string_view segment : split(u->raw_path, '/'))
    if (Reason why = template_braces(percent_decoded(segment))) return why;
  return std::nullopt;
}

/// regexp.Compile, with its error text.
Reason regex(std::string_view s) {
  std::string error = sprig::regexp_compile_error(std::string(s));
  if (error.empty()) return std::nullopt;
  return error;
}

using Check = Reason (*)(std::string_view);

/// v6's format table (format.go), and regex, which its compiler maps to the regexp engine.
constexpr std::array<std::pair<std::string_view, Check>, 19> k_checkers = {{
    {"json-pointer", json_pointer},
    {"relative-json-pointer", relative_json_pointer},
    {"uuid", uuid},
    {"duration", duration},
    {"period", period},
    {"ipv4", ipv4},
    {"ipv6", ipv6},
    {"hostname", hostname},
    {"email", email},
    {"date", date},
    {"time", time},
    {"date-time", date_time},
    {"uri", uri},
    {"iri", uri},
    {"uri-reference", uri_reference},
    {"iri-reference", uri_reference},
    {"uri-template", uri_template},
    {"semver", semver},
    {"regex", regex},
}};

}  // namespace

std::optional<std::string> format_error(std::string_view format, std::string_view text) {
  for (const auto& [name, check] : k_checkers)
    if (name == format) return check(text);
  return std::nullopt;
}

}  // namespace ejob::render::helm
