#include "src/render/text_template/parse.hpp"

#include <catch2/catch.hpp>

namespace ejob::render::text_template {
namespace {

const FuncMap& funcs() {
  static const FuncMap m = [] {
    FuncMap f;
    register_builtins(f);
    return f;
  }();
  return m;
}

/// Go's parse error text for `text` parsed as template "x", or "ok".
std::string parse_error(std::string_view text) {
  try {
    parse_source(std::make_shared<Source>(Source{"x", std::string(text)}), funcs());
  } catch (const ParseError& e) {
    return e.message;
  }
  return "ok";
}

}  // namespace

// Every expected message below was printed by Go 1.19's text/template for the same input.
TEST_CASE("parse: Go's error messages and line numbers") {
  CHECK(parse_error("{{ 1 2 }") == "template: x:1: unexpected \"}\" in operand");
  CHECK(parse_error("a\n{{ 3x }}") == "template: x:2: bad number syntax: \"3x\"");
  CHECK(parse_error("a\n{{ if .x\n}}\nb{{ end ") == "template: x:4: unclosed action");
  CHECK(parse_error("{{/* abc */ }}") == "template: x:1: comment ends before closing delimiter");
  CHECK(parse_error("{{ if }}{{end}}") == "template: x:1: missing value for if");
  CHECK(parse_error("{{ if .x }}") == "template: x:1: unexpected EOF");
  CHECK(parse_error("{{ end }}") == "template: x:1: unexpected {{end}}");
  CHECK(parse_error("{{ range $i, $j, $k := .x }}{{end}}") ==
        "template: x:1: too many declarations in range");
  CHECK(parse_error("{{ $y }}") == "template: x:1: undefined variable \"$y\"");
  CHECK(parse_error("{{ nope 1 }}") == "template: x:1: function \"nope\" not defined");
  CHECK(parse_error("{{ .x | 3 }}") == "template: x:1: non executable command in pipeline stage 2");
  CHECK(parse_error("{{ define \"a\" }}x{{ end }}{{ define \"a\" }}y{{ end }}") ==
        "template: x:1: template: multiple definition of template \"a\"");
  CHECK(parse_error("{{ break }}") == "template: x:1: {{break}} outside {{range}}");
  CHECK(parse_error("{{ template .x }}") == "template: x:1: unexpected \".x\" in template clause");
  CHECK(parse_error("{{ \"x\".y }}") == "template: x:1: unexpected . after term \"\\\"x\\\"\"");
  CHECK(parse_error("{{ 08 }}") == "template: x:1: integer overflow: \"08\"");
  CHECK(parse_error("{{ ( ) }}") == "template: x:1: missing value for parenthesized pipeline");
  CHECK(parse_error("{{ range .x }}{{ else if .y }}{{ end }}") ==
        "template: x:1: unexpected <if> in input");
  CHECK(parse_error("{{ if .x }}{{ else }}{{ else }}{{ end }}") ==
        "template: x:1: expected end; found {{else}}");
  CHECK(parse_error("{{ $x := 1 }}{{ if true }}{{ $y := 2 }}{{ end }}{{ $y }}") ==
        "template: x:1: undefined variable \"$y\"");
  CHECK(parse_error("{{ \"ab\\q\" }}") == "template: x:1: invalid syntax");
  CHECK(parse_error("{{ 'ab' }}") == "template: x:1: malformed character constant: 'ab'");
  CHECK(parse_error("{{ block \"b\" . }}{{ else }}{{ end }}") ==
        "template: x:1: unexpected {{else}} in block clause");
}

TEST_CASE("parse: defines become their own trees; empty redefinitions do not replace") {
  auto trees = parse_source(std::make_shared<Source>(Source{
                                "f", "{{ define \"a\" }}A{{ end }}{{ define \"a\" }} {{ end }}"}),
                            funcs());
  REQUIRE(trees.size() == 2);
  CHECK(node_string(*trees.at("a")->root) == "A");
  CHECK(is_empty_tree(trees.at("f")->root.get()));
}

TEST_CASE("parse: node strings are Go's") {
  auto trees = parse_source(
      std::make_shared<Source>(Source{
          "f",
          "{{ $x := (index .a 1).b | printf \"%v\" }}{{ if $x }}{{ template \"t\" . }}{{ end }}"}),
      funcs());
  CHECK(node_string(*trees.at("f")->root) ==
        "{{$x := (index .a 1).b | printf \"%v\"}}{{if $x}}{{template \"t\" .}}{{end}}");
}

// Go 1.26's parse.go bounds nested parentheses at maxStackDepth (10000).
TEST_CASE("parse: more than 10000 nested parentheses are an error, as in Go 1.26") {
  auto nested = [](int n) {
    return "{{ " + std::string(n, '(') + "1" + std::string(n, ')') + " }}";
  };
  CHECK(parse_error(nested(10000)) == "ok");
  CHECK(parse_error(nested(10001)) == "template: x:1: max expression depth exceeded");
}

}  // namespace ejob::render::text_template
