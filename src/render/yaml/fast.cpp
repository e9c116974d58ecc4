#include "src/render/yaml/fast.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/go/utf8.hpp"
#include "src/render/yaml/scalar.hpp"

namespace ejob::render::yaml {

using go::Value;

namespace {

/// Thrown when the text leaves the simple subset; load_simple answers std::nullopt.
struct Unsupported {};

[[noreturn]] void decline() { throw Unsupported{}; }

// go-yaml refuses more than 10000 levels ("exceeded max depth"): deeper text goes to yaml-cpp,
// whose error is reported. The command runs on a big stack (src/util/big_stack).
constexpr int k_max_depth = 10000;
constexpr size_t k_max_key = 1000;  // libyaml refuses implicit keys over 1024 characters

/// One line: its indentation and the text after it (comment lines and blank lines included).
struct Line {
  int indent;
  std::string_view text;
  [[nodiscard]] bool insignificant() const { return text.empty() || text[0] == '#'; }
};

/// The width of the non-ASCII character at the start of `t`, when go-yaml reads it as any
/// other printable character. Declines invalid UTF-8 and what go-yaml's reader refuses (C1
/// controls, U+FFFE, U+FFFF) or its scanner treats apart: NEL, LS and PS are line breaks, and
/// a BOM at the start of a line is skipped.
size_t plain_rune_width(std::string_view t) {
  const go::Rune r = go::decode_rune(t);
  const bool printable = (r.r >= 0xA0 && r.r <= 0xD7FF && r.r != 0x2028 && r.r != 0x2029) ||
                         (r.r >= 0xE000 && r.r <= 0xFFFD && r.r != 0xFEFF) ||
                         (r.r >= 0x10000 && r.r <= 0x10FFFF);
  if (!r.valid() || !printable) decline();
  return r.width;
}

/// Whether the 8 bytes at p are all printable ASCII (0x20-0x7E), tested at once: every byte
/// of a document is looked at before anything else, and byte by byte that was a sixth of the
/// fast path's instructions. The tests are the classic exact ones for "some byte is below n"
/// and "some byte is zero", on the word and on the word xor 0x7F...
bool plain_ascii_word(const char* p) {
  constexpr uint64_t k_ones = 0x0101010101010101ULL;
  constexpr uint64_t k_highs = 0x8080808080808080ULL;
  uint64_t w;
  std::memcpy(&w, p, sizeof w);
  const uint64_t below_space = (w - k_ones * 0x20) & ~w & k_highs;
  const uint64_t del = w ^ (k_ones * 0x7F);
  const uint64_t is_del = (del - k_ones) & ~del & k_highs;
  return ((w & k_highs) | below_space | is_del) == 0;
}

bool is_dash(std::string_view t) { return t[0] == '-' && (t.size() == 1 || t[1] == ' '); }

/// The rest of a line after a scalar: only spaces, then nothing or a comment.
void expect_end(std::string_view rest) {
  size_t i = rest.find_first_not_of(' ');
  if (i == std::string_view::npos) return;
  if (rest[i] != '#' || i == 0) decline();
}

/// The hex digits t[i, i+4) as a code point; -1 when one is not a hex digit.
int hex4(std::string_view t, size_t i) {
  if (i + 4 > t.size()) return -1;
  int v = 0;
  for (size_t k = i; k < i + 4; ++k) {
    int d = std::isxdigit(static_cast<unsigned char>(t[k]))
                ? (std::isdigit(static_cast<unsigned char>(t[k])) ? t[k] - '0'
                                                                  : (t[k] | 0x20) - 'a' + 10)
                : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/// The escape at t[i] (a backslash) of a double-quoted scalar, appended to `out`; returns the
/// index of its last character. Only the escapes that JSON and Go's %q print, which go-yaml
/// reads as JSON does: \" \\ \n \t \r and \u of printable ASCII (toJson | quote prints
/// \u003c for <). Any other escape goes to the full parser.
size_t escape(std::string_view t, size_t i, std::string& out) {
  if (i + 1 >= t.size()) decline();  // a line continuation
  switch (t[i + 1]) {
    case '"': out += '"'; return i + 1;
    case '\\': out += '\\'; return i + 1;
    case 'n': out += '\n'; return i + 1;
    case 't': out += '\t'; return i + 1;
    case 'r': out += '\r'; return i + 1;
    case 'u': {
      int c = hex4(t, i + 2);
      if (c < 0x20 || c >= 0x7F) decline();
      out += static_cast<char>(c);
      return i + 5;
    }
    default: decline();
  }
}

/// A single-line quoted scalar at the start of `t`; `end` is set past it.
std::string quoted(std::string_view t, size_t& end) {
  char q = t[0];
  std::string out;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '\\' && q == '"') {
      i = escape(t, i, out);
      continue;
    }
    if (t[i] != q) {
      out += t[i];
    } else if (q == '\'' && i + 1 < t.size() && t[i + 1] == '\'') {
      out += '\'';
      ++i;
    } else {
      end = i + 1;
      return out;
    }
  }
  decline();  // continues on the next line
}

/// A plain scalar's text: up to a comment, without trailing spaces.
std::string_view plain(std::string_view t) {
  constexpr std::string_view k_indicators = "-?:,[]{}#&*!|>'\"%@`";
  // `-`, `?` and `:` start a plain scalar when a non-space follows (`:8080`, `-x`)
  const bool starts_plain =
      (t[0] == '-' || t[0] == '?' || t[0] == ':') && t.size() > 1 && t[1] != ' ';
  if (k_indicators.find(t[0]) != std::string_view::npos && !starts_plain) decline();
  size_t end = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) decline();
    if (t[i] == '#' && i > 0 && t[i - 1] == ' ') {
      end = i;
      break;
    }
  }
  return t.substr(0, t.find_last_not_of(' ', end - 1) + 1);
}

