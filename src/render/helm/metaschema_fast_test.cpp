// The walk of metaschema_fast.hpp must never call valid what the validator refuses: every
// schema below gets the same answer from schema_problems with the walk and without it — the
// JSON Schema Test Suite's schemas, and every keyword of a schema that uses them all, of
// drafts 7, 2019-09 and 2020-12, set to each of a set of wrong and right values.

#include "src/render/helm/metaschema_fast.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "src/render/go/json.hpp"
#include "src/render/helm/archive.hpp"
#include "src/render/helm/schema.hpp"

namespace ejob::render::helm {
namespace {

using go::Value;

Value json(std::string_view text) { return go::json::unmarshal(text).value; }

/// schema_problems of a schema against null, with the walk or without it.
std::string problems(const std::string& schema, bool walk) {
  set_metaschema_fast_path(walk);
  SchemaIo io;
  io.fetch = [](const std::string& url) -> std::string {
    throw std::runtime_error("HTTP request to " + url + " returned status 404 (Not Found)");
  };
  std::string out = schema_problems(schema, Value(), io);
  set_metaschema_fast_path(true);
  return out;
}

/// Whether the walk calls the schema valid under `draft`; the answers with the walk and
/// without it must be the same either way.
bool walked_and_agrees(const std::string& schema, int draft) {
  INFO("schema: " << schema);
  CHECK(problems(schema, true) == problems(schema, false));
  return surely_valid_against_metaschema(json(schema), draft);
}

const char* const k_values[] = {
    "0",
    "-1",
    "1.5",
    "2",
    "-0.5",
    "1e3",
    "\"x\"",
    "\"#a\"",
    "\"a#\"",
    "\"http://e.com/x#f\"",
    "\"(\"",
    "\"a b\"",
    "\"\\u00e9\"",
    "\"\"",
    "true",
    "false",
    "null",
    "[]",
    "[\"string\",\"string\"]",
    "[\"string\",\"integer\"]",
    "[\"a\",\"a\"]",
    "[\"a\",\"b\"]",
    "[1,1]",
    "[1,1.0]",
    "[1,\"1\"]",
    "[{}]",
    "[true]",
    "[{},5]",
    "{}",
    "{\"a\":1}",
    "{\"a\":{}}",
    "{\"a\":[]}",
    "{\"a\":[\"x\",\"x\"]}",
    "{\"(\":{}}",
    "{\"type\":5}",
    "{\"a\":{\"type\":\"nope\"}}",
    "[{\"type\":5}]",
    "[{\"minLength\":-1}]",
    "{\"a\":{\"minLength\":-1}}",
    "{\"a\":[\"x\",1]}",
};

/// Every keyword either draft knows, with a value its metaschema accepts.
const char* const k_full_schema = R"({
  "$id": "http://e.com/root", "$comment": "c", "$anchor": "a1", "$dynamicAnchor": "d",
  "$defs": {"x": {"type": "string"}}, "definitions": {"y": {"type": "integer"}},
  "title": "t", "description": "d", "default": 1, "deprecated": false, "readOnly": false,
  "writeOnly": false, "examples": [1], "type": ["object", "null"], "enum": [1, "a"],
  "const": 1, "multipleOf": 2, "maximum": 9, "exclusiveMaximum": 10, "minimum": 0,
  "exclusiveMinimum": -1, "maxLength": 3, "minLength": 0, "pattern": "^a+$",
  "maxItems": 4, "minItems": 1, "uniqueItems": true, "maxContains": 2, "minContains": 1,
  "maxProperties": 5, "minProperties": 0, "required": ["a"], "dependentRequired": {"a": ["b"]},
  "prefixItems": [{}], "items": {"type": "string"}, "additionalItems": true,
  "contains": {"const": 1}, "additionalProperties": false,
  "properties": {"a": {"type": "string", "format": "email"}, "b": true},
  "patternProperties": {"^x-": {}}, "dependentSchemas": {"a": {}},
  "dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "propertyNames": {"maxLength": 9},
  "if": {"required": ["a"]}, "then": {}, "else": {}, "allOf": [{}], "anyOf": [{}, true],
  "oneOf": [{}], "not": false, "unevaluatedItems": {}, "unevaluatedProperties": {},
  "contentEncoding": "base64", "contentMediaType": "text/plain", "contentSchema": {},
  "format": "email", "$recursiveAnchor": "r", "$recursiveRef": "#", "$ref": "#/$defs/x",
  "$dynamicRef": "#d", "x-custom": [1, 2]
})";

