#include "src/render/sprig/semver_syntax.hpp"

#include <array>

namespace ejob::render::sprig::semver_syntax {

namespace {

/// Go's regexp `\s`: [\t\n\f\r ] (no \v).
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }

/// cvRegex's [0-9|x|X|\*] (the `|` is a member: the class was written as if it were a list).
bool is_wildcard_digit(char c) {
  return (c >= '0' && c <= '9') || c == '|' || c == 'x' || c == 'X' || c == '*';
}

/// [0-9A-Za-z\-]
bool is_ident(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
}

bool is_op_char(char c) {
  return c == '=' || c == '!' || c == '>' || c == '<' || c == '~' || c == '^';
}

/// The alternatives of `=||!=|>|<|>=|=>|<=|=<|~|~>|\^`.
bool is_op(std::string_view op) {
  static constexpr std::array<std::string_view, 12> k_ops = {
      "=", "", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"};
  for (std::string_view o : k_ops)
    if (o == op) return true;
  return false;
}

size_t skip(std::string_view s, size_t i, bool (*member)(char)) {
  while (i < s.size() && member(s[i])) ++i;
  return i;
}

/// `\.[class]+` at i: where it ends, or i when it is not there.
size_t dotted(std::string_view s, size_t i, bool (*member)(char)) {
  if (i >= s.size() || s[i] != '.') return i;
  const size_t end = skip(s, i + 1, member);
  return end > i + 1 ? end : i;
}

/// `<tag>([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*)` at i, greedily: where it ends, or i.
size_t tagged_idents(std::string_view s, size_t i, char tag) {
  if (i >= s.size() || s[i] != tag) return i;
  size_t end = skip(s, i + 1, is_ident);
  if (end == i + 1) return i;
  for (size_t next = dotted(s, end, is_ident); next != end; next = dotted(s, end, is_ident))
    end = next;
  return end;
}

/// cvRegex's greedy match starting at i, or nothing.
std::optional<VersionText> version_at(std::string_view s, size_t i) {
  const size_t begin = i;
  if (i + 1 < s.size() && s[i] == 'v' && is_wildcard_digit(s[i + 1])) ++i;
  const size_t major_end = skip(s, i, is_wildcard_digit);
  if (major_end == i) return std::nullopt;
  VersionText v;
  v.major = s.substr(i, major_end - i);
  const size_t minor_end = dotted(s, major_end, is_wildcard_digit);
  v.minor = s.substr(major_end, minor_end - major_end);
  const size_t patch_end = dotted(s, minor_end, is_wildcard_digit);
  v.patch = s.substr(minor_end, patch_end - minor_end);
  const size_t pre_end = tagged_idents(s, patch_end, '-');
  v.pre = s.substr(patch_end, pre_end - patch_end);
  const size_t end = tagged_idents(s, pre_end, '+');
  v.whole = s.substr(begin, end - begin);
  return v;
}

/// `(ops)\s*(cv)` starting at i: the operator is the run of operator characters there.
std::optional<ConstraintText> constraint_at(std::string_view s, size_t i) {
  const size_t op_end = skip(s, i, is_op_char);
  if (!is_op(s.substr(i, op_end - i))) return std::nullopt;
  std::optional<VersionText> v = version_at(s, skip(s, op_end, is_space));
  if (!v) return std::nullopt;
  return ConstraintText{s.substr(i, op_end - i), *v};
}

size_t end_of(std::string_view s, const VersionText& v) {
  return static_cast<size_t>(v.whole.data() - s.data()) + v.whole.size();
}

/// constraintRangeRegex at i: the whole match and its two versions.
struct RangeText {
  std::string_view whole, low, high;
};

std::optional<RangeText> range_at(std::string_view s, size_t i) {
  const std::optional<VersionText> low = version_at(s, skip(s, i, is_space));
  if (!low) return std::nullopt;
  const size_t dash = skip(s, end_of(s, *low), is_space);
  if (dash == end_of(s, *low) || dash >= s.size() || s[dash] != '-') return std::nullopt;
  const size_t high_at = skip(s, dash + 1, is_space);
  if (high_at == dash + 1) return std::nullopt;
  const std::optional<VersionText> high = version_at(s, high_at);
  if (!high) return std::nullopt;
  const size_t end = skip(s, end_of(s, *high), is_space);
  return RangeText{s.substr(i, end - i), low->whole, high->whole};
}

/// FindAll's walk: the leftmost match from each point on, none overlapping (no expression here
/// matches the empty string, and every match starts with an ASCII byte, so stepping by byte is
/// stepping by rune).
template <typename Match, typename Found>
void find_all(std::string_view s, Match match_at, Found found) {
  for (size_t i = 0; i < s.size();) {
    const auto m = match_at(s, i);
    if (!m) {
      ++i;
      continue;
    }
    found(*m);
    i = static_cast<size_t>(m->whole.data() - s.data()) + m->whole.size();
  }
}

}  // namespace

std::string rewrite_ranges(std::string_view text) {
  std::string out(text);
  find_all(text, range_at, [&](const RangeText& r) {
    const size_t hit = out.find(r.whole);
    if (hit == std::string::npos) return;
    out.replace(hit, r.whole.size(),
                ">= " + std::string(r.low) + ", <= " + std::string(r.high) + " ");
  });
  return out;
}

bool is_valid_and_group(std::string_view text) {
  size_t i = skip(text, 0, is_space);
  while (true) {
    const std::optional<ConstraintText> c = constraint_at(text, i);
    if (!c) return false;
    const size_t version_end = end_of(text, c->version);
    i = skip(text, version_end, is_space);
    if (i == text.size()) return true;
    if (text[i] == ',') {
      i = skip(text, i + 1, is_space);
    } else if (i == version_end) {
      return false;  // neither a space nor a comma between two constraints
    }
  }
}

std::vector<std::string_view> find_constraints(std::string_view text) {
  struct Found {
    std::string_view whole;
  };
  std::vector<std::string_view> out;
  auto found_at = [](std::string_view s, size_t i) -> std::optional<Found> {
    const std::optional<ConstraintText> c = constraint_at(s, i);
    if (!c) return std::nullopt;
    return Found{s.substr(i, end_of(s, c->version) - i)};
  };
  find_all(text, found_at, [&](const Found& f) { out.push_back(f.whole); });
  return out;
}

std::optional<ConstraintText> match_constraint(std::string_view text) {
  const std::optional<ConstraintText> c = constraint_at(text, skip(text, 0, is_space));
  if (!c || skip(text, end_of(text, c->version), is_space) != text.size()) return std::nullopt;
  return c;
}

}  // namespace ejob::render::sprig::semver_syntax
