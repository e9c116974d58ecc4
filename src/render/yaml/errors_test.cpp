#include "src/render/yaml/errors.hpp"

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

TEST_CASE("yaml errors: a flow indicator where a block node starts (Go-verified)") {
  CHECK(go_text("a: 1\nb: ,") == "line 1: did not find expected node content");
  CHECK(go_text("x:\n  ,a: 1") == "line 1: did not find expected node content");
  CHECK(go_text("- a\n- ,b") == "line 1: did not find expected node content");
  CHECK(go_text("a: ]") == "did not find expected node content");
  CHECK(go_text("- ]") == "did not find expected node content");
  CHECK(go_text("a: 1\n]: 2") == "line 1: did not find expected key");
  int line0 = -1;
  CHECK(ejob::render::yaml::go_directive_error(",a", line0) ==
        "did not find expected node content");
  CHECK(ejob::render::yaml::go_directive_error("\n  # c\n  ]", line0) ==
        "line 2: did not find expected node content");
}

TEST_CASE("yaml errors: directives go-yaml's scanner refuses (Go-verified)") {
  using ejob::render::yaml::go_directive_error;
  int line0 = -1;
  CHECK(go_directive_error("%x", line0) == "found unknown directive name");
  CHECK(line0 == 0);
  CHECK(go_directive_error("\n\n%x", line0) == "line 3: found unknown directive name");
  CHECK(go_directive_error("# c\n%", line0) == "line 2: could not find expected directive name");
  CHECK(go_directive_error("%x!\n", line0) == "found unexpected non-alphabetical character");
  CHECK(go_directive_error("a: 1\n%x", line0) == "line 2: found unknown directive name");
  CHECK(go_directive_error("%YAML 1.1\n---\na: 1", line0).empty());
  CHECK(go_directive_error("a: b\n---\n%x", line0).empty());  // only the first document
  CHECK(go_directive_error("a: '\n%x'", line0).empty());      // inside a quoted scalar
}

TEST_CASE("yaml errors: go-yaml's reader refuses control characters and bad UTF-8") {
  using ejob::render::yaml::go_reader_error;
  size_t at = 0;
  CHECK(go_reader_error("a: b\tc\r\n\xC2\x85 \xC2\xA0 \xF0\x9F\x98\x80", at).empty());
  CHECK(go_reader_error("a: \x01", at) == "control characters are not allowed");
  CHECK(at == 3);
  CHECK(go_reader_error("a: \x7F", at) == "control characters are not allowed");
  CHECK(go_reader_error("a: \xC2\x80", at) == "control characters are not allowed");
  CHECK(go_reader_error("a: \xEF\xBF\xBE", at) == "control characters are not allowed");
  CHECK(go_reader_error("\xFF", at) == "invalid leading UTF-8 octet");
  CHECK(go_reader_error("a: \xC2", at) == "incomplete UTF-8 octet sequence");
  CHECK(go_reader_error("a: \xC2x", at) == "invalid trailing UTF-8 octet");
  CHECK(go_reader_error("a: \xC0\x80", at) == "invalid length of a UTF-8 sequence");
  CHECK(go_reader_error("a: \xED\xA0\x80", at) == "invalid Unicode character");
}
