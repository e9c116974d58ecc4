#include "src/render/sprig/semver.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "src/render/sprig/semver_syntax.hpp"

namespace ejob::render::sprig {

namespace {

/// The groups of the library's version pattern (semver_test.cpp holds it verbatim and checks
/// this against it) that parse reads: 1 (major), 2 and 3 (".minor", ".patch"), 5
/// (prerelease) and 8 (metadata). Matched by hand: each optional part of the pattern starts with
/// its own character and ends where the next part or the end must begin, so one left-to-right
/// pass gives what the regular expression gives (and compiling it cost more than a render).
struct VersionGroups {
  std::string major, minor, patch, pre, metadata;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool is_ident_char(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

/// [0-9A-Za-z-]+(\.[0-9A-Za-z-]+)* from s[i], greedily; empty when it does not match there.
std::string dotted_idents(std::string_view s, size_t& i) {
  size_t start = i;
  while (i < s.size() && (is_ident_char(s[i]) || s[i] == '.')) ++i;
  std::string_view run = s.substr(start, i - start);
  if (run.empty() || run.front() == '.' || run.back() == '.' ||
      run.find("..") != std::string_view::npos)
    return {};
  return std::string(run);
}

std::optional<VersionGroups> match_version(std::string_view s) {
  VersionGroups g;
  size_t i = s.starts_with('v') ? 1 : 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && is_digit(s[i])) ++i;
    return std::string(s.substr(start, i - start));
  };
  g.major = digits();
  if (g.major.empty()) return std::nullopt;
  for (std::string* part : {&g.minor, &g.patch}) {
    if (i + 1 < s.size() && s[i] == '.' && is_digit(s[i + 1])) {
      ++i;
      *part = "." + digits();
    }
  }
  if (i < s.size() && s[i] == '-') {
    g.pre = dotted_idents(s, ++i);
    if (g.pre.empty()) return std::nullopt;
  }
  if (i < s.size() && s[i] == '+') {
    g.metadata = dotted_idents(s, ++i);
    if (g.metadata.empty()) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  return g;
}
uint64_t parse_segment(std::string_view digits) {
  uint64_t v = 0;
  auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (res.ec != std::errc() || res.ptr != digits.data() + digits.size()) {
    throw SemverError{"error parsing version segment: strconv.ParseUint: parsing \"" +
                      std::string(digits) + "\": value out of range"};
  }
  return v;
}

std::vector<std::string_view> split(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> out;
  while (true) {
    size_t hit = s.find(sep);
    if (hit == std::string_view::npos) break;
    out.push_back(s.substr(0, hit));
    s.remove_prefix(hit + sep.size());
  }
  out.push_back(s);
  return out;
}

bool only(std::string_view s, std::string_view set) {
  return s.find_first_not_of(set) == std::string_view::npos;
}

constexpr std::string_view k_num = "0123456789";
constexpr std::string_view k_allowed =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789";

int compare_part(std::string_view s, std::string_view o) {
  if (s == o) return 0;
  if (s.empty()) return -1;
  if (o.empty()) return 1;
  uint64_t si = 0;
  uint64_t oi = 0;
  auto num = [](std::string_view x, uint64_t& v) {
    auto res = std::from_chars(x.data(), x.data() + x.size(), v);
    return res.ec == std::errc() && res.ptr == x.data() + x.size();
  };
  bool s_num = num(s, si);
  bool o_num = num(o, oi);
  if (!s_num && !o_num) return s > o ? 1 : -1;
  if (!o_num) return -1;
  if (!s_num) return 1;
  return si > oi ? 1 : -1;
}

int compare_prerelease(std::string_view a, std::string_view b) {
  auto sp = split(a, ".");
  auto op = split(b, ".");
  size_t n = std::max(sp.size(), op.size());
  for (size_t i = 0; i < n; ++i) {
    int d = compare_part(i < sp.size() ? sp[i] : "", i < op.size() ? op[i] : "");
    if (d != 0) return d;
  }
  return 0;
}

bool is_x(std::string_view s) { return s == "x" || s == "*" || s == "X"; }

std::string_view trim_dot(std::string_view s) { return s.starts_with('.') ? s.substr(1) : s; }

}  // namespace

SemVersion SemVersion::parse(std::string_view text) {
  std::optional<VersionGroups> m = match_version(text);
  if (!m) throw SemverError{"invalid semantic version"};
  SemVersion v;
  v.metadata = m->metadata;
  v.pre = m->pre;
  v.original = std::string(text);
  v.major = parse_segment(m->major);
  v.minor = m->minor.empty() ? 0 : parse_segment(trim_dot(m->minor));
  v.patch = m->patch.empty() ? 0 : parse_segment(trim_dot(m->patch));
  if (!v.pre.empty()) {
    for (std::string_view p : split(v.pre, ".")) {
      if (only(p, k_num)) {
        if (p.size() > 1 && p[0] == '0') throw SemverError{"version segment starts with 0"};
      } else if (!only(p, k_allowed)) {
        throw SemverError{"invalid prerelease string"};
      }
    }
  }
  if (!v.metadata.empty()) {
    for (std::string_view p : split(v.metadata, ".")) {
      if (!only(p, k_allowed)) throw SemverError{"invalid metadata string"};
    }
  }
  return v;
}

std::string SemVersion::str() const {
  std::string out =
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  if (!pre.empty()) out += "-" + pre;
  if (!metadata.empty()) out += "+" + metadata;
  return out;
}

int SemVersion::compare(const SemVersion& o) const {
  auto seg = [](uint64_t a, uint64_t b) { return a < b ? -1 : (a > b ? 1 : 0); };
  if (int d = seg(major, o.major)) return d;
  if (int d = seg(minor, o.minor)) return d;
  if (int d = seg(patch, o.patch)) return d;
  if (pre.empty() && o.pre.empty()) return 0;
  if (pre.empty()) return 1;
  if (o.pre.empty()) return -1;
  return compare_prerelease(pre, o.pre);
}

namespace {

using Constraint = SemConstraints::Constraint;

Constraint parse_constraint(std::string_view text) {
  const std::optional<semver_syntax::ConstraintText> m = semver_syntax::match_constraint(text);
  if (!m) throw SemverError{"improper constraint: " + std::string(text)};
  const semver_syntax::VersionText& v = m->version;
  Constraint c;
  c.op = std::string(m->op);
  std::string ver(v.whole);
  if (is_x(v.major)) {
    ver = "0.0.0" + std::string(v.pre);
    c.dirty = true;
  } else if (is_x(trim_dot(v.minor)) || v.minor.empty()) {
    c.minor_dirty = c.dirty = true;
    ver = std::string(v.major) + ".0.0" + std::string(v.pre);
  } else if (is_x(trim_dot(v.patch)) || v.patch.empty()) {
    c.patch_dirty = c.dirty = true;
    ver = std::string(v.major) + std::string(v.minor) + ".0" + std::string(v.pre);
  }
  try {
    c.con = SemVersion::parse(ver);
  } catch (const SemverError&) {
    throw SemverError{"constraint parser error"};
  }
  return c;
}

bool tilde(const SemVersion& v, const Constraint& c) {
  if (v.compare(c.con) < 0) return false;
  const SemVersion& k = c.con;
  if (k.major == 0 && k.minor == 0 && k.patch == 0 && !c.minor_dirty && !c.patch_dirty) return true;
  if (v.major != k.major) return false;
  return !(v.minor != k.minor && !c.minor_dirty);
}

bool caret(const SemVersion& v, const Constraint& c) {
  const SemVersion& k = c.con;
  if (v.compare(k) < 0) return false;
  if (k.major > 0 || c.minor_dirty) return v.major == k.major;
  if (k.major == 0 && v.major > 0) return false;
  if (k.minor > 0 || c.patch_dirty) return v.minor == k.minor;
  if (k.minor == 0 && v.minor > 0) return false;
  return k.patch == v.patch;
}

bool not_equal(const SemVersion& v, const Constraint& c) {
  const SemVersion& k = c.con;
  if (c.dirty) {
    if (k.major != v.major) return true;
    if (k.minor != v.minor && !c.minor_dirty) return true;
    if (c.minor_dirty) return false;
    if (k.patch != v.patch && !c.patch_dirty) return true;
    if (c.patch_dirty) {
      if (!v.pre.empty() || !k.pre.empty()) return compare_prerelease(v.pre, k.pre) != 0;
      return false;
    }
  }
  return v.compare(k) != 0;
}

bool greater(const SemVersion& v, const Constraint& c) {
  const SemVersion& k = c.con;
  if (!c.dirty) return v.compare(k) == 1;
  if (v.major > k.major) return true;
  if (v.major < k.major || c.minor_dirty) return false;
  if (c.patch_dirty) return v.minor > k.minor;
  return v.compare(k) == 1;
}

bool less_equal(const SemVersion& v, const Constraint& c) {
  const SemVersion& k = c.con;
  if (!c.dirty) return v.compare(k) <= 0;
  if (v.major > k.major) return false;
  return !(v.major == k.major && v.minor > k.minor && !c.minor_dirty);
}

/// One constraint of an AND group; `include_pre`: some constraint of the group names a
/// prerelease (semver 3.4.0 decides per group, and for != too; 3.2 per constraint, not for !=).
bool check_one(const SemVersion& v, const Constraint& c, bool include_pre) {
  const std::string& op = c.op;
  if (!v.pre.empty() && !include_pre) return false;
  if (op.empty() || op == "=") return c.dirty ? tilde(v, c) : v.compare(c.con) == 0;
  if (op == "!=") return not_equal(v, c);
  if (op == ">") return greater(v, c);
  if (op == "<") return v.compare(c.con) < 0;
  if (op == ">=" || op == "=>") return v.compare(c.con) >= 0;
  if (op == "<=" || op == "=<") return less_equal(v, c);
  if (op == "~" || op == "~>") return tilde(v, c);
  return caret(v, c);  // "^"
}

}  // namespace

SemConstraints SemConstraints::parse(std::string_view text) {
  SemConstraints out;
  const std::string c = semver_syntax::rewrite_ranges(text);
  for (std::string_view alt : split(c, "||")) {
    if (!semver_syntax::is_valid_and_group(alt)) {
      throw SemverError{"improper constraint: " + std::string(alt)};
    }
    std::vector<std::string_view> parts = semver_syntax::find_constraints(alt);
    if (parts.empty()) parts.push_back(alt);
    std::vector<Constraint> group;
    for (std::string_view p : parts) group.push_back(parse_constraint(p));
    out.m_alternatives.push_back(std::move(group));
  }
  return out;
}

bool SemConstraints::check(const SemVersion& v) const {
  for (const auto& group : m_alternatives) {
    const bool include_pre = std::any_of(group.begin(), group.end(),
                                         [](const Constraint& c) { return !c.con.pre.empty(); });
    bool all = true;
    for (const Constraint& c : group) {
      if (!check_one(v, c, include_pre)) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace ejob::render::sprig
