/// go-yaml's emitter: scalar analysis, style selection and the writers of emitterc.go.
#include "src/render/yaml/emitter.hpp"

#include <algorithm>
#include <climits>
#include <string_view>

#include "src/render/go/strconv.hpp"
#include "src/render/yaml/scalar.hpp"

namespace ejob::render::yaml::detail {
namespace {

// yamlprivateh.go's byte-class predicates (s must have the bytes they peek at).
size_t width(unsigned char b) {
  if ((b & 0x80) == 0) return 1;
  if ((b & 0xE0) == 0xC0) return 2;
  if ((b & 0xF0) == 0xE0) return 3;
  if ((b & 0xF8) == 0xF0) return 4;
  return 0;
}
unsigned char at(std::string_view s, size_t i) {
  return i < s.size() ? static_cast<unsigned char>(s[i]) : 0;
}
bool is_space(std::string_view s, size_t i) { return at(s, i) == ' '; }
bool is_blank(std::string_view s, size_t i) { return at(s, i) == ' ' || at(s, i) == '\t'; }
bool is_break(std::string_view s, size_t i) {
  unsigned char b = at(s, i);
  return b == '\r' || b == '\n' || (b == 0xC2 && at(s, i + 1) == 0x85) ||
         (b == 0xE2 && at(s, i + 1) == 0x80 && (at(s, i + 2) == 0xA8 || at(s, i + 2) == 0xA9));
}
bool is_blankz(std::string_view s, size_t i) {
  return is_blank(s, i) || is_break(s, i) || i >= s.size() || at(s, i) == 0;
}
bool is_bom(std::string_view s, size_t i) {
  return at(s, i) == 0xEF && at(s, i + 1) == 0xBB && at(s, i + 2) == 0xBF;
}
bool is_printable(std::string_view s, size_t i) {
  unsigned char b = at(s, i);
  unsigned char b1 = at(s, i + 1);
  unsigned char b2 = at(s, i + 2);
  return b == 0x0A || (b >= 0x20 && b <= 0x7E) || (b == 0xC2 && b1 >= 0xA0) ||
         (b > 0xC2 && b < 0xED) || (b == 0xED && b1 < 0xA0) || b == 0xEE ||
         (b == 0xEF && !(b1 == 0xBB && b2 == 0xBF) && !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF)));
}

/// An ASCII letter or digit: no indicator anywhere, printable, neither space nor break (most
/// bytes of a scalar; the per-byte checks of analyze() were 7% of a big chart's render).
bool is_word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/// The end of the run of printable ASCII other than space (and than the bytes in `stop`) that
/// starts at i: each of them is one byte, one column, and is written as it is.
size_t ascii_run(std::string_view s, size_t i, std::string_view stop = {}) {
  while (i < s.size() && s[i] > ' ' && s[i] < 0x7F && stop.find(s[i]) == std::string_view::npos)
    ++i;
  return i;
}

// yaml_emitter_analyze_scalar's verdict.
struct Analysis {
  bool multiline = false;
  bool flow_plain_allowed = false;
  bool block_plain_allowed = true;
  bool single_quoted_allowed = true;
  bool block_allowed = false;
};

