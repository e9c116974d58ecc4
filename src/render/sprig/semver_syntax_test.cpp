// semver_syntax matches constraints by hand; this checks it against Masterminds/semver v3.4.0's
// four constraint expressions, verbatim (Go's regexp syntax and leftmost-first matching are
// RE2's), on every string of up to 5 characters over an alphabet that exercises each part of
// them, and on longer strings drawn at random from it.
#include "src/render/sprig/semver_syntax.hpp"

#include <re2/re2.h>

#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

namespace ejob::render::sprig::semver_syntax {
namespace {

// constraints.go's init(), as written there.
const std::string k_cv = R"(v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?)"
                         R"((-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)"
                         R"((\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)";
const std::string k_ops = R"(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)";

const RE2& constraint_re() {
  static const RE2 r(R"(^\s*()" + k_ops + R"()\s*()" + k_cv + R"()\s*$)");
  return r;
}
const RE2& range_re() {
  static const RE2 r(R"(\s*()" + k_cv + R"()\s+-\s+()" + k_cv + R"()\s*)");
  return r;
}
const RE2& find_re() {
  static const RE2 r("(" + k_ops + R"()\s*()" + k_cv + ")");
  return r;
}
const RE2& valid_re() {
  static const RE2 r(R"(^(\s*()" + k_ops + R"()\s*()" + k_cv + R"()\s*)((?:\s+|,\s*)()" + k_ops +
                     R"()\s*()" + k_cv + R"()\s*)*$)");
  return r;
}

std::string text(const re2::StringPiece& p) { return p.data() ? std::string(p) : std::string(); }

/// Go's FindAllStringSubmatch (no expression here matches the empty string).
std::vector<std::vector<std::string>> find_all(const RE2& r, const std::string& s) {
  std::vector<std::vector<std::string>> out;
  const int n = r.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> sub(static_cast<size_t>(n));
  size_t pos = 0;
  while (pos <= s.size() && r.Match(s, pos, s.size(), RE2::UNANCHORED, sub.data(), n)) {
    std::vector<std::string> m;
    for (const auto& p : sub) m.push_back(text(p));
    out.push_back(std::move(m));
    pos = static_cast<size_t>(sub[0].data() - s.data()) + sub[0].size();
  }
  return out;
}

/// rewriteRange in Go, over the expression.
std::string library_rewrite(const std::string& in) {
  std::string out = in;
  for (const auto& m : find_all(range_re(), in)) {
    const size_t hit = out.find(m[0]);
    if (hit != std::string::npos)
      out.replace(hit, m[0].size(), ">= " + m[1] + ", <= " + m[11] + " ");
  }
  return out;
}

/// What each function gives, as one line, so that a difference prints both sides.
std::string ours(const std::string& s) {
  std::string out =
      "rewrite[" + rewrite_ranges(s) + "] valid[" + (is_valid_and_group(s) ? "y" : "n") + "] find[";
  for (std::string_view f : find_constraints(s)) out += std::string(f) + ";";
  out += "] match[";
  if (auto m = match_constraint(s)) {
    const VersionText& v = m->version;
    for (std::string_view g : {m->op, v.whole, v.major, v.minor, v.patch, v.pre})
      out += std::string(g) + ";";
  }
  return out + "]";
}

std::string library(const std::string& s) {
  std::string out = "rewrite[" + library_rewrite(s) + "] valid[" +
                    (RE2::PartialMatch(s, valid_re()) ? "y" : "n") + "] find[";
  for (const auto& m : find_all(find_re(), s)) out += m[0] + ";";
  out += "] match[";
  const auto all = find_all(constraint_re(), s);
  if (!all.empty()) {
    for (int g : {1, 2, 3, 4, 5, 6}) out += all.front()[static_cast<size_t>(g)] + ";";
  }
  return out + "]";
}

void check_agrees(const std::string& s) {
  const std::string got = ours(s);
  const std::string want = library(s);
  if (got != want) {
    INFO("input \"" << s << "\"");
    CHECK(got == want);
  }
}

// Every operator character, each version part's own characters, the separators and a byte
// of a multi-byte rune.
const std::string k_alphabet = "v1x|.-+a >=!~^,\t\xc3";

TEST_CASE("semver syntax: the hand-written matches are the library's expressions") {
  std::string s;
  int checked = 0;
  for (size_t len = 0; len <= 4; ++len) {  // every string of up to 4 characters
    std::vector<size_t> digits(len, 0);
    while (true) {
      s.clear();
      for (size_t d : digits) s += k_alphabet[d];
      check_agrees(s);
      ++checked;
      size_t i = 0;
      while (i < len && ++digits[i] == k_alphabet.size()) digits[i++] = 0;
      if (i == len) break;
    }
  }
  std::mt19937 draw(34);  // then longer ones, the same every run
  std::uniform_int_distribution<size_t> length(5, 24);
  std::uniform_int_distribution<size_t> pick(0, k_alphabet.size() - 1);
  for (int n = 0; n < 60000; ++n) {
    s.clear();
    for (size_t len = length(draw); s.size() < len;) s += k_alphabet[pick(draw)];
    check_agrees(s);
    ++checked;
  }
  CHECK(checked > 100000);
}

TEST_CASE("semver syntax: constraints as charts write them") {
  for (const char* c :
       {">=1.19-0", ">= 1.21.0-0", "<1.25.0-0", "^1.2.3", "~> 2.x", ">= 1.2, < 3.0.0 || 4.x",
        "1.2 - 1.4.5", "1.0.0 - 2||3", "v1.2.3-rc.1+build.5", "=1.2.3", "!=4.5", "* ",
        ">=1.16.0-0 <1.31.0-0", "1.x.x", " ~1.2.3 , <1.3 ", ">= 1.27.0-0 , < 1.35.0-0"})
    check_agrees(c);
}

}  // namespace
}  // namespace ejob::render::sprig::semver_syntax