/// The schema with `path` (keys from the root) set to `value`.
std::string with(const Value& base, const std::vector<std::string>& path, const Value& value) {
  Value copy = base.deep_copy();
  Value* at = &copy;
  for (size_t i = 0; i + 1 < path.size(); ++i) at = &at->mutable_map()[path[i]];
  at->mutable_map()[path.back()] = value;
  return go::json::marshal(copy);
}

/// The key paths of every member of every object in `v`.
void member_paths(const Value& v, std::vector<std::string>& at,
                  std::vector<std::vector<std::string>>& out) {
  if (!v.is_map()) return;
  for (const auto& [key, sub] : v.as_map()) {
    at.push_back(key);
    out.push_back(at);
    member_paths(sub, at, out);
    at.pop_back();
  }
}

/// The full schema under a dialect (2019-09's $recursiveAnchor is a boolean, 2020-12's a name).
std::string drafted(const char* dialect, int draft) {
  Value schema = json(k_full_schema);
  schema.mutable_map()["$schema"] = Value::string(dialect);
  if (draft == 2019) schema.mutable_map()["$recursiveAnchor"] = Value::boolean(true);
  return go::json::marshal(schema);
}

}  // namespace

TEST_CASE("metaschema walk: the test suite's schemas get the validator's answers") {
  std::ifstream in(std::string(EJOB_HELM_TESTDATA) + "/jsonschema_suite.json.gz", std::ios::binary);
  std::ostringstream gz;
  gz << in.rdbuf();
  const Value suite = json(gunzip(gz.str()));
  size_t walked = 0;
  for (const Value& group : suite.as_map().find("groups")->second.as_list()) {
    const std::string& schema = group.as_map().find("schema")->second.as_string();
    const bool walked_7 = walked_and_agrees(schema, 7);
    if (walked_7 || surely_valid_against_metaschema(json(schema), 2019) ||
        surely_valid_against_metaschema(json(schema), 2020))
      ++walked;
  }
  CHECK(walked > 500);  // most of the suite's schemas are valid and walked
}

TEST_CASE(
    "metaschema walk: every keyword set to right and wrong values, drafts 7, 2019-09, 2020-12") {
  for (const auto& [dialect, draft] :
       {std::pair{"http://json-schema.org/draft-07/schema#", 7},
        std::pair{"https://json-schema.org/draft/2019-09/schema", 2019},
        std::pair{"https://json-schema.org/draft/2020-12/schema", 2020}}) {
    const Value base = json(drafted(dialect, draft));
    CHECK(walked_and_agrees(go::json::marshal(base), draft));
    std::vector<std::vector<std::string>> paths;
    std::vector<std::string> at;
    member_paths(base, at, paths);
    size_t walked = 0;
    size_t refused = 0;
    for (const auto& path : paths) {
      if (path == std::vector<std::string>{"$schema"}) continue;
      for (const char* value : k_values)
        (walked_and_agrees(with(base, path, json(value)), draft) ? walked : refused)++;
    }
    CHECK(walked > 100);
    CHECK(refused > 100);
  }
}

TEST_CASE("metaschema walk: drafts 7, 2019-09 and 2020-12 only, and not $vocabulary") {
  CHECK(surely_valid_against_metaschema(json(R"({"type": "string"})"), 7));
  CHECK(surely_valid_against_metaschema(json("true"), 2020));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"type": "string"})"), 4));
  CHECK(surely_valid_against_metaschema(json(R"({"type": "string"})"), 2019));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"type": "string"})"), 6));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"$anchor": "_a"})"), 2019));
  CHECK(surely_valid_against_metaschema(json(R"({"$anchor": "_a"})"), 2020));
  CHECK(surely_valid_against_metaschema(json(R"({"$anchor": "a:b"})"), 2019));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"$anchor": "a:b"})"), 2020));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"$vocabulary": {}})"), 2020));
  CHECK(surely_valid_against_metaschema(json(R"({"$vocabulary": {}})"), 7));  // not a keyword
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"minLength": -1})"), 7));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"pattern": "("})"), 2020));
  CHECK_FALSE(surely_valid_against_metaschema(json(R"({"enum": []})"), 7));
  CHECK(surely_valid_against_metaschema(json(R"({"enum": []})"), 2020));
}

}  // namespace ejob::render::helm
