#include "src/render/helm/schema_format.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "src/render/helm/schema.hpp"
using ejob::render::go::Value;

namespace {

/// The reason v6 gives, or "" where the string passes.
std::string why(std::string_view format, std::string_view text) {
  return ejob::render::helm::format_error(format, text).value_or("");
}

}  // namespace

// Reasons as v6's format.go words them; the Go errors inside are Go's own texts.
TEST_CASE("schema format: uuid, ipv4, ipv6 and hostname reasons") {
  CHECK(why("uuid", "2EB8AA08-AA98-11EA-B4AA-73B441D16380").empty());  // either case
  CHECK(why("uuid", "x") == "must have 5 elements");
  CHECK(why("uuid", "2eb8aa08-aa98-11ea-b4aa-73b441d1638") ==
        "element 5 must be 12 characters long");
  CHECK(why("uuid", "geb8aa08-aa98-11ea-b4aa-73b441d16380") == "non-hex character 'g'");
  CHECK(why("ipv4", "10.0.0.01") == "leading zeros");
  CHECK(why("ipv4", "1.2.3") == "expected four decimals");
  CHECK(why("ipv4", "256.0.0.1") == "decimal must be between 0 and 255");
  CHECK(why("ipv4", "a.b.c.d") == "strconv.Atoi: parsing \"a\": invalid syntax");
  CHECK(why("ipv4", "1..2.3") == "strconv.Atoi: parsing \"\": invalid syntax");
  CHECK(why("ipv4", "99999999999999999999.1.1.1") ==
        "strconv.Atoi: parsing \"99999999999999999999\": value out of range");
  CHECK(why("ipv4", "+1.2.3.4").empty());  // Atoi takes a sign
  CHECK(why("ipv6", "1.2.3.4") == "missing colon");
  CHECK(why("ipv6", "12345::") ==
        "ParseAddr(\"12345::\"): each group must have 4 or less digits (at \"12345::\")");
  CHECK(why("ipv6", "1::2::3") == "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")");
  CHECK(why("ipv6", "1:2") == "ParseAddr(\"1:2\"): address string too short");
  CHECK(why("ipv6", "::ffff:1.2.3.04") ==
        "ParseAddr(\"::ffff:1.2.3.04\"): IPv4 field has octet with leading zero");
  CHECK(why("ipv6", "fe80::1%eth0") == "zone id is not a part of ipv6 address");
  CHECK(why("ipv6", "::ffff:10.0.0.1").empty());
  CHECK(why("hostname", "example.com.").empty());  // one trailing dot
  CHECK(why("hostname", "-a.com") == "label starts with hyphen");
  CHECK(why("hostname", "a-.com") == "label ends with hyphen");
  CHECK(why("hostname", "a_b.com") == "invalid character '_'");
  CHECK(why("hostname", "a..b") == "label must be 1 to 63 characters long");
  CHECK(why("hostname", "xn--4gbwdl.xn--wgbh1c").empty());  // punycode is plain ASCII to v6
}

TEST_CASE("schema format: email reasons") {
  CHECK(why("email", "a.b@example.com").empty());
  CHECK(why("email", "x") == "missing @");
  CHECK(why("email", "a..b@example.com") == "consecutive dots");
  CHECK(why("email", ".a@example.com") == "starts with dot");
  CHECK(why("email", "a@-x.com") == "invalid domain: label starts with hyphen");
  CHECK(why("email", "a@[IPv6:::1]").empty());
  CHECK(why("email", "a@[1.2.3]") == "invalid ipv4 address: expected four decimals");
  CHECK(why("email", "jos\xc3\xa9@example.com") == "invalid character '\xc3\xa9'");
  CHECK(why("email", "Ann Lee <ann@example.com>") == "invalid character ' '");
  // Extra-Test-Suite (v6's testdata): a tab is fine quoted, a quote or backslash is not.
  CHECK(why("email", "\"a\tb\"@gmail.com").empty());
  CHECK(why("email", "\"a\"b\"@gmail.com") ==
        "backslash and quote are not allowed within quoted local part");
  CHECK(why("email", "a\tb@gmail.com") == "invalid character '\\t'");
}

