// Expected outputs in testdata/json_cases.inc were produced by Go 1.19's encoding/json
// (testdata/gen_json.py).
#include "src/render/go/json.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "src/render/go/error.hpp"
#include "src/render/go/fmt.hpp"

namespace ejob::render::go {
namespace {

struct MarshalCase {
  Value value;
  std::string marshal;  // json.Marshal, or "ERR:" + error
  std::string raw;      // Encoder with SetEscapeHTML(false), newline trimmed
};
struct IndentCase {
  Value value;
  std::string want;
};
struct UnmarshalCase {
  std::string text;
  std::string go_syntax;  // %#v of the value decoded into interface{}
  std::string error_any;
  std::string error_map;
  std::string error_slice;
};

#include "src/render/go/testdata/json_cases.inc"

std::string marshal_or_error(const Value& v, json::HtmlEscape html) {
  try {
    return json::marshal(v, html);
  } catch (const FuncError& e) {
    return "ERR:" + e.message;
  }
}

TEST_CASE("json: marshal matches encoding/json") {
  for (const auto& c : k_marshal_cases) {
    INFO(c.marshal);
    CHECK(marshal_or_error(c.value, json::HtmlEscape::Yes) == c.marshal);
    CHECK(marshal_or_error(c.value, json::HtmlEscape::No) == c.raw);
  }
}

TEST_CASE("json: marshal_indent matches json.MarshalIndent") {
  for (const auto& c : k_indent_cases) CHECK(json::marshal_indent(c.value, "", "  ") == c.want);
}

TEST_CASE("json: unmarshal decodes and fails like json.Unmarshal") {
  for (const auto& c : k_unmarshal_cases) {
    INFO(c.text);
    json::Decoded any = json::unmarshal(c.text);
    Value printed[] = {any.value};
    CHECK(sprintf("%#v", printed) == c.go_syntax);
    CHECK(any.error == c.error_any);
    CHECK(json::unmarshal(c.text, json::Target::Map).error == c.error_map);
    CHECK(json::unmarshal(c.text, json::Target::Slice).error == c.error_slice);
  }
}

TEST_CASE("json: NaN and infinities are unsupported values") {
  CHECK(marshal_or_error(Value::float64(std::numeric_limits<double>::quiet_NaN()),
                         json::HtmlEscape::Yes) == k_marshal_errors[0]);
  Value inf = Value::list(List{Value::float64(-std::numeric_limits<double>::infinity())});
  CHECK(marshal_or_error(inf, json::HtmlEscape::Yes) == k_marshal_errors[1]);
}

TEST_CASE("json: backspace and form feed use short escapes as Go >= 1.22 does") {
  // Go 1.22 changed \u0008/\u000c to \b/\f (encoding/json release note); Helm is built with it.
  CHECK(json::marshal(Value::string("a\bb\fc")) == R"("a\bb\fc")");
}

TEST_CASE("json: a failed fromJson-style decode leaves an empty map") {
  json::Decoded d = json::unmarshal("[1]", json::Target::Map);
  CHECK(d.value.is_map());
  CHECK(d.value.as_map().empty());
}

}  // namespace
}  // namespace ejob::render::go
