#include "src/render/helm/schema_set.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "src/render/go/json.hpp"
#include "src/render/helm/metaschemas.hpp"
#include "src/render/helm/schema.hpp"

namespace {

using ejob::render::helm::join_url;
using ejob::render::helm::SchemaIo;

std::string problems(const std::string& schema, const std::string& values,
                     const SchemaIo& io = {}) {
  return ejob::render::helm::schema_problems(schema,
                                             ejob::render::go::json::unmarshal(values).value, io);
}

/// A folder of schema files for `file:` references, removed at the end of the test.
struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ejob-schema-set-" + std::to_string(getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return "file://" + (path / name).string();
  }
};

}  // namespace

// Go's URL.ResolveReference, as v6 joins a $ref or $id with its base.
TEST_CASE("schema set: references resolve against their base as Go's net/url does") {
  CHECK(join_url("file:///values.schema.json", "#/$defs/a").url == "file:///values.schema.json");
  CHECK(join_url("file:///values.schema.json", "#/$defs/a").frag == "/$defs/a");
  CHECK(join_url("file:///values.schema.json", "other.json").url == "file:///other.json");
  CHECK(join_url("file:///a/b/c.json", "../d.json#x").url == "file:///a/d.json");
  CHECK(join_url("file:///a/b/c.json", "../d.json#x").frag == "x");
  CHECK(join_url("https://example.com/s/root.json", "a.json").url ==
        "https://example.com/s/a.json");
  CHECK(join_url("https://example.com/s/root.json", "/x/./y/../z.json").url ==
        "https://example.com/x/z.json");
  CHECK(join_url("https://example.com/root.json", "https://other.org/t.json#/d").url ==
        "https://other.org/t.json");
  CHECK(join_url("https://example.com/s/root.json", "//cdn.org/t.json").url ==
        "https://cdn.org/t.json");
  CHECK(join_url("urn:example:root", "#/definitions/a").url == "urn:example:root");
  CHECK(join_url("urn:example:weather?=op=map", "#/definitions/a").url ==
        "urn:example:weather?=op=map");
  CHECK(join_url("file:///values.schema.json", "#/a%20b").frag == "/a b");
  CHECK_THROWS_WITH(join_url("file:///values.schema.json", "#%zz"),
                    "error in parsing \"#%zz\": invalid URL escape \"%zz\"");
}

TEST_CASE("schema set: the metaschemas are embedded, by http and https URL") {
  using ejob::render::helm::metaschemas::metaschema_text;
  CHECK(metaschema_text("http://json-schema.org/draft-07/schema").has_value());
  CHECK(metaschema_text("https://json-schema.org/draft/2020-12/meta/core").has_value());
  CHECK(metaschema_text("https://json-schema.org/schema") ==
        metaschema_text("https://json-schema.org/draft/2020-12/schema"));
  CHECK_FALSE(metaschema_text("http://json-schema.org/draft-03/schema").has_value());
  CHECK_FALSE(metaschema_text("https://example.com/draft-07/schema").has_value());
}

// Each text below is what jsonschema v6 (built from its sources) printed for the same input.
TEST_CASE("schema set: $ref to another file, relative to the referring document") {
  TempDir dir;
  const std::string defs =
      dir.write("defs.json", R"({"$defs": {"port": {"type": "integer", "maximum": 65535}}})");
  const std::string schema = R"({"properties": {"port": {"$ref": ")" + defs + R"(#/$defs/port"}}})";
  CHECK(problems(schema, R"({"port": 80})").empty());
  CHECK(problems(schema, R"({"port": 70000})") ==
        "- at '/port': maximum: got 70,000, want 65,535\n");
  CHECK(problems(R"({"$ref": "file:///nonexistent/ejob/x.json"})", "{}") ==
        "failing loading \"file:///nonexistent/ejob/x.json\": open /nonexistent/ejob/x.json: no "
        "such file or directory");
  const std::string broken = dir.write("broken.json", R"({"type": )");
  CHECK(problems(R"({"$ref": ")" + broken + "\"}", "{}") ==
        "failing loading \"" + broken + "\": unexpected EOF");
}

