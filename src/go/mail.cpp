#include "ejob/go/mail.hpp"

#include <algorithm>

#include "ejob/go/ip.hpp"
#include "ejob/go/strconv.hpp"
#include "ejob/util/base64.hpp"

namespace ejob::render::go {
namespace {

bool is_multibyte(char32_t r) { return r >= 0x80; }
bool is_vchar(char32_t r) { return (r >= '!' && r <= '~') || is_multibyte(r); }
bool is_wsp(char32_t r) { return r == ' ' || r == '\t'; }
bool is_qtext(char32_t r) { return r != '\\' && r != '"' && is_vchar(r); }

/// RFC 5322's specials are never atext (Go 1.19 let phrases hold ()[];@\, unquoted; 1.24 not).
bool is_atext(char32_t r, bool dot) {
  switch (r) {
    case '.': return dot;
    case '(':
    case ')':
    case '[':
    case ']':
    case ';':
    case '@':
    case '\\':
    case ',':
    case '<':
    case '>':
    case '"':
    case ':': return false;
    default: return is_vchar(r);
  }
}

bool is_dtext(char32_t r) { return r != '[' && r != ']' && r != '\\' && is_vchar(r); }

/// mime's qDecode succeeds.
bool q_decodes(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_') continue;
    if (c == '=') {
      if (i + 2 >= s.size() || unhex(s[i + 1]) < 0 || unhex(s[i + 2]) < 0) return false;
      i += 2;
    } else if (!((c >= ' ' && c <= '~') || c == '\n' || c == '\r' || c == '\t')) {
      return false;
    }
  }
  return true;
}

/// addrParser.decodeRFC2047Word fails: an encoded word that mime.WordDecoder decodes up to its
/// charset, which is not one Go converts itself. Other malformed words are kept as text.
bool undecodable_charset(std::string_view w) {
  if (w.size() < 8 || w.substr(0, 2) != "=?" || w.substr(w.size() - 2) != "?=" ||
      std::count(w.begin(), w.end(), '?') != 4)
    return false;
  w = w.substr(2, w.size() - 4);
  const size_t q = w.find('?');
  const std::string_view charset = w.substr(0, q);
  const std::string_view rest = w.substr(q + 1);
  const size_t q2 = rest.find('?');
  const std::string_view encoding = rest.substr(0, q2);
  const std::string_view text = rest.substr(q2 + 1);
  if (charset.empty() || encoding.size() != 1) return false;
  const char e = encoding[0];
  if (e == 'B' || e == 'b') {
    if (!base64_decode(text)) return false;
  } else if (e == 'Q' || e == 'q') {
    if (!q_decodes(text)) return false;
  } else {
    return false;
  }
  return !equal_fold_ascii(charset, "utf-8") && !equal_fold_ascii(charset, "iso-8859-1") &&
         !equal_fold_ascii(charset, "us-ascii");
}

/// Go's addrParser, each method true where Go's returns no error and leaving the rest of the
/// input as Go's leaves p.s.
class AddressParser {
 public:
  explicit AddressParser(std::string_view s) : m_s(s) {}

  /// parseSingleAddress.
  bool single() {
    int count = 0;
    if (!address(true, count) || !skip_cfws() || !m_s.empty()) return false;
    return count == 1;  // a group of none or of several is an error
  }

 private:
  bool address(bool handle_group, int& count) {
    skip_space();
    if (m_s.empty()) return false;
    if (addr_spec()) {
      skip_space();
      if (!m_s.empty() && m_s[0] == '(' && !display_name_comment()) return false;
      ++count;
      return true;
    }
    if (m_s[0] != '<' && !phrase()) return false;
    skip_space();
    if (handle_group && consume(':')) return group_list(count);
    if (!consume('<') || !addr_spec() || !consume('>')) return false;
    ++count;
    return true;
  }

  bool group_list(int& count) {
    skip_space();
    if (consume(';')) return skip_cfws();
    for (;;) {
      skip_space();
      if (!address(false, count) || !skip_cfws()) return false;
      if (consume(';')) return skip_cfws();
      if (!consume(',')) return false;
    }
  }

  /// consumeAddrSpec: the input is left as it was when it fails.
  bool addr_spec() {
    const std::string_view orig = m_s;
    if (addr_spec_parts()) return true;
    m_s = orig;
    return false;
  }

  bool addr_spec_parts() {
    skip_space();
    if (m_s.empty()) return false;
    if (m_s[0] == '"') {
      bool empty = true;
      if (!quoted_string(empty) || empty) return false;
    } else if (!atom(true, false)) {
      return false;
    }
    if (!consume('@')) return false;
    skip_space();
    if (!m_s.empty() && m_s[0] == '[') return domain_literal();
    return !m_s.empty() && atom(true, false);
  }

