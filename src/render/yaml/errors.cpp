#include "src/render/yaml/errors.hpp"

#include <algorithm>
#include <cctype>

namespace ejob::render::yaml {
namespace {

// The 0-based line of libyaml's stream end: a last line without a newline still counts.
int eof_line(std::string_view text) {
  int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  return !text.empty() && text.back() != '\n' ? lines + 1 : lines;
}

// A line without its comment (a `#` at its start or after a blank) and trailing blanks.
std::string_view code_of(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      line = line.substr(0, i);
      break;
    }
  }
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r'))
    line.remove_suffix(1);
  return line;
}

// The last character before `end` that is neither blank nor comment; 0 when there is none.
char last_significant(std::string_view text, size_t end) {
  std::string_view rest = text.substr(0, std::min(end, text.size()));
  while (!rest.empty()) {
    size_t nl = rest.rfind('\n');
    size_t start = nl == std::string_view::npos ? 0 : nl + 1;
    std::string_view code = code_of(rest.substr(start));
    if (!code.empty()) return code.back();
    if (nl == std::string_view::npos) break;
    rest = rest.substr(0, nl);
  }
  return 0;
}

// The text of 0-based line `n` (without its newline); empty past the end.
std::string_view line_at(std::string_view text, int n) {
  size_t start = 0;
  for (int i = 0; i < n; ++i) {
    start = text.find('\n', start);
    if (start == std::string_view::npos) return {};
    ++start;
  }
  size_t end = text.find('\n', start);
  return text.substr(start, end == std::string_view::npos ? end : end - start);
}

size_t indent_of(std::string_view line) {
  size_t i = line.find_first_not_of(' ');
  return i == std::string_view::npos ? line.size() : i;
}

// Whether a line before `line0` holds a key at column `indent` of the same block mapping.
bool has_sibling_key(std::string_view text, int line0, size_t indent) {
  for (int n = line0 - 1; n >= 0; --n) {
    std::string_view line = code_of(line_at(text, n));
    if (indent_of(line) == line.size()) continue;
    if (indent_of(line) < indent) return false;
    if (indent_of(line) == indent) return line.find(':') != std::string_view::npos;
  }
  return false;
}

// go-yaml's scanner reports `could not find expected ':'` when a block key that starts at the
// mapping's indentation runs on from an earlier line: `b` then `c: 1` at the same column.
bool key_runs_on(std::string_view text, int line0) {
  std::string_view here = code_of(line_at(text, line0));
  size_t colon = here.find(": ");
  if (colon == std::string_view::npos && here.ends_with(':')) colon = here.size() - 1;
  if (colon == std::string_view::npos) return false;
  for (int n = line0 - 1; n >= 0; --n) {
    std::string_view prev = code_of(line_at(text, n));
    if (indent_of(prev) == prev.size()) continue;  // blank or comment-only
    std::string_view body = prev.substr(indent_of(prev));
    if (indent_of(prev) != indent_of(here) || body.find(':') != std::string_view::npos)
      return false;
    if (std::string_view("-?[{'\"!&*|>%@`").find(body.front()) != std::string_view::npos)
      return false;
    return has_sibling_key(text, n, indent_of(prev));
  }
  return false;
}

// go-yaml's prefix: scanner errors name the 1-based line, parser errors the 0-based one, and
// a 0-based line 0 is left out.
std::string at_line(std::string_view text, int line0, bool scanner) {
  if (line0 <= 0) return std::string(text);
  return "line " + std::to_string(scanner ? line0 + 1 : line0) + ": " + std::string(text);
}

std::string with_line(std::string_view text, int line) {
  if (line <= 0) return std::string(text);
  return "line " + std::to_string(line) + ": " + std::string(text);
}

// What go-yaml's parser wanted when a `]`/`}` starts a line of a block collection: the next
// key, or the next `-` entry when the previous line at that indentation is one.
std::string msg_for_flow_end(std::string_view text, int line0) {
  size_t indent = indent_of(line_at(text, line0));
  for (int n = line0 - 1; n >= 0; --n) {
    std::string_view line = code_of(line_at(text, n));
    if (indent_of(line) == line.size() || indent_of(line) > indent) continue;
    if (line.substr(indent_of(line)).starts_with("- ") || line.substr(indent_of(line)) == "-")
      return "did not find expected '-' indicator";
    break;
  }
  return "did not find expected key";
}

}  // namespace

std::string go_reader_error(std::string_view text, size_t& offset) {
  if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) return {};
  for (size_t i = 0; i < text.size();) {
    offset = i;
    auto b = static_cast<unsigned char>(text[i]);
    if (b >= 0x20 && b <= 0x7E) {  // printable ASCII, nearly every byte of a chart
      ++i;
      continue;
    }
    size_t width = (b & 0x80) == 0      ? 1
                   : (b & 0xE0) == 0xC0 ? 2
                   : (b & 0xF0) == 0xE0 ? 3
                   : (b & 0xF8) == 0xF0 ? 4
                                        : 0;
    if (width == 0) return "invalid leading UTF-8 octet";
    if (width > text.size() - i) return "incomplete UTF-8 octet sequence";
    char32_t value = width == 1 ? b : width == 2 ? b & 0x1F : width == 3 ? b & 0x0F : b & 0x07;
    for (size_t k = 1; k < width; ++k) {
      auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return "invalid trailing UTF-8 octet";
      value = (value << 6) | (c & 0x3F);
    }
    if ((width == 2 && value < 0x80) || (width == 3 && value < 0x800) ||
        (width == 4 && value < 0x10000))
      return "invalid length of a UTF-8 sequence";
    if ((value >= 0xD800 && value <= 0xDFFF) || value > 0x10FFFF)
      return "invalid Unicode character";
    bool allowed = value == 0x09 || value == 0x0A || value == 0x0D ||
                   (value >= 0x20 && value <= 0x7E) || value == 0x85 ||
                   (value >= 0xA0 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0xFFFD) ||
                   value >= 0x10000;
    if (!allowed) return "control characters are not allowed";
    i += width;
  }
  return {};
}