/// A plain scalar resolved, declining what the JSON round trip then fails on.
Resolved resolve_convertible(std::string_view s) {
  Resolved r = resolve_plain(s);
  if (r.kind == ScalarKind::Float && (std::isnan(r.f) || std::isinf(r.f)))
    decline();  // a conversion error
  return r;
}

/// A plain scalar's value as go-yaml v2 then the JSON round trip give it.
Value plain_value(std::string_view s) {
  Resolved r = resolve_convertible(s);
  switch (r.kind) {
    case ScalarKind::Null: return {};
    case ScalarKind::Bool: return Value::boolean(r.b);
    case ScalarKind::Int: return Value::float64(static_cast<double>(r.i));
    case ScalarKind::Uint: return Value::float64(static_cast<double>(r.u));
    case ScalarKind::Float: return Value::float64(r.f);
    default: return Value::string(std::string(s));
  }
}

/// A plain key as a JSON object key (yaml_load's key_string).
std::string plain_key(std::string_view s) {
  if (s == "<<") decline();  // a merge key
  Resolved r = resolve_plain(s);
  switch (r.kind) {
    case ScalarKind::Bool: return r.b ? "true" : "false";
    case ScalarKind::Int: return std::to_string(r.i);
    case ScalarKind::Float: {
      if (std::isnan(r.f) || std::isinf(r.f)) decline();
      return go::format_float(r.f, 'g', -1, 32);
    }
    case ScalarKind::Null:
    case ScalarKind::Uint: decline();  // errors
    default: return std::string(s);
  }
}

/// A one-line flow sequence of scalars at the start of `t`: `[a, 'b', "c"]` (no nesting, no
/// empty or trailing entries, plain entries of letters, digits, spaces and `-._/+=` only); `end` is
/// set past the `]`.
Value flow_sequence(std::string_view t, size_t& end) {
  go::List items;
  size_t i = 1;
  auto spaces = [&] {
    while (i < t.size() && t[i] == ' ') ++i;
  };
  spaces();
  while (true) {
    if (i >= t.size()) decline();
    if (t[i] == '"' || t[i] == '\'') {
      size_t len = 0;
      items.push_back(Value::string(quoted(t.substr(i), len)));
      i += len;
    } else {
      size_t start = i;
      while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) ||
                              std::string_view("-._/+= ").find(t[i]) != std::string_view::npos))
        ++i;
      std::string_view item = t.substr(start, i - start);
      item = item.substr(0, item.find_last_not_of(' ') + 1);
      if (item.empty() || item[0] == '=' ||
          (item[0] == '-' && (item.size() == 1 || item[1] == ' ')))
        decline();
      items.push_back(plain_value(item));
    }
    spaces();
    if (i < t.size() && t[i] == ']') break;
    if (i >= t.size() || t[i] != ',') decline();
    ++i;
    spaces();
  }
  end = i + 1;
  return Value::list(std::move(items));
}

