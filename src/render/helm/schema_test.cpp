#include "src/render/helm/schema.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "src/render/go/json.hpp"

namespace {

using ejob::render::go::Value;

/// The problems of a JSON value against a JSON schema, as Helm's
/// JSONSchemaValidationError.Error() prints them.
std::string problems(const std::string& schema, const std::string& values) {
  return ejob::render::helm::schema_problems(schema,
                                             ejob::render::go::json::unmarshal(values).value);
}

}  // namespace

// Helm v3.21.4 pkg/chartutil/jsonschema_test.go, TestValidateAgainstSingleSchemaNegative:
// required (at '') comes before the properties' problems.
TEST_CASE("schema: required, then the properties (Helm's own negative test)") {
  const std::string schema = R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object", "required": ["firstname", "employmentInfo"],
    "properties": {"firstname": {"type": "string"}, "age": {"type": "integer", "minimum": 0}}})";
  CHECK(problems(schema, R"({"firstname": "John", "age": -5})") ==
        "- at '': missing property 'employmentInfo'\n- at '/age': minimum: got -5, want 0\n");
}

// TestValidateAgainstSchema2020Negative: a cause is indented under the problem it explains.
TEST_CASE("schema: contains lists the failing items under it") {
  const std::string schema =
      R"({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
          "properties": {"data": {"type": "array", "contains": {"type": "string"}}},
          "required": ["data"]})";
  CHECK(
      problems(schema, R"({"data": [12]})") ==
      "- at '/data': no items match contains schema\n  - at '/data/0': got number, want string\n");
  CHECK(problems(schema, R"({"data": ["a", 12]})").empty());
}

// TestValidateAgainstSchema2020: unevaluatedItems sees the items contains matched (2020-12).
TEST_CASE("schema: unevaluatedItems skips what prefixItems, items and contains evaluated") {
  const std::string schema =
      R"({"properties": {"data": {"type": "array", "contains": {"type": "string"},
          "unevaluatedItems": {"type": "number"}}}})";
  CHECK(problems(schema, R"({"data": ["hello", 12]})").empty());
  CHECK(problems(schema, R"({"data": ["hello", true]})") ==
        "- at '/data/1': got boolean, want number\n");
  CHECK(problems(R"({"prefixItems": [{}], "unevaluatedItems": false})", "[1, 2]") ==
        "- at '/1': false schema\n");
  CHECK(problems(R"({"prefixItems": [{}], "items": {}, "unevaluatedItems": false})", "[1, 2]")
            .empty());
}

// The texts of v6's kind/kind.go.
TEST_CASE("schema: v6's message for each keyword") {
  CHECK(problems(R"({"type": ["string", "integer", "null"]})", "1.5") ==
        "- at '': got number, want null or integer or string\n");
  CHECK(problems(R"({"type": "integer"})", "3").empty());
  CHECK(problems(R"({"enum": ["a", 1, null]})", "2") ==
        "- at '': value must be one of 'a', 1, <nil>\n");
  CHECK(problems(R"({"enum": [[1]]})", "2") == "- at '': enum failed\n");
  CHECK(problems(R"({"const": "it's"})", "2") == "- at '': value must be 'it\\'s'\n");
  CHECK(problems(R"({"const": {"a": 1}})", "2") == "- at '': const failed\n");
  CHECK(problems(R"({"minLength": 2, "pattern": "^x"})", R"("a")") ==
        "- at '': minLength: got 1, want 2\n- at '': 'a' does not match pattern '^x'\n");
  CHECK(problems(R"({"exclusiveMaximum": 3, "multipleOf": 2})", "3") ==
        "- at '': exclusiveMaximum: got 3, want 3\n- at '': multipleOf: got 3, want 2\n");
  CHECK(problems(R"({"maximum": 1000000})", "2000000") ==
        "- at '': maximum: got 2\u00d710\u2070\u2076, want 1\u00d710\u2070\u2076\n");
  CHECK(problems(R"({"minItems": 3, "uniqueItems": true})", "[1, 1.0]") ==
        "- at '': minItems: got 2, want 3\n- at '': items at 0 and 1 are equal\n");
  CHECK(problems(R"({"uniqueItems": true})", "[1, 2, 1.0]") ==
        "- at '': items at 0 and 2 are equal\n");
  CHECK(problems(R"({"required": ["a", "b"], "maxProperties": 0})", R"({"c": 1})") ==
        "- at '': maxProperties: got 1, want 0\n- at '': missing properties 'a', 'b'\n");
  CHECK(problems(R"({"additionalProperties": false})", R"({"b": 1, "a": 2})") ==
        "- at '': additional properties 'a', 'b' not allowed\n");
  CHECK(problems("false", "1") == "- at '': false schema\n");
}

// v6's Validate() unfolds the group it gets, even when that is the only problem's; below a
// root with several problems a group is `validation failed` over its members.
TEST_CASE("schema: several problems of one value below the root are grouped") {
  const std::string schema = R"({"properties": {"s": {"minLength": 2, "pattern": "^x"}}})";
  CHECK(problems(schema, R"({"s": "a"})") ==
        "- at '/s': minLength: got 1, want 2\n- at '/s': 'a' does not match pattern '^x'\n");
  CHECK(problems(R"({"required": ["r"], )" + schema.substr(1), R"({"s": "a"})") ==
        "- at '': missing property 'r'\n- at '/s': validation failed\n"
        "  - at '/s': minLength: got 1, want 2\n  - at '/s': 'a' does not match pattern '^x'\n");
}

TEST_CASE("schema: an enum, const or type failure is the value's only problem") {
  CHECK(problems(R"({"maximum": 3, "enum": [1, 2]})", "5") ==
        "- at '': value must be one of 1, 2\n");
  CHECK(problems(R"({"type": "string", "minLength": 3})", "5") ==
        "- at '': got number, want string\n");
}

TEST_CASE("schema: allOf, anyOf, oneOf, not and if/then/else") {
  CHECK(problems(R"({"allOf": [{"minimum": 10}, {"maximum": 0}, {}]})", "5") ==
        "- at '': allOf failed\n  - at '': minimum: got 5, want 10\n"
        "  - at '': maximum: got 5, want 0\n");
  CHECK(problems(R"({"anyOf": [{"type": "string"}, {"minimum": 10}]})", "5") ==
        "- at '': anyOf failed\n  - at '': got number, want string\n"
        "  - at '': minimum: got 5, want 10\n");
  CHECK(problems(R"({"oneOf": [{"type": "string"}, {"minimum": 10}]})", "5") ==
        "- at '': oneOf failed, none matched\n  - at '': got number, want string\n"
        "  - at '': minimum: got 5, want 10\n");
  CHECK(problems(R"({"oneOf": [{}, {"type": "string"}, {"minimum": 1}]})", "5") ==
        "- at '': oneOf failed, subschemas 0, 2 matched\n");
  CHECK(problems(R"({"not": {"type": "number"}})", "5") == "- at '': not failed\n");
  const std::string cond = R"({"if": {"properties": {"a": {"const": 1}}},
    "then": {"required": ["b"]}, "else": {"required": ["c"]}})";
  CHECK(problems(cond, R"({"a": 1})") == "- at '': missing property 'b'\n");
  CHECK(problems(cond, R"({"a": 2})") == "- at '': missing property 'c'\n");
}

