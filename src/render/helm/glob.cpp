#include "src/render/helm/glob.hpp"

#include "src/render/go/strconv.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

namespace {

[[noreturn]] void bad_pattern() { throw Error(ErrorCode::Input, "syntax error in pattern"); }

// ---- filepath.Match ----------------------------------------------------------------------

/// Splits off the leading stars and the chunk up to the next star outside a class.
void scan_chunk(std::string_view& pattern, bool& star, std::string_view& chunk) {
  star = false;
  while (!pattern.empty() && pattern[0] == '*') {
    pattern.remove_prefix(1);
    star = true;
  }
  bool in_range = false;
  size_t i = 0;
  for (; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size()) ++i;
    } else if (c == '[') {
      in_range = true;
    } else if (c == ']') {
      in_range = false;
    } else if (c == '*' && !in_range) {
      break;
    }
  }
  chunk = pattern.substr(0, i);
  pattern.remove_prefix(i);
}

/// One class endpoint (getEsc).
char32_t get_esc(std::string_view& chunk) {
  if (chunk.empty() || chunk[0] == '-' || chunk[0] == ']') bad_pattern();
  if (chunk[0] == '\\') {
    chunk.remove_prefix(1);
    if (chunk.empty()) bad_pattern();
  }
  go::Rune r = go::decode_rune(chunk);
  if (r.r == go::k_rune_error && r.width == 1) bad_pattern();
  chunk.remove_prefix(r.width);
  if (chunk.empty()) bad_pattern();
  return r.r;
}

/// matchChunk: consumes `chunk` against the start of `s`; false on mismatch.
bool match_chunk(std::string_view chunk, std::string_view s, std::string_view& rest) {
  bool failed = false;
  while (!chunk.empty()) {
    if (!failed && s.empty()) failed = true;
    char c = chunk[0];
    if (c == '[') {
      char32_t r = 0;
      if (!failed) {
        go::Rune d = go::decode_rune(s);
        r = d.r;
        s.remove_prefix(d.width);
      }
      chunk.remove_prefix(1);
      bool negated = !chunk.empty() && chunk[0] == '^';
      if (negated) chunk.remove_prefix(1);
      bool match = false;
      for (int n = 0;; ++n) {
        if (!chunk.empty() && chunk[0] == ']' && n > 0) {
          chunk.remove_prefix(1);
          break;
        }
        char32_t lo = get_esc(chunk);
        char32_t hi = lo;
        if (chunk[0] == '-') {
          chunk.remove_prefix(1);
          hi = get_esc(chunk);
        }
        if (lo <= r && r <= hi) match = true;
      }
      if (match == negated) failed = true;
    } else if (c == '?') {
      if (!failed) {
        if (s[0] == '/') failed = true;
        s.remove_prefix(go::decode_rune(s).width);
      }
      chunk.remove_prefix(1);
    } else {
      if (c == '\\') {
        chunk.remove_prefix(1);
        if (chunk.empty()) bad_pattern();
      }
      if (!failed) {
        if (chunk[0] != s[0]) failed = true;
        s.remove_prefix(1);
      }
      chunk.remove_prefix(1);
    }
  }
  if (failed) return false;
  rest = s;
  return true;
}

bool match_star_chunk(std::string_view chunk, std::string_view pattern, std::string_view& name) {
  for (size_t i = 0; i < name.size() && name[i] != '/'; ++i) {
    std::string_view t;
    if (match_chunk(chunk, name.substr(i + 1), t)) {
      if (pattern.empty() && !t.empty()) continue;
      name = t;
      return true;
    }
  }
  return false;
}

/// filepath.Match's own loop, for patterns of any form.
bool match_chunks(std::string_view pattern, std::string_view name) {
  while (!pattern.empty()) {
    bool star = false;
    std::string_view chunk;
    scan_chunk(pattern, star, chunk);
    if (star && chunk.empty()) return name.find('/') == std::string_view::npos;
    std::string_view t;
    bool ok = match_chunk(chunk, name, t);
    if (ok && (t.empty() || !pattern.empty())) {
      name = t;
      continue;
    }
    if (star && match_star_chunk(chunk, pattern, name)) continue;
    // Before answering no, check that the rest of the pattern is well formed.
    while (!pattern.empty()) {
      scan_chunk(pattern, star, chunk);
      std::string_view ignored;
      match_chunk(chunk, "", ignored);
    }
    return false;
  }
  return name.empty();
}

}  // namespace

// The two fast forms give Go's answers: a pattern without metacharacters matches itself only;
// `*` and a literal without '/' match the names without '/' that end in the literal.
FilepathPattern::FilepathPattern(std::string pattern) : m_pattern(std::move(pattern)) {
  constexpr std::string_view k_meta = "*?[\\";
  const std::string_view p = m_pattern;
  if (p.find_first_of(k_meta) == std::string_view::npos) {
    m_form = Form::Literal;
  } else if (p[0] == '*' && p.find_first_of(k_meta, 1) == std::string_view::npos &&
             p.find('/') == std::string_view::npos) {
    m_form = Form::StarLiteral;
  } else {
    m_form = Form::Glob;
  }
}

bool FilepathPattern::matches(std::string_view name) const {
  switch (m_form) {
    case Form::Literal: return name == m_pattern;
    case Form::StarLiteral: {
      const std::string_view literal = std::string_view(m_pattern).substr(1);
      return name.ends_with(literal) &&
             name.substr(0, name.size() - literal.size()).find('/') == std::string_view::npos;
    }
    case Form::Glob: break;
  }
  return match_chunks(m_pattern, name);
}