TEST_CASE("schema set: a loaded document is checked against its metaschema too") {
  TempDir dir;
  const std::string bad = dir.write("bad.json", R"({"type": "int"})");
  const std::string out = problems(R"({"$ref": ")" + bad + "\"}", "{}");
  CHECK(out.starts_with("\"" + bad +
                        "#\" is not valid against metaschema: jsonschema validation failed with "
                        "'https://json-schema.org/draft/2020-12/schema#'\n- at '': allOf failed"));
}

TEST_CASE("schema set: http(s) documents come through SchemaIo::fetch") {
  std::vector<std::string> asked;
  SchemaIo io;
  io.fetch = [&](const std::string& url) {
    asked.push_back(url);
    if (url.ends_with("/empty.json")) return std::string();
    if (url.ends_with("/missing.json"))
      throw std::runtime_error("HTTP request to " + url + " returned status 404 (Not Found)");
    return std::string(R"({"$defs": {"name": {"type": "string", "maxLength": 3}},
                          "properties": {"n": {"$ref": "#/$defs/name"}}})");
  };
  const std::string schema = R"({"properties": {"a": {"$ref": "https://example.com/s/x.json"},
    "b": {"$ref": "https://example.com/s/x.json#/$defs/name"}}})";
  CHECK(problems(schema, R"({"a": {"n": "abcd"}})", io) ==
        "- at '/a/n': maxLength: got 4, want 3\n");
  CHECK(asked == std::vector<std::string>{"https://example.com/s/x.json"});  // loaded once
  CHECK(problems(R"({"$ref": "http://example.com/missing.json"})", "{}", io) ==
        "failing loading \"http://example.com/missing.json\": HTTP request to "
        "http://example.com/missing.json returned status 404 (Not Found)");
  CHECK(problems(R"({"$ref": "https://example.com/empty.json"})", "{}", io) ==
        "failing loading \"https://example.com/empty.json\": EOF");
  CHECK(problems(R"({"$ref": "ftp://example.com/x.json"})", "{}", io) ==
        "failing loading \"ftp://example.com/x.json\": no URLLoader registered for "
        "\"ftp://example.com/x.json\"");
}

TEST_CASE("schema set: a urn: reference is permissive, with Helm's warning once per URN") {
  std::vector<std::string> lines;
  SchemaIo io;
  io.warn = [&](const std::string& line) { lines.push_back(line); };
  const std::string schema = R"({"properties": {"a": {"$ref": "urn:ejob:test:once"},
    "b": {"$ref": "urn:ejob:test:once"}, "c": {"type": "string"}}})";
  CHECK(problems(schema, R"({"a": 1, "b": 2, "c": 3})", io) ==
        "- at '/c': got number, want string\n");
  CHECK(problems(schema, R"({"a": 1})", io).empty());
  CHECK(lines == std::vector<std::string>{"jsonschema.go:192: WARNING: unresolved URN reference "
                                          "ignored; using permissive schema: urn:ejob:test:once"});
}