TEST_CASE("schema format: date, time and date-time reasons") {
  CHECK(why("date", "2024-02-29").empty());
  CHECK(why("date", "2023-02-29") == "parsing time \"2023-02-29\": day out of range");
  CHECK(why("time", "12:34:56Z").empty());
  CHECK(why("time", "12:34:56") == "less than 9 characters long");  // no offset
  CHECK(why("time", "12:34:56.5") == "offset must be 6 characters long");
  CHECK(why("time", "1:02:03") == "less than 9 characters long");
  CHECK(why("time", "ab:cd:efZ") == "invalid hour/min/sec");
  CHECK(why("time", "23:20:50.Z") == "no digits in second fraction");
  CHECK(why("time", "08:30:06+ab:cd") == "invalid hour/min in offset");
  CHECK(why("time", "12:34:60Z") == "invalid leap second");
  CHECK(why("time", "23:59:60Z").empty());
  CHECK(why("time", "15:59:60-08:00").empty());  // 23:59:60 in UTC
  CHECK(why("date-time", "2024-01-05") == "less than 20 characters long");
  CHECK(why("date-time", "10:00:00") == "less than 20 characters long");
  CHECK(why("date-time", "2024-01-05 10:00:00Z") == "11th character must be t or T");
  CHECK(why("date-time", "2024-13-05T10:00:00Z") ==
        "invalid date element: parsing time \"2024-13-05\": month out of range");
  CHECK(why("date-time", "2024-01-05T10:00:00.5") ==
        "invalid time element: offset must be 6 characters long");
}

TEST_CASE("schema format: duration, period and semver reasons") {
  CHECK(why("duration", "P4DT12H30M5S").empty());
  CHECK(why("duration", "P1W").empty());
  CHECK(why("duration", "1D") == "must start with P");
  CHECK(why("duration", "P") == "nothing after P");
  CHECK(why("duration", "PT") == "no time elements");
  CHECK(why("duration", "PT1MT1S") == "more than one T");
  CHECK(why("duration", "P1D2Y") == "unit 'Y' out of order");
  CHECK(why("duration", "P1X") == "invalid unit 'X'");
  CHECK(why("duration", "P1") == "missing unit");
  CHECK(why("duration", "PW") == "no number in week");
  CHECK(why("duration", "P1DW") == "invalid week");
  CHECK(why("period", "1963-06-19T08:30:06Z/P4DT12H30M5S").empty());
  CHECK(why("period", "P4DT12H30M5S/1963-06-19T08:30:06Z").empty());
  CHECK(why("period", "x") == "missing slash");
  CHECK(why("period", "P1D/P1D") == "invalid end date-time: less than 20 characters long");
  CHECK(why("period", "foo/bar") == "invalid start date-time: less than 20 characters long");
  CHECK(why("semver", "1.0.0-x-y-z.--").empty());
  CHECK(why("semver", "1.0.0+21AF26D3----117B344092BD").empty());
  CHECK(why("semver", "1.2") == "versionCore must have 3 numbers separated by dot");
  CHECK(why("semver", "-1.2.3") == "versionCore must have 3 numbers separated by dot");
  CHECK(why("semver", "01.2.3") == "major starts with zero");
  CHECK(why("semver", "1.x.3") == "minor contains non-digit");
  CHECK(why("semver", "1.2.") == "patch is empty");
  CHECK(why("semver", "1.2.3-01") == "pre-release numeric identifier starts with zero");
  CHECK(why("semver", "1.2.3+") == "build is empty");
  CHECK(why("semver", "0.88.0-11_e") == "invalid character '_' in pre-release identifier");
  CHECK(why("semver", "0.88.0+11_e") == "invalid character '_' in build identifier");
}

