#include "ejob/render/yaml_errors.hpp"

#include <algorithm>

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

}  // namespace

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
  if (msg == "illegal map value" && key_runs_on(text, line0))
    return at_line("could not find expected ':'", line0, true);
  for (const auto& p : k_map) {
    if (msg == p.cpp) return at_line(p.go, line0, p.scanner);
  }
  return at_line(msg, line0, true);
}

}  // namespace ejob::render::yaml