bool filepath_match(std::string_view pattern, std::string_view name) {
  return FilepathPattern(std::string(pattern)).matches(name);
}

/// One element of a gobwas pattern.
struct Glob::Node {
  enum class Kind { Text, Single, Any, Super, Class, Alt } kind = Kind::Text;
  std::string text;                                   ///< Text: the literal bytes
  bool negated = false;                               ///< Class
  std::vector<std::pair<char32_t, char32_t>> ranges;  ///< Class
  std::vector<std::vector<Node>> alts;                ///< Alt
};

// ---- gobwas/glob ---------------------------------------------------------------------------
namespace {

using Node = Glob::Node;

class GlobParser {
 public:
  explicit GlobParser(std::string_view s) : m_s(s) {}

  /// Parses a sequence; inside braces it stops at `,` or `}`.
  std::vector<Node> sequence(bool in_alt) {
    std::vector<Node> out;
    while (m_pos < m_s.size()) {
      char c = m_s[m_pos];
      if (in_alt && (c == ',' || c == '}')) return out;
      if (c == '*') {
        bool super = m_pos + 1 < m_s.size() && m_s[m_pos + 1] == '*';
        m_pos += super ? 2 : 1;
        out.push_back({super ? Node::Kind::Super : Node::Kind::Any});
      } else if (c == '?') {
        ++m_pos;
        out.push_back({Node::Kind::Single});
      } else if (c == '[') {
        out.push_back(char_class());
      } else if (c == '{') {
        out.push_back(alternatives());
      } else {
        if (c == '\\' && m_pos + 1 < m_s.size()) ++m_pos;
        go::Rune r = go::decode_rune(m_s.substr(m_pos));
        size_t w = r.width == 0 ? 1 : r.width;
        if (out.empty() || out.back().kind != Node::Kind::Text) out.push_back({});
        out.back().text.append(m_s.substr(m_pos, w));
        m_pos += w;
      }
    }
    if (in_alt) throw Error(ErrorCode::Input, "unexpected end of input");
    return out;
  }

 private:
  char32_t rune() {
    go::Rune r = go::decode_rune(m_s.substr(m_pos));
    m_pos += r.width == 0 ? 1 : r.width;
    return r.r;
  }

  Node char_class() {
    ++m_pos;
    Node n{Node::Kind::Class};
    if (m_pos < m_s.size() && m_s[m_pos] == '!') {
      n.negated = true;
      ++m_pos;
    }
    while (true) {
      if (m_pos >= m_s.size()) throw Error(ErrorCode::Input, "unexpected end of input");
      if (m_s[m_pos] == ']') {
        ++m_pos;
        return n;
      }
      if (m_s[m_pos] == '\\') ++m_pos;
      char32_t lo = rune();
      char32_t hi = lo;
      if (m_pos + 1 < m_s.size() && m_s[m_pos] == '-' && m_s[m_pos + 1] != ']') {
        ++m_pos;
        hi = rune();
      }
      n.ranges.emplace_back(lo, hi);
    }
  }

  Node alternatives() {
    ++m_pos;
    Node n{Node::Kind::Alt};
    while (true) {
      n.alts.push_back(sequence(true));
      char c = m_s[m_pos++];
      if (c == '}') return n;
    }
  }

  std::string_view m_s;
  size_t m_pos = 0;
};

bool match_nodes(const std::vector<Node>& nodes, size_t i, std::string_view s) {
  if (i == nodes.size()) return s.empty();
  const Node& n = nodes[i];
  switch (n.kind) {
    case Node::Kind::Text:
      return s.starts_with(n.text) && match_nodes(nodes, i + 1, s.substr(n.text.size()));
    case Node::Kind::Single: {
      if (s.empty() || s[0] == '/') return false;
      return match_nodes(nodes, i + 1, s.substr(go::decode_rune(s).width));
    }
    case Node::Kind::Class: {
      if (s.empty()) return false;
      go::Rune r = go::decode_rune(s);
      bool in = false;
      for (auto [lo, hi] : n.ranges) in = in || (lo <= r.r && r.r <= hi);
      return in != n.negated && match_nodes(nodes, i + 1, s.substr(r.width));
    }
    case Node::Kind::Any:
    case Node::Kind::Super:
      for (size_t k = 0;; ++k) {
        if (match_nodes(nodes, i + 1, s.substr(k))) return true;
        if (k >= s.size() || (n.kind == Node::Kind::Any && s[k] == '/')) return false;
      }
    case Node::Kind::Alt:
      for (const auto& alt : n.alts) {
        std::vector<Node> joined(alt);
        joined.insert(joined.end(), nodes.begin() + static_cast<long>(i) + 1, nodes.end());
        if (match_nodes(joined, 0, s)) return true;
      }
      return false;
  }
  return false;
}

}  // namespace

Glob Glob::compile(std::string_view pattern) {
  Glob g;
  g.m_nodes = std::make_shared<const std::vector<Node>>(GlobParser(pattern).sequence(false));
  return g;
}

Glob Glob::compile_or_all(std::string_view pattern) {
  try {
    return compile(pattern);
  } catch (const Error&) {
    return compile("**");
  }
}

bool Glob::match(std::string_view name) const { return match_nodes(*m_nodes, 0, name); }

}  // namespace ejob::render::helm
