#include "ejob/helm/schema_format.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ejob/helm/schema.hpp"

using ejob::render::string_has_format;

// The Go side of each format is compared case by case in tests/diff/cases/schema/format-*.

TEST_CASE("schema format: the checks behind each name") {
  CHECK(string_has_format("ipv4", "10.0.0.1"));
  CHECK_FALSE(string_has_format("ipv4", "10.0.0.01"));
  CHECK(string_has_format("ipv6", "fe80::1"));
  CHECK(string_has_format("ipv4", "::ffff:10.0.0.1"));  // ParseIP, then a '.' in the text
  CHECK(string_has_format("date-time", "2024-01-05T10:00:00.5+02:00"));
  CHECK_FALSE(string_has_format("date-time", "2024-01-05 10:00:00"));
  CHECK_FALSE(string_has_format("time", "1:02:03"));  // parses, but does not format back
  CHECK(string_has_format("uri", "https://example.com/a?b#c"));
  CHECK_FALSE(string_has_format("uri", "example.com/a"));
  CHECK(string_has_format("uri-reference", "example.com/a"));
  CHECK_FALSE(string_has_format("uri-reference", "a\\b"));
  CHECK_FALSE(string_has_format("regex", "a\\Cb"));  // RE2 takes \C, Go does not
  CHECK(string_has_format("regex", "a\\\\Cb"));
}

TEST_CASE("schema format: email is mail.ParseAddress, unknown formats pass") {
  CHECK(string_has_format("email", "a.b@example.com"));
  CHECK(string_has_format("email", "Ann Lee <ann@example.com>"));
  CHECK(string_has_format("idn-email",
                          "jos\xc3\xa9@b\xc3\xbc"
                          "cher.example"));
  CHECK_FALSE(string_has_format("email", "not an address"));
  CHECK_FALSE(string_has_format("email", "a..b@example.com"));
  CHECK_FALSE(string_has_format("idn-email", ""));
  CHECK(string_has_format("my-format", "x"));
}

// jsonschema v6 (Helm >= 3.18) asserts format for drafts 4-7 only; no $schema means 2020-12.
TEST_CASE("schema format: checked under drafts 4-7, an annotation under 2019-09 and 2020-12") {
  using ejob::render::schema_problems;
  const ejob::render::Value bad =
      ejob::render::Value::map(ejob::render::Map{{"e", ejob::render::Value::string("x")}});
  auto problems = [&](const std::string& draft) {
    std::string schema = R"({"properties": {"e": {"format": "email"}}})";
    if (!draft.empty()) schema = R"({"$schema": ")" + draft + "\", " + schema.substr(1);
    return schema_problems(schema, bad, "values.schema.json");
  };
  CHECK(problems("") == "");
  CHECK(problems("https://json-schema.org/draft/2020-12/schema") == "");
  CHECK(problems("https://json-schema.org/draft/2019-09/schema") == "");
  CHECK(problems("http://json-schema.org/schema#") == "");
  CHECK(problems("http://json-schema.org/draft-07/schema#") ==
        "- at '/e': 'x' is not valid email\n");
  CHECK(problems("http://json-schema.org/draft-04/schema") ==
        "- at '/e': 'x' is not valid email\n");
  CHECK(problems("https://example.com/my-meta") == "- at '/e': 'x' is not valid email\n");
}