Analysis analyze(std::string_view v, Flavor flavor = Flavor::V2) {
  Analysis a;
  if (v.empty()) return a;
  bool block_ind = false, flow_ind = false, line_breaks = false, special = false, tabs = false;
  bool leading_space = false, leading_break = false, trailing_space = false, trailing_break = false;
  bool break_space = false, space_break = false, prev_space = false, prev_break = false;
  if (v.size() >= 3 && (v.starts_with("---") || v.starts_with("..."))) block_ind = flow_ind = true;
  bool preceded_by_ws = true;
  for (size_t i = 0, w = 0; i < v.size(); i += w) {
    if (is_word_byte(v[i])) {  // what the branches below conclude for a letter or digit
      w = 1;
      prev_space = prev_break = preceded_by_ws = false;
      continue;
    }
    w = std::max<size_t>(width(at(v, i)), 1);
    bool followed_by_ws = i + w >= v.size() || is_blank(v, i + w);
    char c = v[i];
    if (i == 0) {
      if (std::string_view("#,[]{}&*!|>'\"%@`").find(c) != std::string_view::npos) {
        flow_ind = block_ind = true;
      } else if (c == '?' || c == ':') {
        flow_ind = true;
        if (followed_by_ws) block_ind = true;
      } else if (c == '-' && followed_by_ws) {
        flow_ind = block_ind = true;
      }
    } else if (std::string_view(",?[]{}").find(c) != std::string_view::npos) {
      flow_ind = true;
    } else if (c == ':') {
      flow_ind = true;
      if (followed_by_ws) block_ind = true;
    } else if (c == '#' && preceded_by_ws) {
      flow_ind = block_ind = true;
    }
    if (flavor == Flavor::V3 && c == '\t')
      tabs = true;
    else if (!is_printable(v, i))
      special = true;  // the emitter allows unicode
    if (is_space(v, i)) {
      if (i == 0) leading_space = true;
      if (i + w == v.size()) trailing_space = true;
      if (prev_break) break_space = true;
      prev_space = true;
      prev_break = false;
    } else if (is_break(v, i)) {
      line_breaks = true;
      if (i == 0) leading_break = true;
      if (i + w == v.size()) trailing_break = true;
      if (prev_space) space_break = true;
      prev_space = false;
      prev_break = true;
    } else {
      prev_space = prev_break = false;
    }
    preceded_by_ws = is_blankz(v, i);
  }
  a.multiline = line_breaks;
  a.flow_plain_allowed = a.block_plain_allowed = a.single_quoted_allowed = a.block_allowed = true;
  if (leading_space || leading_break || trailing_space || trailing_break)
    a.flow_plain_allowed = a.block_plain_allowed = false;
  if (trailing_space) a.block_allowed = false;
  if (break_space) a.flow_plain_allowed = a.block_plain_allowed = a.single_quoted_allowed = false;
  if (space_break || tabs || special)
    a.flow_plain_allowed = a.block_plain_allowed = a.single_quoted_allowed = false;
  if (space_break || special) a.block_allowed = false;
  if (line_breaks) a.flow_plain_allowed = a.block_plain_allowed = false;
  if (flow_ind) a.flow_plain_allowed = false;
  if (block_ind) a.block_plain_allowed = false;
  return a;
}

enum class Style : uint8_t { Plain, Single, Double, Literal };

constexpr int k_best_indent = 2;

// go-yaml v2's emitter state for one document (emitterc.go), writing to `out`.
class Emitter {
 public:
  explicit Emitter(Flavor flavor) : m_v3(flavor == Flavor::V3), m_best_width(m_v3 ? INT_MAX : 80) {}
  std::string out;

  void document(const YNode& root) {
    node(root, true, false, false, false);
    write_indent();  // document end
  }

 private:
  bool m_v3;
  int m_best_width;  // v3 does not fold long lines unless asked to
  int m_column = 0;
  int m_indent = -1;
  std::vector<int> m_indents;
  bool m_whitespace = true;
  bool m_indention = true;
  int m_flow_level = 0;
  bool m_root = false, m_sequence = false, m_mapping = false, m_simple_key = false;

  Flavor flavor() const { return m_v3 ? Flavor::V3 : Flavor::V2; }
  void put(char c) {
    out += c;
    ++m_column;
  }
  void put_break() {
    out += '\n';
    m_column = 0;
    if (m_v3) m_indention = true;  // v3 sets it here instead of at each caller
  }
  // write(): one whole UTF-8 character, one column.
  void write(std::string_view s, size_t& i) {
    size_t w = std::max<size_t>(width(at(s, i)), 1);
    out.append(s.substr(i, w));
    ++m_column;
    i += w;
  }
  // write() of each character of s[i, end), a run from ascii_run().
  void write_run(std::string_view s, size_t& i, size_t end) {
    out.append(s.substr(i, end - i));
    m_column += static_cast<int>(end - i);
    i = end;
  }
  void write_break(std::string_view s, size_t& i) {
    if (s[i] == '\n') {
      put_break();
      ++i;
    } else {
      write(s, i);
      m_column = 0;
      if (m_v3) m_indention = true;
    }
  }
  void increase_indent(bool flow, bool indentless) {
    m_indents.push_back(m_indent);
    if (m_indent < 0)
      m_indent = flow ? k_best_indent : 0;
    else if (!indentless)
      m_indent += k_best_indent;
  }
  void pop_indent() {
    m_indent = m_indents.back();
    m_indents.pop_back();
  }
  void write_indent() {
    int indent = std::max(m_indent, 0);
    if (!m_indention || m_column > indent || (m_column == indent && !m_whitespace)) put_break();
    while (m_column < indent) put(' ');
    m_whitespace = true;
    if (!m_v3) m_indention = true;
  }
  void write_indicator(std::string_view ind, bool need_ws, bool is_ws, bool is_indention) {
    if (need_ws && !m_whitespace) put(' ');
    for (size_t i = 0; i < ind.size();) write(ind, i);
    m_whitespace = is_ws;
    m_indention = m_indention && is_indention;
  }

