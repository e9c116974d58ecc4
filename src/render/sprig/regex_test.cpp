// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: regex functions follow Go's regexp match loops") {
  CHECK(show("regexMatch", {S("^[a-z]+$"), S("abc")}) == "true");
  CHECK(show("regexMatch", {S("("), S("x")}) == "false");
  CHECK(show("regexFindAll", {S("a."), S("aXaYaZ"), I(2)}) == "[aX aY]");
  CHECK(show("regexFindAll", {S("a*"), S("baaab"), I(-1)}) == "[ aaa ]");
  CHECK(show("regexFind", {S("[0-9]+"), S("ab123cd45")}) == "123");
  CHECK(show("regexReplaceAll", {S("a(x*)b"), S("-ab-axxb-"), S("${1}W")}) == "-W-xxW-");
  CHECK(show("regexReplaceAll", {S("a(x*)b"), S("-ab-axxb-"), S("$1W")}) == "---");
  CHECK(show("regexReplaceAll", {S("(?P<n>x+)"), S("axxb"), S("[$n]")}) == "a[xx]b");
  CHECK(show("regexReplaceAll", {S("a*"), S("baaac"), S("-")}) == "-b-c-");
  CHECK(show("regexReplaceAll", {S("\\$"), S("a$b"), S("$$")}) == "a$b");
  CHECK(show("regexReplaceAll", {S("b"), S("abc"), S("$")}) == "a$c");
  CHECK(show("regexReplaceAllLiteral", {S("a(x*)b"), S("-ab-axxb-"), S("${1}")}) == "-${1}-${1}-");
  CHECK(show("regexSplit", {S("a"), S("banana"), I(-1)}) == "[b n n ]");
  CHECK(show("regexSplit", {S("a"), S("banana"), I(2)}) == "[b nana]");
  CHECK(show("regexSplit", {S(""), S("abc"), I(-1)}) == "[a b c]");
  CHECK(show("regexSplit", {S("x*"), S("axbc"), I(-1)}) == "[a b c]");
  CHECK(show("regexQuoteMeta", {S("1.5*[a]")}) == "1\\.5\\*\\[a\\]");
}

TEST_CASE("sprig: regex compile errors read as Go's") {
  CHECK(error_of("regexFind", {S("("), S("x")}) ==
        "regexp: Compile(`(`): error parsing regexp: missing closing ): `(`");
  CHECK(error_of("mustRegexFind", {S("("), S("x")}) ==
        "error parsing regexp: missing closing ): `(`");
  CHECK(error_of("mustRegexMatch", {S("a)"), S("x")}) ==
        "error parsing regexp: unexpected ): `a)`");
  CHECK(error_of("regexFind", {S("x{2,1}"), S("x")}) ==
        "regexp: Compile(`x{2,1}`): error parsing regexp: invalid repeat count: `{2,1}`");
  CHECK(error_of("regexFind", {S("\\8"), S("x")}) ==
        "regexp: Compile(`\\8`): error parsing regexp: invalid escape sequence: `\\8`");
  CHECK(error_of("regexFind", {S("[z-a]"), S("x")}) ==
        "regexp: Compile(`[z-a]`): error parsing regexp: invalid character class range: `z-a`");
  CHECK(error_of("regexFind", {S("a**"), S("x")}) ==
        "regexp: Compile(`a**`): error parsing regexp: invalid nested repetition operator: `**`");
  CHECK(error_of("regexFind", {S("*"), S("x")}) ==
        "regexp: Compile(`*`): error parsing regexp: missing argument to repetition operator: `*`");
  CHECK(error_of("regexFind", {S("[a"), S("x")}) ==
        "regexp: Compile(`[a`): error parsing regexp: missing closing ]: `[a`");
  CHECK(error_of("regexFind", {S("(?i"), S("x")}) ==
        "regexp: Compile(`(?i`): error parsing regexp: invalid or unsupported Perl syntax: `(?i`");
  // RE2's \C (any byte) is no escape to Go; an escaped backslash before a C is.
  CHECK(error_of("mustRegexMatch", {S("a\\Cb"), S("x")}) ==
        "error parsing regexp: invalid escape sequence: `\\C`");
  CHECK(show("regexMatch", {S("a\\\\Cb"), S("a\\Cb")}) == "true");
  // Go 1.22+ names a group (?<name>…) as well as (?P<name>…); RE2 only knows the second.
  CHECK(show("regexReplaceAll", {S("(?<d>[0-9]+)"), S("a12b"), S("<${d}>")}) == "a<12>b");
  CHECK(show("regexMatch", {S("[(?<]x"), S("<x")}) == "true");  // in a class it is no group
  CHECK(error_of("mustRegexMatch", {S("(?<a-b>x)"), S("x")}) ==
        "error parsing regexp: invalid named capture: `(?<a-b>`");
  CHECK(error_of("mustRegexMatch", {S("(?P<a-b>x)"), S("x")}) ==
        "error parsing regexp: invalid named capture: `(?P<a-b>`");
}