TEST_CASE("schema: a $ref with one problem is not printed, with several it is") {
  const std::string defs = R"({"$defs": {"port": {"type": "integer", "minimum": 1,
    "multipleOf": 2}}, "properties": {"p": {"$ref": "#/$defs/port"}}})";
  CHECK(problems(defs, R"({"p": "x"})") == "- at '/p': got string, want integer\n");
  CHECK(problems(defs, R"({"p": -1})") ==
        "- at '/p': validation failed\n  - at '/p': minimum: got -1, want 1\n"
        "  - at '/p': multipleOf: got -1, want 2\n");
}

// kind.RefCycle, as jsonschema v6 prints it (checked with v6 itself, Helm's validator).
TEST_CASE("schema: a $ref cycle on one value is reported, a recursive schema is not") {
  CHECK(problems(R"({"$ref": "#"})", "1") ==
        "- at '': both /$ref and  resolve to \"file:///values.schema.json#\" causing reference "
        "cycle\n");
  CHECK(problems(R"({"$defs": {"x": {"$ref": "#/$defs/y"}, "y": {"$ref": "#/$defs/x"}},
                     "$ref": "#/$defs/x"})",
                 "{}") ==
        "- at '': both /$ref/$ref/$ref and /$ref resolve to "
        "\"file:///values.schema.json#/$defs/x\" causing reference cycle\n");
  const std::string tree = R"({"properties": {"n": {"type": "integer"}, "kids": {"items":
    {"$ref": "#"}}}})";
  CHECK(problems(tree, R"({"kids": [{"kids": [{"n": "x"}]}]})") ==
        "- at '/kids/0/kids/0/n': got string, want integer\n");
}

TEST_CASE("schema: locations are JSON pointers; propertyNames reports at ''") {
  CHECK(problems(R"({"properties": {"a/b": {"items": {"type": "string"}}}})",
                 R"({"a/b": ["x", 1]})") == "- at '/a~1b/1': got number, want string\n");
  CHECK(problems(R"({"properties": {"m": {"propertyNames": {"pattern": "^[a-z]+$"}}}})",
                 R"({"m": {"Bad": 1}})") ==
        "- at '': invalid propertyName 'Bad'\n  - at '': 'Bad' does not match pattern "
        "'^[a-z]+$'\n");
}

TEST_CASE("schema: 2020-12 keywords (prefixItems, dependentRequired, unevaluatedProperties)") {
  CHECK(
      problems(R"({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}})",
               R"([1, "x", 2])") ==
      "- at '/0': got number, want string\n- at '/0': got string, want integer\n");  // v6: arr[1:]
  CHECK(problems(R"({"dependentRequired": {"tls": ["cert", "key"]}})", R"({"tls": true})") ==
        "- at '': properties 'cert', 'key' required, if 'tls' exists\n");
  CHECK(problems(R"({"dependencies": {"tls": ["cert"]}})", R"({"tls": true})") ==
        "- at '': properties 'cert' required, if 'tls' exists\n");
  const std::string closed = R"({"properties": {"a": {}}, "allOf": [{"properties": {"b": {}}}],
    "unevaluatedProperties": false})";
  CHECK(problems(closed, R"({"a": 1, "b": 2})").empty());
  CHECK(problems(closed, R"({"a": 1, "c": 2})") == "- at '/c': false schema\n");
  // draft 7 knows neither keyword
  CHECK(problems(R"({"$schema": "http://json-schema.org/draft-07/schema#",
    "dependentRequired": {"a": ["b"]}, "unevaluatedProperties": false})",
                 R"({"a": 1})")
            .empty());
}