  void node(const YNode& n, bool root, bool sequence, bool mapping, bool simple_key) {
    m_root = root;
    m_sequence = sequence;
    m_mapping = mapping;
    m_simple_key = simple_key;
    switch (n.kind) {
      case YNode::Scalar: scalar(n.text, Style::Plain); return;
      case YNode::String: scalar(n.text, string_style(n.text)); return;
      case YNode::Tagged:
        write_indicator(n.tag, true, false, false);
        scalar(n.text, Style::Plain);
        return;
      case YNode::Seq:
        if (m_flow_level > 0 || n.items.empty())
          flow_empty("[", "]");
        else
          block_sequence(n);
        return;
      case YNode::Map:
        if (m_flow_level > 0 || n.items.empty())
          flow_empty("{", "}");
        else
          block_mapping(n);
        return;
    }
  }

  // encoder.stringv: literal for multi-line text, plain when it reads back as the same
  // string, else double-quoted.
  static Style string_style(const std::string& s) {
    if (s.find('\n') != std::string::npos) return Style::Literal;
    yaml::Resolved r = yaml::resolve_plain(s);
    if (r.kind == yaml::ScalarKind::Str && !yaml::is_base60_float(s)) return Style::Plain;
    return Style::Double;
  }

  void flow_empty(std::string_view open, std::string_view close) {
    write_indicator(open, true, true, false);
    increase_indent(true, false);
    pop_indent();
    write_indicator(close, false, false, false);
  }

  void block_sequence(const YNode& n) {
    // v2 writes a sequence that is a mapping value at the key's indentation; v3 indents it.
    increase_indent(false, !m_v3 && m_mapping && !m_indention);
    for (const YNode& item : n.items) {
      write_indent();
      write_indicator("-", true, false, true);
      node(item, false, true, false, false);
    }
    pop_indent();
  }

  void block_mapping(const YNode& n) {
    increase_indent(false, false);
    for (size_t i = 0; i < n.keys.size(); ++i) {
      const std::string& key = n.keys[i];
      const YNode& value = n.items[i];
      write_indent();
      YNode k{YNode::String, key, {}, {}};
      if (!analyze(key, flavor()).multiline && key.size() <= 128) {
        node(k, false, false, true, true);
        write_indicator(":", false, false, false);
      } else {
        write_indicator("?", true, false, true);
        node(k, false, false, true, false);
        write_indent();
        write_indicator(":", true, false, true);
      }
      node(value, false, false, true, false);
    }
    pop_indent();
  }

  // yaml_emitter_select_scalar_style.
  Style select_style(std::string_view v, Style style, const Analysis& a) const {
    if (m_simple_key && a.multiline) style = Style::Double;
    if (style == Style::Plain) {
      if ((m_flow_level > 0 && !a.flow_plain_allowed) ||
          (m_flow_level == 0 && !a.block_plain_allowed))
        style = Style::Single;
      if (v.empty() && (m_flow_level > 0 || m_simple_key)) style = Style::Single;
    }
    if (style == Style::Single && !a.single_quoted_allowed) style = Style::Double;
    if (style == Style::Literal && (!a.block_allowed || m_flow_level > 0 || m_simple_key))
      style = Style::Double;
    return style;
  }

  void scalar(std::string_view v, Style requested) {
    Style style = select_style(v, requested, analyze(v, flavor()));
    increase_indent(true, false);
    bool breaks_ok = !m_simple_key;
    switch (style) {
      case Style::Plain: plain(v, breaks_ok); break;
      case Style::Single: single_quoted(v, breaks_ok); break;
      case Style::Double: double_quoted(v, breaks_ok); break;
      case Style::Literal: literal(v); break;
    }
    pop_indent();
  }

  void plain(std::string_view v, bool allow_breaks) {
    if (!m_whitespace && !(m_v3 && v.empty())) put(' ');
    bool spaces = false, breaks = false;
    for (size_t i = 0; i < v.size();) {
      if (is_space(v, i)) {
        if (allow_breaks && !spaces && m_column > m_best_width && !is_space(v, i + 1)) {
          write_indent();
          ++i;
        } else {
          write(v, i);
        }
        spaces = true;
      } else if (is_break(v, i)) {
        if (!breaks && v[i] == '\n') put_break();
        write_break(v, i);
        if (!m_v3) m_indention = true;
        breaks = true;
      } else {
        if (breaks) write_indent();
        if (size_t end = ascii_run(v, i); end > i)
          write_run(v, i, end);
        else
          write(v, i);
        m_indention = false;
        spaces = breaks = false;
      }
    }
    if (!(m_v3 && v.empty())) m_whitespace = false;
    m_indention = false;
  }