TEST_CASE("sprig: semver and semverCompare follow Masterminds/semver 3.2") {
  CHECK(show("semverCompare", {S(">=1.2.3-0"), S("1.2.4-beta")}) == "true");
  CHECK(show("semverCompare", {S("1.x"), S("1.9.9")}) == "true");
  CHECK(show("semverCompare", {S(">= 1.0, < 2.0 || 3.x"), S("3.1.0")}) == "true");
  CHECK(show("semverCompare", {S("1.2.3 - 1.4"), S("1.3.0")}) == "true");
  CHECK(show("semverCompare", {S(">=1.2.3 <1.5"), S("1.4.0")}) == "true");
  CHECK(show("semverCompare", {S(">=1.20.0-0"), S("v1.19.3")}) == "false");
  CHECK(show("semverCompare", {S("^1.2"), S("1.9.0")}) == "true");
  CHECK(show("semverCompare", {S("~1.2.3"), S("1.3.0")}) == "false");
  CHECK(show("semverCompare", {S(">1.0"), S("1.0.0-rc1")}) == "false");
  CHECK(error_of("semverCompare", {S("abc"), S("1.0.0")}) == "improper constraint: abc");
  CHECK(error_of("semverCompare", {S(">1.0"), S("abc")}) == "invalid semantic version");
  CHECK(show("semver", {S("v1.2.3-alpha.1+b5")}) == "1.2.3-alpha.1+b5");
  CHECK(show("semver", {S("01.2.3")}) == "1.2.3");
  CHECK(error_of("semver", {S("1.2.3-01")}) == "version segment starts with 0");
  CHECK(error_of("semver", {S("99999999999999999999")}) ==
        "error parsing version segment: strconv.ParseUint: parsing \"99999999999999999999\": "
        "value out of range");
  Value v = call("semver", {S("1.2")});
  CHECK(v.type_name() == "*semver.Version");
  CHECK(format_v(v.as_object().call("Major", {})) == "1");
  Value next = v.as_object().call("IncMinor", {});
  CHECK(format_v(next) == "1.3.0");
  CHECK(next.type_name() == "semver.Version");
}

