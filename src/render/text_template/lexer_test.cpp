#include "src/render/text_template/lexer.hpp"

#include <catch2/catch.hpp>

namespace ejob::render::text_template {
namespace {

/// "TYPE:val" of every token, as a compact trace.
std::string trace(std::string_view text) {
  Lexed l;
  lex(text, l);
  std::string out;
  for (const Token& t : l.tokens) {
    if (!out.empty()) out += ' ';
    out += std::to_string(static_cast<int>(t.type)) + ":" + std::string(t.val) + "@" +
           std::to_string(t.line);
  }
  return out;
}

}  // namespace

TEST_CASE("lexer: trim markers remove the white space of the adjacent text") {
  // Text, LeftDelim, Number, RightDelim, Text, EOF (Go's item types 20, 11, 13, 16, 20, 8).
  CHECK(trace("a \n {{- 3 -}} \n b") == "20:a@1 11:{{@2 13:3@2 16:}}@2 20:b@3 8:@3");
  // `{{-3}}` is the number -3: the marker needs a space after it.
  CHECK(trace("{{-3}}") == "11:{{@1 13:-3@1 16:}}@1 8:@1");
}

TEST_CASE("lexer: comments produce nothing and may span lines") {
  CHECK(trace("x{{/* a\nb */}}y") == "20:x@1 20:y@2 8:@2");
  CHECK(trace("x {{- /* c */ -}} y") == "20:x@1 20:y@1 8:@1");
}

TEST_CASE("lexer: an error is the last token, with Go's message") {
  Lexed l;
  lex("{{ a#b }}", l);
  REQUIRE(l.tokens.back().type == Tok::Error);
  CHECK(l.tokens.back().val == "bad character U+0023 '#'");
  lex("{{ 3x }}", l);
  CHECK(l.tokens.back().val == "bad number syntax: \"3x\"");
  lex("{{ \"abc }}", l);
  CHECK(l.tokens.back().val == "unterminated quoted string");
  lex("{{ ) }}", l);
  CHECK(l.tokens.back().val == "unexpected right paren");  // Go 1.24's wording
}

TEST_CASE("lexer: token_string matches Go's item.String") {
  Lexed l;
  lex("{{ \"a long string value\" if . }}", l);
  CHECK(token_string(l.tokens[2]) == "\"\\\"a long st\"...");
  CHECK(token_string(l.tokens[4]) == "<if>");
  CHECK(token_string(l.tokens[6]) == "<.>");
  CHECK(token_string(l.tokens.back()) == "EOF");
}

}  // namespace ejob::render::text_template