TEST_CASE("schema format: uri forms, pointers and regex reasons") {
  CHECK(why("uri", "https://example.com/a?b#c").empty());
  CHECK(why("uri", "http://x/a\\b").empty());  // only the references refuse a backslash
  CHECK(why("uri", "example.com/a") == "relative url");
  CHECK(why("uri", "://x") == "parse \"://x\": missing protocol scheme");
  // Go 1.26's url.Parse: strict colons for http(s), IPv6 literals checked by netip.ParseAddr.
  CHECK(why("uri", "http://a:b:1/") == "parse \"http://a:b:1/\": invalid port \":b:1\" after host");
  CHECK(why("uri", "ftp://a:b:1/") == "ipv6 address not enclosed in brackets");
  CHECK(why("uri", "http://[1::2::3]/") ==
        "parse \"http://[1::2::3]/\": invalid host: ParseAddr(\"1::2::3\"): multiple :: in "
        "address (at \":3\")");
  CHECK(why("uri", "http://[1.2.3.4]/") == "parse \"http://[1.2.3.4]/\": invalid IP-literal");
  CHECK(why("uri", "http://x[y]/") == "parse \"http://x[y]/\": invalid IP-literal");
  CHECK(why("uri", "http://[::1%25en0]:80/") ==
        "invalid ipv6 address: zone id is not a part of ipv6 address");
  CHECK(why("uri", "http://[::ffff:1.2.3.4]:80/").empty());
  CHECK(why("iri-reference", "a\\b") == "contains \\");
  CHECK(why("uri-reference", "example.com/a").empty());
  CHECK(why("uri-template", "http://x/{a}/{b}").empty());
  CHECK(why("uri-template", "http://x/{a{b}}") == "nested curly braces");
  CHECK(why("uri-template", "http://x/{a") == "no matching closing brace");
  CHECK(why("uri-template", "http://x/?q={a{b}}").empty());  // only the path is looked at
  CHECK(why("json-pointer", "a") == "not starting with /");
  CHECK(why("json-pointer", "/a~2") == "~ must be followed by 0 or 1");
  CHECK(why("json-pointer", "/a~") == "~ must be followed by 0 or 1");
  CHECK(why("relative-json-pointer", "0#").empty());
  CHECK(why("relative-json-pointer", "01/a") == "starts with zero");
  CHECK(why("relative-json-pointer", "/a") == "must start with non-negative integer");
  CHECK(why("regex", "(") == "error parsing regexp: missing closing ): `(`");
  CHECK(why("regex", "a\\Cb") == "error parsing regexp: invalid escape sequence: `\\C`");
  CHECK(why("regex", "a\\\\Cb").empty());
  CHECK(why("regex", "(?<name>x)").empty());  // Go 1.22+ syntax, spelled (?P< for RE2
  CHECK_FALSE(ejob::render::helm::format_error("idn-email", "x").has_value());  // v6 has no checker
  CHECK_FALSE(ejob::render::helm::format_error("my-format", "x").has_value());
}

// jsonschema v6 (Helm >= 3.18) asserts format for drafts 4-7 only; no $schema means 2020-12.
TEST_CASE("schema format: checked under drafts 4-7, an annotation under 2019-09 and 2020-12") {
  using ejob::render::helm::schema_problems;
  const ejob::render::go::Value bad = ejob::render::go::Value::map(
      ejob::render::go::Map{{"e", ejob::render::go::Value::string("x")}});
  auto problems = [&](const std::string& draft) {
    std::string schema = R"({"properties": {"e": {"format": "email"}}})";
    if (!draft.empty()) schema = R"({"$schema": ")" + draft + "\", " + schema.substr(1);
    return schema_problems(schema, bad);
  };
  CHECK(problems("") == "");
  const ejob::render::go::Value number = ejob::render::go::Value::map(
      ejob::render::go::Map{{"e", ejob::render::go::Value::int64(12)}});
  CHECK(schema_problems(R"({"$schema": "http://json-schema.org/draft-07/schema#",
                            "properties": {"e": {"format": "ipv4"}}})",
                        number) == "");  // non-strings pass every format
  CHECK(problems("https://json-schema.org/draft/2020-12/schema") == "");
  CHECK(problems("https://json-schema.org/draft/2019-09/schema") == "");
  CHECK(problems("http://json-schema.org/schema#") == "");
  CHECK(problems("http://json-schema.org/draft-07/schema#") ==
        "- at '/e': 'x' is not valid email: missing @\n");
  CHECK(problems("http://json-schema.org/draft-04/schema") ==
        "- at '/e': 'x' is not valid email: missing @\n");
  // a metaschema of one's own counts as the draft its own $schema names (here 7)
  const std::filesystem::path meta =
      std::filesystem::temp_directory_path() / ("ejob-meta-" + std::to_string(getpid()) + ".json");
  std::ofstream(meta) << R"({"$schema": "http://json-schema.org/draft-07/schema#"})";
  CHECK(problems("file://" + meta.string()) == "- at '/e': 'x' is not valid email: missing @\n");
  std::filesystem::remove(meta);
}