  void single_quoted(std::string_view v, bool allow_breaks) {
    write_indicator("'", true, false, false);
    bool spaces = false, breaks = false;
    for (size_t i = 0; i < v.size();) {
      if (is_space(v, i)) {
        if (allow_breaks && !spaces && m_column > m_best_width && i > 0 && i < v.size() - 1 &&
            !is_space(v, i + 1)) {
          write_indent();
          ++i;
        } else {
          write(v, i);
        }
        spaces = true;
      } else if (is_break(v, i)) {
        if (!breaks && v[i] == '\n') put_break();
        write_break(v, i);
        if (!m_v3) m_indention = true;
        breaks = true;
      } else {
        if (breaks) write_indent();
        if (v[i] == '\'') put('\'');
        if (size_t end = ascii_run(v, i, "'"); end > i)
          write_run(v, i, end);
        else
          write(v, i);
        m_indention = false;
        spaces = breaks = false;
      }
    }
    write_indicator("'", false, false, false);
    m_whitespace = false;
    m_indention = false;
  }

  void escape(std::string_view v, size_t& i) {
    go::Rune r = go::decode_rune(v.substr(i));
    i += std::max<size_t>(r.width, 1);
    put('\\');
    switch (r.r) {
      case 0x00: put('0'); return;
      case 0x07: put('a'); return;
      case 0x08: put('b'); return;
      case 0x09: put('t'); return;
      case 0x0A: put('n'); return;
      case 0x0B: put('v'); return;
      case 0x0C: put('f'); return;
      case 0x0D: put('r'); return;
      case 0x1B: put('e'); return;
      case 0x22: put('"'); return;
      case 0x5C: put('\\'); return;
      case 0x85: put('N'); return;
      case 0xA0: put('_'); return;
      case 0x2028: put('L'); return;
      case 0x2029: put('P'); return;
      default: break;
    }
    int digits = r.r <= 0xFF ? 2 : r.r <= 0xFFFF ? 4 : 8;
    put(digits == 2 ? 'x' : digits == 4 ? 'u' : 'U');
    for (int k = (digits - 1) * 4; k >= 0; k -= 4) put("0123456789ABCDEF"[(r.r >> k) & 0xF]);
  }

  void double_quoted(std::string_view v, bool allow_breaks) {
    bool spaces = false;
    write_indicator("\"", true, false, false);
    for (size_t i = 0; i < v.size();) {
      if (!is_printable(v, i) || is_bom(v, i) || is_break(v, i) || v[i] == '"' || v[i] == '\\') {
        escape(v, i);
        spaces = false;
      } else if (is_space(v, i)) {
        if (allow_breaks && !spaces && m_column > m_best_width && i > 0 && i < v.size() - 1) {
          write_indent();
          if (is_space(v, i + 1)) put('\\');
          ++i;
        } else {
          write(v, i);
        }
        spaces = true;
      } else {
        if (size_t end = ascii_run(v, i, "\"\\"); end > i)
          write_run(v, i, end);
        else
          write(v, i);
        spaces = false;
      }
    }
    write_indicator("\"", false, false, false);
    m_whitespace = false;
    m_indention = false;
  }

  // yaml_emitter_write_block_scalar_hints: indentation and chomping indicators.
  void block_hints(std::string_view v) {
    if (is_space(v, 0) || is_break(v, 0)) {
      char hint[] = {static_cast<char>('0' + k_best_indent), 0};
      write_indicator(hint, false, false, false);
    }
    char chomp = 0;
    if (v.empty()) {
      chomp = '-';
    } else {
      size_t i = v.size() - 1;
      while ((at(v, i) & 0xC0) == 0x80) --i;
      if (!is_break(v, i)) {
        chomp = '-';
      } else if (i == 0) {
        chomp = '+';
      } else {
        --i;
        while ((at(v, i) & 0xC0) == 0x80) --i;
        if (is_break(v, i)) chomp = '+';
      }
    }
    if (chomp) write_indicator(std::string(1, chomp), false, false, false);
  }

  void literal(std::string_view v) {
    write_indicator("|", true, false, false);
    block_hints(v);
    if (!m_v3) {
      put_break();  // v3 leaves the line break to the first write_indent
      m_indention = true;
    }
    m_whitespace = true;
    bool breaks = true;
    for (size_t i = 0; i < v.size();) {
      if (is_break(v, i)) {
        write_break(v, i);
        if (!m_v3) m_indention = true;
        breaks = true;
      } else {
        if (breaks) write_indent();
        write(v, i);
        m_indention = false;
        breaks = false;
      }
    }
  }
};

}  // namespace

std::string emit_document(const YNode& root, Flavor flavor) {
  Emitter e(flavor);
  e.document(root);
  return std::move(e.out);
}

}  // namespace ejob::render::yaml::detail
