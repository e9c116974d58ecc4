#include "src/render/text_template/lexer.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "src/render/go/fmt.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/go/unicode.hpp"

namespace ejob::render::text_template {

using go::go_quote;

namespace {

constexpr std::string_view k_left = "{{";
constexpr std::string_view k_right = "}}";
constexpr std::string_view k_left_comment = "/*";
constexpr std::string_view k_right_comment = "*/";
constexpr uint32_t k_trim_len = 2;  // marker plus the space before or after it
constexpr char32_t k_eof = 0xFFFFFFFF;

bool is_space(char32_t r) { return r == ' ' || r == '\t' || r == '\r' || r == '\n'; }

bool is_alnum(char32_t r) {
  if (r < 0x80) {
    return r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9');
  }
  return r != k_eof && (go::unicode::is_letter(r) || go::unicode::is_digit(r));
}

bool has_left_trim(std::string_view s) {
  return s.size() >= 2 && s[0] == '-' && is_space(static_cast<unsigned char>(s[1]));
}

bool has_right_trim(std::string_view s) {
  return s.size() >= 2 && is_space(static_cast<unsigned char>(s[0])) && s[1] == '-';
}

uint32_t right_trim_length(std::string_view s) {
  size_t n = s.size();
  while (n > 0 && is_space(static_cast<unsigned char>(s[n - 1]))) --n;
  return static_cast<uint32_t>(s.size() - n);
}

uint32_t left_trim_length(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && is_space(static_cast<unsigned char>(s[n]))) ++n;
  return static_cast<uint32_t>(n);
}

int count_newlines(std::string_view s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

/// Go's `%#U` of a rune: `U+0023 '#'` when printable, else `U+0000`.
std::string sharp_u(char32_t r) {
  std::string out = fmt::format("U+{:04X}", static_cast<uint32_t>(r));
  if (go::is_print(r)) {
    out += " '";
    go::append_rune(out, r);
    out += "'";
  }
  return out;
}

/// The state machine of lex.go; each state returns the next one (Stop ends scanning).
class Lexer {
 public:
  Lexer(std::string_view input, Lexed& out) : m_in(input), m_out(out) {}

  void run() {
    State st = State::Text;
    while (st != State::Stop) {
      switch (st) {
        case State::Text: st = lex_text(); break;
        case State::LeftDelim: st = lex_left_delim(); break;
        case State::Comment: st = lex_comment(); break;
        case State::RightDelim: st = lex_right_delim(); break;
        case State::InsideAction: st = lex_inside_action(); break;
        case State::Stop: break;
      }
    }
  }

 private:
  enum class State : uint8_t { Stop, Text, LeftDelim, Comment, RightDelim, InsideAction };

  [[nodiscard]] std::string_view rest(uint32_t at) const {
    return at >= m_in.size() ? std::string_view() : m_in.substr(at);
  }

  char32_t next() {
    if (m_pos >= m_in.size()) {
      m_at_eof = true;
      return k_eof;
    }
    auto c = static_cast<unsigned char>(m_in[m_pos]);
    if (c < 0x80) {
      ++m_pos;
      if (c == '\n') ++m_line;
      return c;
    }
    go::Rune r = go::decode_rune(m_in.substr(m_pos));
    m_pos += static_cast<uint32_t>(r.width);
    return r.r;
  }

  char32_t peek() {
    char32_t r = next();
    backup();
    return r;
  }

  void backup() {
    if (m_at_eof || m_pos == 0) return;
    // Step back over one UTF-8 sequence (utf8.DecodeLastRuneInString).
    uint32_t p = m_pos - 1;
    if (static_cast<unsigned char>(m_in[p]) >= 0x80) {
      uint32_t lim = m_pos >= 4 ? m_pos - 4 : 0;
      uint32_t q = p;
      while (q > lim && (static_cast<unsigned char>(m_in[q]) & 0xC0) == 0x80) --q;
      go::Rune r = go::decode_rune(m_in.substr(q, m_pos - q));
      p = (q + r.width == m_pos) ? q : m_pos - 1;
    }
    if (m_in[p] == '\n') --m_line;
    m_pos = p;
  }

  void emit(Tok t) {
    // m_start <= m_pos <= size: no substr and its range check for every item
    m_out.tokens.push_back(
        Token{t, m_start, m_start_line, {m_in.data() + m_start, m_pos - m_start}});
    m_start = m_pos;
    m_start_line = m_line;
  }

  void ignore() {
    m_line += count_newlines(m_in.substr(m_start, m_pos - m_start));
    m_start = m_pos;
    m_start_line = m_line;
  }

  bool accept(std::string_view valid) {
    char32_t r = next();
    if (r < 0x80 && valid.find(static_cast<char>(r)) != std::string_view::npos) return true;
    backup();
    return false;
  }

  void accept_run(std::string_view valid) {
    while (accept(valid)) {
    }
  }

  State errorf(std::string msg) {
    m_out.error = std::move(msg);
    m_out.tokens.push_back(Token{Tok::Error, m_start, m_start_line, {}});
    return State::Stop;
  }

  State lex_text() {
    size_t x = m_in.find(k_left, m_pos);
    if (x != std::string_view::npos) {
      m_pos = static_cast<uint32_t>(x);
      uint32_t trim = 0;
      if (has_left_trim(rest(m_pos + k_left.size()))) {
        trim = right_trim_length(m_in.substr(m_start, m_pos - m_start));
      }
      m_pos -= trim;
      if (m_pos > m_start) {
        m_line += count_newlines(m_in.substr(m_start, m_pos - m_start));
        emit(Tok::Text);
      }
      m_pos += trim;
      ignore();
      return State::LeftDelim;
    }
    m_pos = static_cast<uint32_t>(m_in.size());
    if (m_pos > m_start) {
      m_line += count_newlines(m_in.substr(m_start, m_pos - m_start));
      emit(Tok::Text);
    }
    emit(Tok::Eof);
    return State::Stop;
  }

  /// Whether `}}` starts at `at`: asked at every token of every action, so two bytes are
  /// compared where starts_with would call memcmp.
  [[nodiscard]] bool right_delim_at(size_t at) const {
    static_assert(k_right.size() == 2);
    return at + 1 < m_in.size() && m_in[at] == k_right[0] && m_in[at + 1] == k_right[1];
  }

  /// (at a right delimiter, with a trim marker)
  std::pair<bool, bool> at_right_delim() const {
    std::string_view r = rest(m_pos);
    if (has_right_trim(r) && right_delim_at(m_pos + k_trim_len)) return {true, true};
    if (right_delim_at(m_pos)) return {true, false};
    return {false, false};
  }

  State lex_left_delim() {
    m_pos += static_cast<uint32_t>(k_left.size());
    bool trim = has_left_trim(rest(m_pos));
    uint32_t after = trim ? k_trim_len : 0;
    if (rest(m_pos + after).starts_with(k_left_comment)) {
      m_pos += after;
      ignore();
      return State::Comment;
    }
    emit(Tok::LeftDelim);
    m_pos += after;
    ignore();
    m_paren_depth = 0;
    return State::InsideAction;
  }

  State lex_comment() {
    m_pos += static_cast<uint32_t>(k_left_comment.size());
    size_t i = m_in.find(k_right_comment, m_pos);
    if (i == std::string_view::npos) return errorf("unclosed comment");
    m_pos = static_cast<uint32_t>(i + k_right_comment.size());
    auto [delim, trim] = at_right_delim();
    if (!delim) return errorf("comment ends before closing delimiter");
    if (trim) m_pos += k_trim_len;
    m_pos += static_cast<uint32_t>(k_right.size());
    if (trim) m_pos += left_trim_length(rest(m_pos));
    ignore();
    return State::Text;
  }

  State lex_right_delim() {
    bool trim = has_right_trim(rest(m_pos));
    if (trim) {
      m_pos += k_trim_len;
      ignore();
    }
    m_pos += static_cast<uint32_t>(k_right.size());
    emit(Tok::RightDelim);
    if (trim) {
      m_pos += left_trim_length(rest(m_pos));
      ignore();
    }
    return State::Text;
  }

  State lex_inside_action() {
    if (at_right_delim().first) {
      if (m_paren_depth == 0) return State::RightDelim;
      return errorf("unclosed left paren");
    }
    char32_t r = next();
    if (r == k_eof) return errorf("unclosed action");
    if (is_space(r)) {
      backup();  // put the space back in case we have " -}}"
      return lex_space();
    }
    switch (r) {
      case '=': emit(Tok::Assign); return State::InsideAction;
      case ':':
        if (next() != '=') return errorf("expected :=");
        emit(Tok::Declare);
        return State::InsideAction;
      case '|': emit(Tok::Pipe); return State::InsideAction;
      case '"': return lex_quote();
      case '`': return lex_raw_quote();
      case '$': return lex_variable();
      case '\'': return lex_char();
      case '(':
        emit(Tok::LeftParen);
        ++m_paren_depth;
        return State::InsideAction;
      case ')':
        // Go 1.24 checks before emitting (1.19 emitted the ')' first, so the parser's
        // `unexpected ")" in command` won, and named the rune in the lexer's message).
        --m_paren_depth;
        if (m_paren_depth < 0) return errorf("unexpected right paren");
        emit(Tok::RightParen);
        return State::InsideAction;
      default: break;
    }
    if (r == '.') {
      if (m_pos < m_in.size()) {
        char c = m_in[m_pos];
        if (c < '0' || c > '9') return lex_field_or_variable(Tok::Field);
      }
      backup();
      return lex_number();
    }
    if (r == '+' || r == '-' || (r >= '0' && r <= '9')) {
      backup();
      return lex_number();
    }
    if (is_alnum(r)) {
      backup();
      return lex_identifier();
    }
    if (r < 0x80 && r >= 0x20 && r < 0x7F) {
      emit(Tok::Char);
      return State::InsideAction;
    }
    return errorf("unrecognized character in action: " + sharp_u(r));
  }

  State lex_space() {
    int spaces = 0;
    // Spaces are ASCII: step over bytes (next() and peek() per byte, less the rune decoding).
    while (m_pos < m_in.size() && is_space(static_cast<unsigned char>(m_in[m_pos]))) {
      if (m_in[m_pos] == '\n') ++m_line;
      ++m_pos;
      ++spaces;
    }
    // Be careful about a trim-marked closing delimiter, which starts with a space.
    if (has_right_trim(rest(m_pos - 1)) && rest(m_pos - 1 + k_trim_len).starts_with(k_right)) {
      backup();  // before the space
      if (spaces == 1) return State::RightDelim;
    }
    emit(Tok::Space);
    return State::InsideAction;
  }

  /// lex.go's atTerminator, which peeks at the next rune: asked after every word of every
  /// action, so the byte is looked at in place (no rune is a terminator but ASCII ones, and
  /// peeking at the end leaves the lexer at EOF, as next() does).
  bool at_terminator() {
    if (m_pos >= m_in.size()) {
      m_at_eof = true;
      return true;
    }
    switch (m_in[m_pos]) {
      case ' ':
      case '\t':
      case '\r':
      case '\n':
      case '.':
      case ',':
      case '|':
      case ':':
      case ')':
      case '(': return true;
      default: break;
    }
    return right_delim_at(m_pos);
  }

  /// Steps over letters, digits and '_' (Unicode letters and digits too), as a loop of next()
  /// ending in backup() does, with ASCII handled byte by byte.
  void skip_alnum() {
    while (m_pos < m_in.size()) {
      auto c = static_cast<unsigned char>(m_in[m_pos]);
      if (c < 0x80) {
        if (!is_alnum(c)) return;
        ++m_pos;
        continue;
      }
      go::Rune r = go::decode_rune(m_in.substr(m_pos));
      if (!is_alnum(r.r)) return;
      m_pos += static_cast<uint32_t>(r.width);
    }
  }

  State lex_identifier() {
    skip_alnum();
    std::string_view word = m_in.substr(m_start, m_pos - m_start);
    if (!at_terminator()) return errorf("bad character " + sharp_u(peek()));
    Tok kw = keyword(word);
    if (kw != Tok::Error) {
      emit(kw);
    } else if (word[0] == '.') {
      emit(Tok::Field);
    } else if (word == "true" || word == "false") {
      emit(Tok::Bool);
    } else {
      emit(Tok::Identifier);
    }
    return State::InsideAction;
  }

  /// The keyword a word is (Tok::Error: none), told apart by its length first: the lexer asks
  /// for every identifier and field of every action.
  static Tok keyword(std::string_view w) {
    switch (w.size()) {
      case 1: return w == "." ? Tok::Dot : Tok::Error;
      case 2: return w == "if" ? Tok::If : Tok::Error;
      case 3: return w == "end" ? Tok::End : w == "nil" ? Tok::Nil : Tok::Error;
      case 4: return w == "else" ? Tok::Else : w == "with" ? Tok::With : Tok::Error;
      case 5:
        return w == "range"   ? Tok::Range
               : w == "block" ? Tok::Block
               : w == "break" ? Tok::Break
                              : Tok::Error;
      case 6: return w == "define" ? Tok::Define : Tok::Error;
      case 8: return w == "template" ? Tok::Template : w == "continue" ? Tok::Continue : Tok::Error;
      default: return Tok::Error;
    }
  }

  State lex_variable() {
    if (at_terminator()) {  // nothing interesting follows: "$"
      emit(Tok::Variable);
      return State::InsideAction;
    }
    return lex_field_or_variable(Tok::Variable);
  }

  State lex_field_or_variable(Tok typ) {
    if (at_terminator()) {
      emit(typ == Tok::Variable ? Tok::Variable : Tok::Dot);
      return State::InsideAction;
    }
    skip_alnum();
    if (!at_terminator()) return errorf("bad character " + sharp_u(peek()));
    emit(typ);
    return State::InsideAction;
  }

  State lex_char() {
    while (true) {
      char32_t r = next();
      if (r == '\\') {
        char32_t e = next();
        if (e != k_eof && e != '\n') continue;
        return errorf("unterminated character constant");
      }
      if (r == k_eof || r == '\n') return errorf("unterminated character constant");
      if (r == '\'') break;
    }
    emit(Tok::CharConstant);
    return State::InsideAction;
  }

  State lex_number() {
    if (!scan_number()) {
      return errorf("bad number syntax: " + go_quote(m_in.substr(m_start, m_pos - m_start)));
    }
    char32_t sign = peek();
    if (sign == '+' || sign == '-') {
      // Complex: 1+2i. No spaces, must end in 'i'.
      if (!scan_number() || m_in[m_pos - 1] != 'i') {
        return errorf("bad number syntax: " + go_quote(m_in.substr(m_start, m_pos - m_start)));
      }
      emit(Tok::Complex);
    } else {
      emit(Tok::Number);
    }
    return State::InsideAction;
  }

  bool scan_number() {
    accept("+-");
    std::string_view digits = "0123456789_";
    if (accept("0")) {
      if (accept("xX")) {
        digits = "0123456789abcdefABCDEF_";
      } else if (accept("oO")) {
        digits = "01234567_";
      } else if (accept("bB")) {
        digits = "01_";
      }
    }
    accept_run(digits);
    if (accept(".")) accept_run(digits);
    if (digits.size() == 11 && accept("eE")) {
      accept("+-");
      accept_run("0123456789_");
    }
    if (digits.size() == 23 && accept("pP")) {
      accept("+-");
      accept_run("0123456789_");
    }
    accept("i");
    if (is_alnum(peek())) {
      next();
      return false;
    }
    return true;
  }

  State lex_quote() {
    while (true) {
      char32_t r = next();
      if (r == '\\') {
        char32_t e = next();
        if (e != k_eof && e != '\n') continue;
        return errorf("unterminated quoted string");
      }
      if (r == k_eof || r == '\n') return errorf("unterminated quoted string");
      if (r == '"') break;
    }
    emit(Tok::String);
    return State::InsideAction;
  }

  State lex_raw_quote() {
    while (true) {
      char32_t r = next();
      if (r == k_eof) return errorf("unterminated raw quoted string");
      if (r == '`') break;
    }
    emit(Tok::RawString);
    return State::InsideAction;
  }

  std::string_view m_in;
  Lexed& m_out;
  uint32_t m_pos = 0;
  uint32_t m_start = 0;
  bool m_at_eof = false;
  int m_paren_depth = 0;
  int m_line = 1;
  int m_start_line = 1;
};

}  // namespace

void lex(std::string_view text, Lexed& out) {
  out.tokens.clear();
  out.error.clear();
  // about a dozen tokens per action: room for them at once, and no more (a text of YAML
  // given to tpl has few actions, and room for a token per four bytes was 8 bytes a byte)
  size_t actions = 0;
  for (size_t at = text.find(k_left); at != std::string_view::npos; at = text.find(k_left, at + 2))
    ++actions;
  out.tokens.reserve(actions * 12 + 8);
  Lexer(text, out).run();
  if (!out.tokens.empty() && out.tokens.back().type == Tok::Error) {
    out.tokens.back().val = out.error;
  }
}

std::string token_string(const Token& t) {
  if (t.type == Tok::Eof) return "EOF";
  if (t.type == Tok::Error) return std::string(t.val);
  if (t.type > Tok::Keyword) {
    std::string out = "<";  // appended, not `"<" + string`: g++ 12 -O3 warns (-Wrestrict)
    out += t.val;
    out += '>';
    return out;
  }
  if (t.val.size() > 10) {
    // %.10q: the first 10 runes, quoted.
    size_t at = 0;
    for (int runes = 0; runes < 10 && at < t.val.size(); ++runes) {
      at += std::max<size_t>(1, go::decode_rune(t.val.substr(at)).width);
    }
    return go_quote(t.val.substr(0, at)) + "...";
  }
  return go_quote(t.val);
}

}  // namespace ejob::render::text_template
