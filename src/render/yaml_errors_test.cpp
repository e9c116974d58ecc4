#include "ejob/render/yaml_errors.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

using ejob::render::yaml::go_syntax_message;

namespace {

// What go-yaml v2 says (checked with Go) for what yaml-cpp rejects.
std::string go_text(const std::string& text) {
  try {
    YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return go_syntax_message(text, e.msg, e.mark.line, e.mark.pos);
  }
  return "accepted";
}

}  // namespace

TEST_CASE("yaml_errors: go-yaml v2's texts and lines for syntax errors") {
  CHECK(go_text("a: [") == "line 1: did not find expected node content");
  CHECK(go_text("a: {") == "line 1: did not find expected node content");
  CHECK(go_text("a: [1,") == "line 1: did not find expected node content");
  CHECK(go_text("a: {b:") == "line 1: did not find expected node content");
  CHECK(go_text("a: [1, # c\n") == "line 1: did not find expected node content");
  CHECK(go_text("a: [\n\n") == "line 2: did not find expected node content");
  CHECK(go_text("a: [1, 2") == "line 1: did not find expected ',' or ']'");
  CHECK(go_text("a: {x: 1") == "line 1: did not find expected ',' or '}'");
  CHECK(go_text("a: [1, 2\nb: 3\n") == "line 1: did not find expected ',' or ']'");
  CHECK(go_text("a: [1, 2 # x\n  \n") == "line 2: did not find expected ',' or ']'");
  CHECK(go_text("a:\n  b: [1,\n  c: 2") == "line 3: did not find expected ',' or ']'");
  CHECK(go_text("a: b: c") == "mapping values are not allowed in this context");
  CHECK(go_text("a: 1\n b: 2") == "line 2: mapping values are not allowed in this context");
  CHECK(go_text("a:\n  b\n  c: 1") == "line 3: mapping values are not allowed in this context");
  CHECK(go_text("a: 1\nb\nc: 2") == "line 3: could not find expected ':'");
  CHECK(go_text("a:\n  x: 1\n  b\n  c: 1") == "line 4: could not find expected ':'");
  CHECK(go_text("a:\n  b: 1\n c: 2") == "line 2: did not find expected key");
  CHECK(go_text("a: @x") == "found character that cannot start any token");
  CHECK(go_text("x:\n\t- 1") == "line 2: block sequence entries are not allowed in this context");
  CHECK(go_text("key: 'abc") == "found unexpected end of stream");
}
