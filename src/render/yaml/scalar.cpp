#include "src/render/yaml/scalar.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>

namespace ejob::render::yaml {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int digit_value(char c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// strconv.ParseUint's digits after the base is known (no sign, no prefix).
std::optional<uint64_t> parse_digits(std::string_view s, int base) {
  if (s.empty()) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    int d = digit_value(c);
    if (d >= base) return std::nullopt;
    if (n > (std::numeric_limits<uint64_t>::max() - static_cast<uint64_t>(d)) /
                static_cast<uint64_t>(base))
      return std::nullopt;
    n = n * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
  }
  return n;
}

// strconv.ParseUint(s, 0, 64) without underscores (the caller removed them).
std::optional<uint64_t> parse_uint_base0(std::string_view s) {
  if (s.size() >= 2 && s[0] == '0') {
    char p = s[1];
    if (p == 'x' || p == 'X') return parse_digits(s.substr(2), 16);
    if (p == 'o' || p == 'O') return parse_digits(s.substr(2), 8);
    if (p == 'b' || p == 'B') return parse_digits(s.substr(2), 2);
    return parse_digits(s.substr(1), 8);
  }
  return parse_digits(s, 10);
}

// strconv.ParseInt(s, 0, 64).
std::optional<int64_t> parse_int_base0(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  auto u = parse_uint_base0(s);
  if (!u) return std::nullopt;
  constexpr auto k_cutoff = uint64_t{1} << 63;
  if (!neg && *u >= k_cutoff) return std::nullopt;
  if (neg && *u > k_cutoff) return std::nullopt;
  return neg ? static_cast<int64_t>(0 - *u) : static_cast<int64_t>(*u);
}

// yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool yaml_style_float(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return i > start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  } else {
    if (!digits()) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

// strconv.ParseFloat for decimal text already known to be well formed; nullopt on overflow.
std::optional<double> parse_decimal_float(std::string_view s) {
  std::string t(s);
  char* end = nullptr;
  errno = 0;
  double f = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return std::nullopt;
  if (std::isinf(f)) return std::nullopt;
  return f;
}

// The table lookups of resolve.go.
std::optional<Resolved> lookup(std::string_view s) {
  auto any_of = [&](std::initializer_list<std::string_view> words) {
    for (auto w : words)
      if (s == w) return true;
    return false;
  };
  Resolved r;
  if (any_of({"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    r.kind = ScalarKind::Bool;
    r.b = true;
  } else if (any_of({"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    r.kind = ScalarKind::Bool;
  } else if (any_of({"", "~", "null", "Null", "NULL"})) {
    r.kind = ScalarKind::Null;
  } else if (any_of({".nan", ".NaN", ".NAN"})) {
    r.kind = ScalarKind::Float;
    r.f = std::numeric_limits<double>::quiet_NaN();
  } else if (any_of({".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    r.kind = ScalarKind::Float;
    r.f = std::numeric_limits<double>::infinity();
  } else if (any_of({"-.inf", "-.Inf", "-.INF"})) {
    r.kind = ScalarKind::Float;
    r.f = -std::numeric_limits<double>::infinity();
  } else {
    return std::nullopt;
  }
  return r;
}

std::optional<Resolved> resolve_number(std::string_view in) {
  std::string plain;
  for (char c : in)
    if (c != '_') plain += c;
  Resolved r;
  if (auto i = parse_int_base0(plain)) {
    r.kind = ScalarKind::Int;
    r.i = *i;
    return r;
  }
  if (plain[0] != '+' && plain[0] != '-') {
    if (auto u = parse_uint_base0(plain)) {
      r.kind = ScalarKind::Uint;
      r.u = *u;
      return r;
    }
  }
  if (yaml_style_float(plain)) {
    if (auto f = parse_decimal_float(plain)) {
      r.kind = ScalarKind::Float;
      r.f = *f;
      return r;
    }
  }
  // "-0b…" is accepted by the int parse above already (Go's ParseInt knows 0b too).
  return std::nullopt;
}

}  // namespace

Resolved resolve_plain(std::string_view in) {
  if (in.empty()) return {ScalarKind::Null};
  char c = in[0];
  // Only scalars starting with a hint character are looked up or parsed ("<<" is not).
  if (std::string_view("+-0123456789yYnNtTfFoO~.").find(c) == std::string_view::npos) return {};
  if (auto r = lookup(in)) return *r;
  bool map_hint = std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos;
  if (map_hint) return {};
  if (c == '.') {
    // Maybe a normal float: ParseFloat with Go's decimal syntax.
    if (yaml_style_float(in)) {
      if (auto f = parse_decimal_float(in)) return {ScalarKind::Float, false, 0, 0, *f};
    }
    return {};
  }
  if (c == '+' || c == '-' || is_digit(c)) {
    if (is_timestamp(in)) return {ScalarKind::Timestamp};
    if (auto r = resolve_number(in)) return *r;
  }
  return {};
}

bool is_base60_float(std::string_view s) {
  if (s.empty()) return false;
  char c = s[0];
  if (!(c == '+' || c == '-' || is_digit(c)) || s.find(':') == std::string_view::npos) return false;
  // ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
  size_t i = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  if (i >= s.size() || !is_digit(s[i])) return false;
  while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < s.size() && s[i] == ':') {
    ++i;
    size_t start = i;
    while (i < s.size() && is_digit(s[i]) && i - start < 2) ++i;
    size_t n = i - start;
    if (n == 0) return false;
    if (n == 2 && s[start] > '5') {
      return false;
    }
    ++groups;
  }
  if (groups == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) ++i;
  }
  return i == s.size();
}

}  // namespace ejob::render::yaml

namespace ejob::render::yaml {
namespace {

// A cursor over a time string following Go's time.Parse for one layout.
struct TimeCursor {
  std::string_view v;
  bool ok = true;

  // getnum(value, false): one or two digits.
  int num() {
    if (v.empty() || !is_digit(v[0])) {
      ok = false;
      return 0;
    }
    if (v.size() < 2 || !is_digit(v[1])) {
      int n = v[0] - '0';
      v.remove_prefix(1);
      return n;
    }
    int n = (v[0] - '0') * 10 + (v[1] - '0');
    v.remove_prefix(2);
    return n;
  }
  void literal(char c) {
    if (v.empty() || v[0] != c)
      ok = false;
    else
      v.remove_prefix(1);
  }
  // skip(): a layout space matches any run of spaces.
  void spaces() {
    if (!v.empty() && v[0] != ' ') {
      ok = false;
      return;
    }
    while (!v.empty() && v[0] == ' ') v.remove_prefix(1);
  }
  // stdFracSecond9: optional [.,] followed by digits.
  void fraction() {
    if (v.size() < 2 || (v[0] != '.' && v[0] != ',') || !is_digit(v[1])) return;
    size_t i = 1;
    while (i < v.size() && is_digit(v[i])) ++i;
    v.remove_prefix(i);
  }
  // stdISO8601ColonTZ: Z or ±hh:mm.
  void zone() {
    if (!v.empty() && v[0] == 'Z') {
      v.remove_prefix(1);
      return;
    }
    if (v.size() < 6 || v[3] != ':' || (v[0] != '+' && v[0] != '-') || !is_digit(v[1]) ||
        !is_digit(v[2]) || !is_digit(v[4]) || !is_digit(v[5])) {
      ok = false;
      return;
    }
    // Go 1.19 does not range-check the offset (+25:00 parses).
    v.remove_prefix(6);
  }
};

int days_in(int month, int year) {
  static constexpr int k_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  return month == 2 && leap ? 29 : k_days[month - 1];
}

// Layouts: 0 = "2006-1-2T15:4:5.999999999Z07:00", 1 = the same with 't',
// 2 = "2006-1-2 15:4:5.999999999", 3 = "2006-1-2".
bool parse_layout(std::string_view s, int layout) {
  TimeCursor c{s.substr(4)};
  int year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  c.literal('-');
  int month = c.num();
  if (c.ok && (month < 1 || month > 12)) return false;
  c.literal('-');
  int day = c.num();
  if (!c.ok) return false;
  if (layout != 3) {
    if (layout == 2)
      c.spaces();
    else
      c.literal(layout == 0 ? 'T' : 't');
    int hour = c.num();
    if (c.ok && hour >= 24) return false;
    c.literal(':');
    int minute = c.num();
    if (c.ok && minute >= 60) return false;
    c.literal(':');
    int second = c.num();
    if (c.ok && second >= 60) return false;
    if (c.ok) c.fraction();
    if (c.ok && layout != 2) c.zone();
  }
  if (!c.ok || !c.v.empty()) return false;
  return day >= 1 && day <= days_in(month, year);
}

}  // namespace

bool is_timestamp(std::string_view s) {
  // Quick check: all date formats start with YYYY-.
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i != 4 || i == s.size() || s[i] != '-') return false;
  for (int layout = 0; layout < 4; ++layout)
    if (parse_layout(s, layout)) return true;
  return false;
}

}  // namespace ejob::render::yaml
