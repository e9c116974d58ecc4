// SemVersion::parse matches versions by hand; this checks it against Masterminds/semver's
// version pattern, verbatim, on every string of up to 6 characters over an alphabet that
// exercises each part of the pattern.
#include "src/render/sprig/semver.hpp"

#include <re2/re2.h>

#include <catch2/catch.hpp>
#include <string>

namespace ejob::render::sprig {
namespace {

const RE2& library_version_re() {
  static const RE2 r(R"(^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)"
                     R"((\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$)");
  return r;
}

/// parse's outcome: "invalid" for a failed match, "error: …" for a later error, else the parts.
std::string parsed(const std::string& s) {
  try {
    SemVersion v = SemVersion::parse(s);
    return v.str();
  } catch (const SemverError& e) {
    return e.what == "invalid semantic version" ? "invalid" : "error: " + e.what;
  }
}

/// What the pattern says: "invalid", or the parts as parse would print them.
std::string expected(const std::string& s) {
  std::string g[9];
  re2::StringPiece sub[9];
  if (!library_version_re().Match(s, 0, s.size(), RE2::UNANCHORED, sub, 9)) return "invalid";
  for (int i = 0; i < 9; ++i) g[i] = sub[i].data() ? std::string(sub[i].data(), sub[i].size()) : "";
  auto number = [](std::string d) { return d.empty() ? std::string("0") : d; };
  auto strip = [](std::string d) {
    d = d.empty() ? d : d.substr(1);
    d.erase(0, std::min(d.find_first_not_of('0'), d.empty() ? 0 : d.size() - 1));
    return d;
  };
  std::string major = g[1];
  major.erase(0, std::min(major.find_first_not_of('0'), major.size() - 1));
  std::string out = major + "." + number(strip(g[2])) + "." + number(strip(g[3]));
  if (!g[5].empty()) out += "-" + g[5];
  if (!g[8].empty()) out += "+" + g[8];
  return out;
}

TEST_CASE("semver: the hand-written version match is the library's pattern") {
  const std::string alphabet = "v10.-+a";
  std::string s;
  int checked = 0;
  // Every string of length 0..6 over the alphabet, as a counter in base alphabet.size().
  for (size_t len = 0; len <= 6; ++len) {
    std::vector<size_t> digits(len, 0);
    while (true) {
      s.clear();
      for (size_t d : digits) s += alphabet[d];
      std::string got = parsed(s);
      std::string want = expected(s);
      if (got.starts_with("error: ")) {
        CHECK(want != "invalid");  // a later check failed after a match
      } else if (got != want) {
        INFO(s);
        CHECK(got == want);
      }
      ++checked;
      size_t i = 0;
      while (i < len && ++digits[i] == alphabet.size()) digits[i++] = 0;
      if (i == len) break;
    }
  }
  CHECK(checked > 100000);
}

}  // namespace
}  // namespace ejob::render::sprig