TEST_CASE("schema set: ids, anchors and their errors") {
  CHECK(problems(R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {"p": {"$id": "#port", "type": "integer"}},
    "properties": {"x": {"$ref": "#port"}}})",
                 R"({"x": "s"})") == "- at '/x': got string, want integer\n");
  CHECK(problems(R"({"$defs": {"a": {"$id": "http://e.com/a"}, "b": {"$id": "http://e.com/a"}}})",
                 "{}")
            .starts_with("duplicate id \"http://e.com/a\" in \"file:///values.schema.json\" at "));
  CHECK(problems(R"({"$id": "%zz"})", "{}") ==
        "error in parsing id at \"file:///values.schema.json#\"");
  CHECK(problems(R"({"$schema": "%zz"})", "{}") ==
        "invalid $schema in \"file:///values.schema.json#\": parse \"%zz\": invalid URL escape "
        "\"%zz\"");
  // v6 compiles a $defs entry only when something refers to it, and `then` only beside `if`
  CHECK(problems(R"({"$defs": {"a": {"$ref": "#/nowhere"}}, "then": {"$ref": "#/nowhere"}})", "{}")
            .empty());
  CHECK(problems(R"({"if": false, "then": {"$ref": "#/nowhere"}})", "{}").empty());
  CHECK(problems(R"({"properties": {"a": {"$ref": "#/properties/a~2"}}})", "{}") ==
        "invalid json-pointer \"file:///values.schema.json#/properties/a~2\"");
  CHECK(problems(R"({"$schema": "http://json-schema.org/draft-04/schema#",
    "patternProperties": {"(": {}}})",
                 "{}") ==
        "invalid regex \"(\" at \"file:///values.schema.json#/patternProperties\": error parsing "
        "regexp: missing closing ): `(`");
}

TEST_CASE("schema set: a $ref into a place that is no subschema makes it one, checked") {
  CHECK(problems(R"({"components": {"port": {"type": "integer", "minimum": 3}},
    "properties": {"p": {"$ref": "#/components/port"}}})",
                 R"({"p": 1})") == "- at '/p': minimum: got 1, want 3\n");
  CHECK(problems(R"({"components": {"port": {"minimum": "z"}},
    "properties": {"p": {"$ref": "#/components/port"}}})",
                 R"({"p": 1})") ==
        "\"file:///values.schema.json#/components/port\" is not valid against metaschema: "
        "jsonschema validation failed with 'https://json-schema.org/draft/2020-12/schema#'\n"
        "- at '': allOf failed\n  - at '/minimum': got string, want number");
}

TEST_CASE("schema set: $recursiveRef (2019-09) and $dynamicRef (2020-12) extend a tree") {
  const std::string strict2020 = R"({"$id": "https://example.com/strict-tree",
    "$dynamicAnchor": "node", "$ref": "tree", "unevaluatedProperties": false,
    "$defs": {"tree": {"$id": "tree", "$dynamicAnchor": "node", "type": "object",
      "properties": {"data": true, "children": {"type": "array",
        "items": {"$dynamicRef": "#node"}}}}}})";
  CHECK(problems(strict2020, R"({"children": [{"daat": 1}]})") ==
        "- at '/children/0/daat': false schema\n- at '/children': false schema\n");
  CHECK(problems(strict2020, R"({"children": [{"data": 1}]})").empty());
  const std::string strict2019 = R"({"$schema": "https://json-schema.org/draft/2019-09/schema",
    "$id": "https://example.com/strict-tree", "$recursiveAnchor": true, "$ref": "tree",
    "unevaluatedProperties": false,
    "$defs": {"tree": {"$id": "tree", "$recursiveAnchor": true, "type": "object",
      "properties": {"data": true, "children": {"type": "array",
        "items": {"$recursiveRef": "#"}}}}}})";
  CHECK(problems(strict2019, R"({"children": [{"daat": 1}]})") ==
        "- at '/children/0/daat': false schema\n- at '/children': false schema\n");
}

TEST_CASE("schema set: a schema that is not one JSON value reads as v6's decoder says") {
  CHECK(problems(R"({"a":)", "{}") == "unexpected EOF");
  CHECK(problems(R"({"a": 1} x)", "{}") == "invalid character after top-level value");
  CHECK(problems(R"({"a": 1,})", "{}") ==
        "invalid character '}' looking for beginning of object key string");
  // v6 panics on a schema that is neither an object nor a boolean; Helm recovers it
  for (const char* schema : {"-0.0", R"("x")", "[]", "null"})
    CHECK(problems(schema, "{}") ==
          "unable to validate schema: runtime error: invalid memory address or nil pointer "
          "dereference");
}