// Conformance: Masterminds/semver v3.4.0's constraints_test.go TestConstraintsCheck, every row
// (Helm v3.21 links v3.4.0), through Sprig's semverCompare.
TEST_CASE("sprig: semverCompare passes semver v3.4.0's TestConstraintsCheck") {
  struct Row {
    const char* constraint;
    const char* version;
    bool check;
  };
  const Row rows[] = {
      {"*", "1.2.3", true},
      {"~0.0.0", "1.2.3", true},
      {"0.x.x", "1.2.3", false},
      {"0.0.x", "1.2.3", false},
      {"0.0.0", "1.2.3", false},
      {"*", "1.2.3", true},
      {"^0.0.0", "1.2.3", false},
      {"= 2.0", "1.2.3", false},
      {"= 2.0", "2.0.0", true},
      {"4.1", "4.1.0", true},
      {"4.1.x", "4.1.3", true},
      {"1.x", "1.4", true},
      {"!=4.1", "4.1.0", false},
      {"!=4.1-alpha", "4.1.0-alpha", false},
      {"!=4.1-alpha", "4.1.1-alpha", false},
      {"!=4.1-alpha", "4.1.0", true},
      {"!=4.1", "5.1.0", true},
      {"!=4.x", "5.1.0", true},
      {"!=4.x", "4.1.0", false},
      {"!=4.1.x", "4.2.0", true},
      {"!=4.2.x", "4.2.3", false},
      {">1.1", "4.1.0", true},
      {">1.1", "1.1.0", false},
      {"<1.1", "0.1.0", true},
      {"<1.1", "1.1.0", false},
      {"<1.1", "1.1.1", false},
      {"<1.x", "1.1.1", false},
      {"<1.x", "0.1.1", true},
      {"<1.x", "2.0.0", false},
      {"<1.1.x", "1.2.1", false},
      {"<1.1.x", "1.1.500", false},
      {"<1.1.x", "1.0.500", true},
      {"<1.2.x", "1.1.1", true},
      {">=1.1", "4.1.0", true},
      {">=1.1", "4.1.0-beta", false},
      {">=1.1", "1.1.0", true},
      {">=1.1", "0.0.9", false},
      {"<=1.1", "0.1.0", true},
      {"<=1.1", "0.1.0-alpha", false},
      {"<=1.1-a", "0.1.0-alpha", true},
      {"<=1.1", "1.1.0", true},
      {"<=1.x", "1.1.0", true},
      {"<=2.x", "3.0.0", false},
      {"<=1.1", "1.1.1", true},
      {"<=1.1.x", "1.2.500", false},
      {"<=4.5", "3.4.0", true},
      {"<=4.5", "3.7.0", true},
      {"<=4.5", "4.6.3", false},
      {">1.1, <2", "1.1.1", false},
      {">1.1, <2", "1.2.1", true},
      {">1.1, <3", "4.3.2", false},
      {">=1.1, <2, !=1.2.3", "1.2.3", false},
      {">1.1 <2", "1.1.1", false},
      {">1.1 <2", "1.2.1", true},
      {">1.1    <3", "4.3.2", false},
      {">=1.1    <2    !=1.2.3", "1.2.3", false},
      {">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true},
      {">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false},
      {">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true},
      {">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false},
      {">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false},
      {">=1.1 <2 !=1.2.3", "1.2.3", false},
      {">=1.1 <2 !=1.2.3 || > 3", "4.1.2", true},
      {">=1.1 <2 !=1.2.3 || > 3", "3.1.2", false},
      {">=1.1 <2 !=1.2.3 || >= 3", "3.0.0", true},
      {">=1.1 <2 !=1.2.3 || > 3", "3.0.0", false},
      {">=1.1 <2 !=1.2.3 || > 3", "1.2.3", false},
      {"> 1.1, <     2", "1.1.1", false},
      {">   1.1, <2", "1.2.1", true},
      {">1.1, <  3", "4.3.2", false},
      {">= 1.1, <     2, !=1.2.3", "1.2.3", false},
      {"> 1.1 < 2", "1.1.1", false},
      {">1.1 < 2", "1.2.1", true},
      {"> 1.1    <3", "4.3.2", false},
      {">=1.1    < 2    != 1.2.3", "1.2.3", false},
      {">= 1.1, <2, !=1.2.3 || > 3", "4.1.2", true},
      {">= 1.1, <2, != 1.2.3 || > 3", "3.1.2", false},
      {">= 1.1, <2, != 1.2.3 || >= 3", "3.0.0", true},
      {">= 1.1, <2, !=1.2.3 || > 3", "3.0.0", false},
      {">= 1.1, <2, !=1.2.3 || > 3", "1.2.3", false},
      {">= 1.1 <2 != 1.2.3", "1.2.3", false},
      {">= 1.1 <2 != 1.2.3 || > 3", "4.1.2", true},
      {">= 1.1 <2 != 1.2.3 || > 3", "3.1.2", false},
      {">= 1.1 <2 != 1.2.3 || >= 3", "3.0.0", true},
      {">= 1.1 < 2 !=1.2.3 || > 3", "3.0.0", false},
      {">=1.1 < 2 !=1.2.3 || > 3", "1.2.3", false},
      {">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", true},
      {">= 1.0.0  <= 2.0.0-beta", "1.0.1", true},
      {">= 1.0.0  <= 2.0.0-beta", "3.0.0", false},
      {">= 1.0.0  <= 2.0.0-beta || > 3", "1.0.1-beta", true},
      {">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", false},
      {">= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3", "1.0.1-beta", true},
      {">= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3", "1.0.1-beta", false},
      {">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", true},
      {"1.1 - 2", "1.1.1", true},
      {"1.5.0 - 4.5", "3.7.0", true},
      {"1.1-3", "4.3.2", false},
      {"^1.1", "1.1.1", true},
      {"^1.1", "4.3.2", false},
      {"^1.x", "1.1.1", true},
      {"^2.x", "1.1.1", false},
      {"^1.x", "2.1.1", false},
      {"^1.x", "1.1.1-beta1", false},
      {"^1.1.2-alpha", "1.2.1-beta1", true},
      {"^1.2.x-alpha", "1.1.1-beta1", false},
      {"^0.0.1", "0.0.1", true},
      {"^0.0.1", "0.3.1", false},
      {"~*", "2.1.1", true},
      {"~1", "2.1.1", false},
      {"~1", "1.3.5", true},
      {"~1", "1.4", true},
      {"~1.x", "2.1.1", false},
      {"~1.x", "1.3.5", true},
      {"~1.x", "1.4", true},
      {"~1.1", "1.1.1", true},
      {"~1.1", "1.1.1-alpha", false},
      {"~1.1-alpha", "1.1.1-beta", true},
      {"~1.1.1-beta", "1.1.1-alpha", false},
      {"~1.1.1-beta", "1.1.1", true},
      {"~1.2.3", "1.2.5", true},
      {"~1.2.3", "1.2.2", false},
      {"~1.2.3", "1.3.2", false},
      {"~1.1", "1.2.3", false},
      {"~1.3", "2.4.5", false},
      {"1.0.0 - 2.0.0 <=2.0.0", "1.5.0", true},
      {"1.0.0 - 2.0.0, <=2.0.0", "1.5.0", true},
  };
  for (const Row& r : rows) {
    INFO(r.constraint << " " << r.version);
    CHECK(show("semverCompare", {S(r.constraint), S(r.version)}) == (r.check ? "true" : "false"));
  }
}
