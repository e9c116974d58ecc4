#pragma once
/// The lexer of Go's text/template (text/template/parse/lex.go), token for token: delimiters
/// `{{` `}}`, trim markers `{{- ` / ` -}}`, comments, and every item kind inside actions. The
/// whole input is scanned up front into a vector; a lexing error becomes the last token (type
/// Error, its value the message), exactly where Go's lexer would have stopped, so the parser
/// meets it at the same point as Go's parser does.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::render::text_template {

/// Go's itemType values (same order; keywords after Keyword).
enum class Tok : uint8_t {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  Eof,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  Keyword,  ///< delimiter only: every type after it is a keyword
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
};

/// One lexical item: type, byte offset in the input, text, and line at its start.
struct Token {
  Tok type = Tok::Eof;
  uint32_t pos = 0;
  int line = 1;
  std::string_view val;  ///< view into the input (or the error message, see Lexed)
};

/// The items of one input. Views point into the input text and into `error`.
struct Lexed {
  std::vector<Token> tokens;
  std::string error;  ///< message of the final Error token, if any
};

/// Scans `text` completely. The result's views stay valid while `text` and the result live
/// (the Lexed must not be copied: the error token views its own `error` member).
void lex(std::string_view text, Lexed& out);

/// Go's item.String(): `EOF`, the error text, `<keyword>`, or the quoted value (values longer
/// than 10 bytes are quoted to 10 runes and followed by `...`).
std::string token_string(const Token& t);

}  // namespace ejob::render::text_template