  /// consumeDomainLiteral (Go >= 1.22): "[" dtext "]" holding an IP address.
  bool domain_literal() {
    consume('[');
    size_t i = 0;
    while (i < m_s.size() && m_s[i] != ']') {
      const Rune r = decode_rune(m_s.substr(i));
      if ((r.width == 1 && r.r == k_rune_error) || !is_dtext(r.r)) return false;
      i += r.width;
    }
    if (i == m_s.size()) return false;  // unclosed
    const std::string_view dtext = m_s.substr(0, i);
    m_s.remove_prefix(i + 1);
    return parses_as_ip(dtext);
  }

  bool phrase() {
    int words = 0;
    for (;;) {
      // Go 1.24 skips comments between words, and a broken one fails the phrase.
      if (words > 0 && !skip_cfws()) return false;
      skip_space();
      if (m_s.empty()) break;
      bool ok;
      if (m_s[0] == '"') {
        bool empty = true;
        ok = quoted_string(empty);
      } else {
        std::string_view word;
        ok = atom(true, true, &word) && !undecodable_charset(word);
      }
      if (!ok) return words > 0;
      ++words;
    }
    return true;
  }

  /// consumeQuotedString (m_s starts with '"'); `empty` tells whether it held nothing.
  bool quoted_string(bool& empty) {
    size_t i = 1;
    bool escaped = false;
    for (;;) {
      const Rune r = decode_rune(m_s.substr(i));
      if (r.width == 0) return false;  // unclosed
      if (r.width == 1 && r.r == k_rune_error) return false;
      if (escaped) {
        if (!is_vchar(r.r) && !is_wsp(r.r)) return false;
        empty = false;
        escaped = false;
      } else if (is_qtext(r.r) || is_wsp(r.r)) {
        empty = false;
      } else if (r.r == '"') {
        break;
      } else if (r.r == '\\') {
        escaped = true;
      } else {
        return false;
      }
      i += r.width;
    }
    m_s.remove_prefix(i + 1);
    return true;
  }

  /// consumeAtom.
  bool atom(bool dot, bool permissive, std::string_view* out = nullptr) {
    size_t i = 0;
    for (;;) {
      const Rune r = decode_rune(m_s.substr(i));
      if (r.width == 1 && r.r == k_rune_error) return false;
      if (r.width == 0 || !is_atext(r.r, dot)) break;
      i += r.width;
    }
    if (i == 0) return false;
    const std::string_view a = m_s.substr(0, i);
    m_s.remove_prefix(i);
    if (!permissive &&
        (a.front() == '.' || a.find("..") != std::string_view::npos || a.back() == '.'))
      return false;
    if (out != nullptr) *out = a;
    return true;
  }

  /// consumeDisplayNameComment (m_s starts with '(').
  bool display_name_comment() {
    consume('(');
    std::string comment;
    if (!comment_text(comment)) return false;
    size_t start = 0;
    while (start < comment.size()) {  // strings.FieldsFunc on ' ' and '\t'
      const size_t end = comment.find_first_of(" \t", start);
      const std::string_view word =
          std::string_view(comment).substr(start, end == std::string::npos ? end : end - start);
      if (!word.empty() && undecodable_charset(word)) return false;
      if (end == std::string::npos) break;
      start = end + 1;
    }
    return true;
  }

  /// consumeComment, after the '('.
  bool comment_text(std::string& comment) {
    int depth = 1;
    while (!m_s.empty() && depth != 0) {
      if (m_s[0] == '\\' && m_s.size() > 1)
        m_s.remove_prefix(1);
      else if (m_s[0] == '(')
        ++depth;
      else if (m_s[0] == ')')
        --depth;
      if (depth > 0) comment += m_s[0];
      m_s.remove_prefix(1);
    }
    return depth == 0;
  }

  bool skip_cfws() {
    skip_space();
    while (consume('(')) {
      std::string ignored;
      if (!comment_text(ignored)) return false;
      skip_space();
    }
    return true;
  }

  bool consume(char c) {
    if (m_s.empty() || m_s[0] != c) return false;
    m_s.remove_prefix(1);
    return true;
  }

  void skip_space() {
    while (!m_s.empty() && (m_s[0] == ' ' || m_s[0] == '\t')) m_s.remove_prefix(1);
  }

  std::string_view m_s;
};

}  // namespace

bool parses_as_address(std::string_view text) { return AddressParser(text).single(); }

}  // namespace ejob::render::go