class Parser {
 public:
  Parser(std::string_view text, TopKeyFilter keep_top) : m_keep_top(keep_top) {
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      size_t end = nl == std::string_view::npos ? text.size() : nl;
      add_line(text.substr(start, end - start));
      start = end + 1;
    }
  }

  Value document() {
    skip();
    if (m_pos == m_lines.size()) return {};
    Value v = node(-1, 0);
    skip();
    if (m_pos != m_lines.size()) decline();
    return v;
  }

 private:
  std::vector<Line> m_lines;
  size_t m_pos = 0;
  TopKeyFilter m_keep_top;
  /// Whether the node being read is kept: under a top-level key the filter turns down, it is
  /// read and checked as any other, and nothing of it is built.
  bool m_building = true;

  /// Reads a node with m_building set to `kept`, as it was after.
  template <typename Read>
  Value building(bool kept, Read read) {
    const bool outer = m_building;
    m_building = kept;
    Value v = read();
    m_building = outer;
    return v;
  }

  void add_line(std::string_view raw) {
    for (size_t i = 0; i < raw.size();) {
      if (i + 8 <= raw.size() && plain_ascii_word(raw.data() + i)) {
        i += 8;
        continue;
      }
      auto u = static_cast<unsigned char>(raw[i]);
      if (u < 0x20 || u == 0x7F) decline();  // tabs, CR and control bytes
      i += u > 0x7F ? plain_rune_width(raw.substr(i)) : 1;
    }
    size_t indent = raw.find_first_not_of(' ');
    if (indent == std::string_view::npos) indent = raw.size();
    std::string_view text = raw.substr(indent);
    if (indent == 0 &&
        (text.starts_with("---") || text.starts_with("...") || text.starts_with('%')))
      decline();  // document markers and directives
    m_lines.push_back({static_cast<int>(indent), text});
  }

  void skip() {
    while (m_pos < m_lines.size() && m_lines[m_pos].insignificant()) ++m_pos;
  }

  /// After a node that ended its line: the next line must not be inside `owner`'s node.
  void end_of_node(int owner) {
    ++m_pos;
    skip();
    if (m_pos < m_lines.size() && m_lines[m_pos].indent > owner) decline();
  }

  /// The key of a `key: value` line; `rest` is set to what follows the colon. False when the
  /// line has no key.
  static bool split_key(std::string_view t, std::string& key, std::string_view& rest) {
    size_t colon;
    if (t[0] == '\'' && !closes_on_line(t)) return false;  // a scalar going on over lines
    if (t[0] == '"' || t[0] == '\'') {
      size_t end = 0;
      key = quoted(t, end);
      if (end >= t.size() || t[end] != ':') return false;
      colon = end;
    } else {
      colon = std::string_view::npos;
      for (size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '#' && i > 0 && t[i - 1] == ' ') break;
        if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) {
          colon = i;
          break;
        }
      }
      if (colon == std::string_view::npos) return false;
      std::string_view k = t.substr(0, colon);
      k = k.substr(0, k.find_last_not_of(' ') + 1);  // `key : value`: the spaces end the key
      if (k.empty() || plain(k).size() != k.size()) decline();
      key = plain_key(k);
    }
    if (colon + 1 < t.size() && t[colon + 1] != ' ') return false;
    if (colon > k_max_key) decline();
    rest = t.substr(colon + 1);
    return true;
  }

  /// The node whose first line is the current one, inside a node indented `owner`.
  Value node(int owner, int depth) {
    if (depth > k_max_depth) decline();
    const Line& l = m_lines[m_pos];
    if (is_dash(l.text)) return sequence(l.indent, depth);
    std::string key;
    std::string_view rest;
    if (split_key(l.text, key, rest)) return mapping(l.indent, depth);
    if (l.text[0] == '|' || l.text[0] == '>') decline();  // a block scalar on a line of its own
    return inline_value(l.text, owner, depth);
  }

  Value mapping(int indent, int depth) {
    go::Map m;
    while (m_pos < m_lines.size() && m_lines[m_pos].indent == indent) {
      std::string key;
      std::string_view rest;
      std::string_view t = m_lines[m_pos].text;
      if (is_dash(t) || !split_key(t, key, rest)) decline();
      const bool kept = m_building && (depth > 0 || m_keep_top == nullptr || m_keep_top(key));
      Value v = building(kept, [&] { return value_after(rest, indent, depth, true); });
      if (kept) m.insert_or_assign(std::move(key), std::move(v));
    }
    if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent) decline();
    if (!m_building) return {};
    return Value::map(std::move(m));
  }

  Value sequence(int indent, int depth) {
    go::List items;
    while (m_pos < m_lines.size() && m_lines[m_pos].indent == indent &&
           is_dash(m_lines[m_pos].text)) {
      std::string_view rest = m_lines[m_pos].text.substr(1);
      size_t skip_spaces = rest.find_first_not_of(' ');
      std::string_view r = skip_spaces == std::string_view::npos ? "" : rest.substr(skip_spaces);
      std::string key;
      std::string_view after;
      if (!r.empty() && r[0] != '#' && split_key(r, key, after)) {
        // `- key: value`: a mapping indented at the key's column.
        m_lines[m_pos] = Line{indent + 1 + static_cast<int>(skip_spaces), r};
        Value item = mapping(m_lines[m_pos].indent, depth + 1);
        if (m_building) items.push_back(std::move(item));
      } else {
        if (!r.empty() && is_dash(r)) decline();
        Value item = value_after(rest, indent, depth, false);
        if (m_building) items.push_back(std::move(item));
      }
    }
    if (m_pos < m_lines.size() && m_lines[m_pos].indent > indent) decline();
    if (!m_building) return {};
    return Value::list(std::move(items));
  }

  /// The value after `key:` or `-` (text `rest` on the current line) of a node indented
  /// `owner`; `same_indent_list`: a `- ` list at the owner's own indentation is the value.
  Value value_after(std::string_view rest, int owner, int depth, bool same_indent_list) {
    size_t i = rest.find_first_not_of(' ');
    if (i != std::string_view::npos && rest[i] != '#') {
      if (i == 0) decline();
      return inline_value(rest.substr(i), owner, depth);
    }
    ++m_pos;
    skip();
    if (m_pos == m_lines.size()) return {};
    const Line& next = m_lines[m_pos];
    if (next.indent > owner) return node(owner, depth + 1);
    if (same_indent_list && next.indent == owner && is_dash(next.text))
      return sequence(owner, depth + 1);
    return {};
  }

  /// A value that starts on the current line at `t`.
  Value inline_value(std::string_view t, int owner, int depth) {
    if (depth > k_max_depth) decline();
    Value v;
    if (t == "|" || t == "|-" || t == ">" || t == ">-")
      return block_scalar(owner, t[0] == '>', t.size() == 1);
    if (t.starts_with("{}") || t.starts_with("[]")) {
      expect_end(t.substr(2));
      v = t[0] == '{' ? Value::map() : Value::list();
    } else if (t[0] == '\'' && !closes_on_line(t)) {
      return folded_single_quoted(t, owner);
    } else if (t[0] == '"' || t[0] == '\'') {
      size_t end = 0;
      v = Value::string(quoted(t, end));
      expect_end(t.substr(end));
    } else if (t[0] == '[') {
      size_t end = 0;
      v = flow_sequence(t, end);
      expect_end(t.substr(end));
    } else {
      const std::string text = plain_over_lines(t, owner);
      if (m_building) {
        v = plain_value(text);
      } else {
        resolve_convertible(text);  // checked all the same
      }
    }
    end_of_node(owner);
    return v;
  }

  /// A plain scalar's text with the lines that continue it (indented past `owner`: CRDs'
  /// wrapped descriptions), folded: a lone line break reads as a space, each empty line between
  /// as a newline. Leaves m_pos on its last line. Continuation lines that could hold a key, a
  /// comment or an indicator go to yaml-cpp.
  std::string plain_over_lines(std::string_view t, int owner) {
    // Quotes inside a plain scalar are text, even at the start of a continuation line.
    constexpr std::string_view k_indicators = "-?:,[]{}#&*!|>%@`";
    std::string out(plain(t));
    if (t.find(" #") != std::string_view::npos) return out;  // a comment ends it
    for (size_t next = m_pos + 1; next < m_lines.size();) {
      size_t breaks = 0;
      for (; next < m_lines.size() && m_lines[next].text.empty(); ++next) ++breaks;
      if (next == m_lines.size() || m_lines[next].indent <= owner) break;
      std::string_view c = m_lines[next].text;
      if (c[0] == '#') break;  // a comment line: end_of_node judges what follows
      bool leading_dash = c[0] == '-' && c.size() > 1 && c[1] != ' ';  // `--flag`, `-1`
      if ((k_indicators.find(c[0]) != std::string_view::npos && !leading_dash) ||
          c.find(": ") != std::string_view::npos || c.back() == ':' ||
          c.find(" #") != std::string_view::npos)
        decline();
      out.append(breaks == 0 ? 1 : breaks, breaks == 0 ? ' ' : '\n');
      out += c.substr(0, c.find_last_not_of(' ') + 1);
      m_pos = next++;
    }
    return out;
  }

  /// Whether the single-quoted scalar that starts `t` ends on this line.
  static bool closes_on_line(std::string_view t) {
    for (size_t i = 1; i < t.size(); ++i) {
      if (t[i] != '\'') continue;
      if (i + 1 < t.size() && t[i + 1] == '\'') {
        ++i;
      } else {
        return true;
      }
    }
    return false;
  }

  /// A single-quoted scalar that goes on over the next lines (CEL rules in CRDs), folded as
  /// YAML folds flow scalars: spaces around each line break dropped, a lone break read as a
  /// space, each empty line between as a newline. Continuation lines must be indented past
  /// `owner` and have text, else the document goes to yaml-cpp.
  Value folded_single_quoted(std::string_view t, int owner) {
    std::string out;
    std::string_view line = t.substr(1);
    for (;;) {
      size_t i = 0;
      for (; i < line.size(); ++i) {
        if (line[i] != '\'') {
          out += line[i];
        } else if (i + 1 < line.size() && line[i + 1] == '\'') {
          out += '\'';
          ++i;
        } else {
          break;
        }
      }
      if (i < line.size()) {
        expect_end(line.substr(i + 1));
        end_of_node(owner);
        return Value::string(std::move(out));
      }
      size_t kept = out.find_last_not_of(' ');
      if (kept == std::string::npos) decline();  // an empty first line
      out.erase(kept + 1);
      size_t breaks = 0;
      for (++m_pos; m_pos < m_lines.size() && m_lines[m_pos].text.empty(); ++m_pos) ++breaks;
      if (m_pos == m_lines.size() || m_lines[m_pos].indent <= owner) decline();
      out.append(breaks == 0 ? 1 : breaks, breaks == 0 ? ' ' : '\n');
      line = m_lines[m_pos].text;
    }
  }

  /// A block scalar in a node indented `owner`, the current line holding its indicator:
  /// literal (`|`) or folded (`>`), with one final newline (clip) or none (`-`). Empty lines
  /// before its first line are newlines of its text. Folding is libyaml's: the break between
  /// two lines that do not start with a space (more indented) reads as a space, or is dropped
  /// when empty lines follow it, each of which is a newline.
  Value block_scalar(int owner, bool folded, bool clip) {
    ++m_pos;
    size_t first = m_pos;
    int blank_spaces = 0;
    while (first < m_lines.size() && m_lines[first].text.empty())
      blank_spaces = std::max(blank_spaces, m_lines[first++].indent);
    if (first == m_lines.size() || m_lines[first].indent <= owner) {
      m_pos = first;  // nothing inside: an empty scalar (`affinity: |` before a comment)
      skip();
      if (m_pos < m_lines.size() && m_lines[m_pos].indent > owner) decline();
      return Value::string("");
    }
    const int indent = m_lines[first].indent;
    // leading empty lines longer than the first line set libyaml's indentation
    if (blank_spaces > indent) decline();
    std::string out;
    size_t breaks = first - m_pos;  // empty lines since the last line of text
    bool after_line = false;        // a line of text was read: its break is pending
    bool after_spaced = false;      // ... and it started with a space
    for (m_pos = first; m_pos < m_lines.size(); ++m_pos) {
      const Line& l = m_lines[m_pos];
      if (l.text.empty()) {
        if (l.indent > indent) decline();  // spaces that belong to the content
        ++breaks;
        continue;
      }
      if (l.indent < indent) break;
      const bool spaced = l.indent > indent;
      if (after_line && (!folded || after_spaced || spaced)) out += '\n';
      if (after_line && folded && !after_spaced && !spaced && breaks == 0) out += ' ';
      out.append(breaks, '\n');
      breaks = 0;
      out.append(static_cast<size_t>(l.indent - indent), ' ');
      out += l.text;
      after_line = true;
      after_spaced = spaced;
    }
    if (clip) out += '\n';
    skip();
    if (m_pos < m_lines.size() && m_lines[m_pos].indent > owner) decline();
    return Value::string(std::move(out));
  }
};

}  // namespace

std::optional<Value> load_simple(std::string_view text, TopKeyFilter keep_top) {
  try {
    return Parser(text, keep_top).document();
  } catch (const Unsupported&) {
    return std::nullopt;
  }
}

}  // namespace ejob::render::yaml