std::string go_directive_error(std::string_view text, int& line0) {
  // the document's first token is a flow indicator that cannot start a node
  for (int n = 0;; ++n) {
    std::string_view code = code_of(line_at(text, n));
    if (code.find_first_not_of(" \t") == std::string_view::npos) {
      if (text.find('\n') == std::string_view::npos ||
          n > std::count(text.begin(), text.end(), '\n'))
        break;
      continue;
    }
    char first = code[code.find_first_not_of(" \t")];
    if (first == ',' || first == ']' || first == '}') {
      line0 = n;
      return at_line("did not find expected node content", n, false);
    }
    break;
  }
  int line = 0;
  bool content = false;  // go-yaml reads the first document only: stop at the next marker
  for (size_t start = 0; start <= text.size(); ++line) {
    size_t nl = text.find('\n', start);
    std::string_view l = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    bool marker = (l.starts_with("---") || l.starts_with("...")) &&
                  (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker && content) return {};
    if (!l.starts_with('%') && !code_of(l).empty()) content = true;
    if (l.starts_with('%')) {
      std::string_view before = text.substr(0, start);
      if (before.find_first_of("'\"|>") != std::string_view::npos) return {};
      size_t i = 1;
      while (i < l.size() &&
             (std::isalnum(static_cast<unsigned char>(l[i])) != 0 || l[i] == '_' || l[i] == '-'))
        ++i;
      std::string_view name = l.substr(1, i - 1);
      line0 = line;
      if (name.empty()) return at_line("could not find expected directive name", line, true);
      if (i < l.size() && l[i] != ' ' && l[i] != '\t' && l[i] != '\r')
        return at_line("found unexpected non-alphabetical character", line, true);
      if (name != "YAML" && name != "TAG")
        return at_line("found unknown directive name", line, true);
      return {};
    }
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return {};
}

std::string go_syntax_message(std::string_view text, const std::string& msg, int line0, int pos) {
  struct Pair {
    std::string_view cpp, go;
    bool scanner;
  };
  static constexpr Pair k_map[] = {
      {"illegal map value", "mapping values are not allowed in this context", true},
      {"end of map not found", "did not find expected key", false},
      {"end of sequence not found", "did not find expected '-' indicator", false},
      {"end of map flow not found", "did not find expected ',' or '}'", false},
      {"end of sequence flow not found", "did not find expected ',' or ']'", false},
      {"illegal block entry", "block sequence entries are not allowed in this context", true},
      {"illegal tab when looking for indentation", "found character that cannot start any token",
       true},
      {"unknown token", "found character that cannot start any token", true},
      {"illegal EOF in scalar", "found unexpected end of stream", true},
      {"the referenced anchor is not defined", "unknown anchor referenced", false},
  };
  size_t at = pos < 0 ? text.size() : static_cast<size_t>(pos);
  bool flow_end = msg == "end of map flow not found" || msg == "end of sequence flow not found";
  // A `:` at the end of input inside a flow collection: go-yaml still wants the value's node.
  bool flow_colon = msg == "unknown token" && at + 1 >= text.size() && at < text.size() &&
                    text[at] == ':' && text.find_first_of("[{") != std::string_view::npos;
  if (flow_end || flow_colon) {
    // go-yaml's parser names the token where the collection went wrong: the stream end, or
    // the first one it could not take; after `[`, `{`, `,` or `:` it wanted a node.
    int line = at >= text.size() || flow_colon ? eof_line(text) : line0;
    char before = flow_colon ? ':' : last_significant(text, at);
    if (std::string_view("[{,:").find(before) != std::string_view::npos && before != 0)
      return with_line("did not find expected node content", line);
    return with_line(msg == "end of map flow not found" ? "did not find expected ',' or '}'"
                                                        : "did not find expected ',' or ']'",
                     line);
  }
  // A flow indicator (`,` `]` `}`) where a block node starts: go-yaml's scanner makes it a
  // flow token, and the parser wanted the node after `:`, `-` or `?` (or at the start).
  bool flow_token = at < text.size() && (text[at] == ',' || text[at] == ']' || text[at] == '}');
  bool block_end = msg == "end of map not found" || msg == "end of sequence not found" ||
                   msg == "illegal flow end";
  if (flow_token && block_end) {
    char before = last_significant(text, at);
    if (before == 0 || before == ':' || before == '-' || before == '?')
      return at_line("did not find expected node content", line0, false);
    if (msg == "illegal flow end") return at_line(msg_for_flow_end(text, line0), line0, false);
  }
  if (msg == "illegal map value" && key_runs_on(text, line0))
    return at_line("could not find expected ':'", line0, true);
  for (const auto& p : k_map) {
    if (msg == p.cpp) return at_line(p.go, line0, p.scanner);
  }
  return at_line(msg, line0, true);
}

}  // namespace ejob::render::yaml
