#pragma once
/// The two glob dialects Helm uses on chart paths:
/// - Go's path/filepath.Match for `.helmignore` rules and `--show-only`: `*` (never `/`),
///   `?`, `[...]` / `[^...]` classes with ranges, `\` escapes.
/// - gobwas/glob with `/` as separator for `.Files.Glob`: `*` (never `/`), `**` (anything),
///   `?`, `[...]` / `[!...]`, `{a,b}` alternatives, `\` escapes.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::render::helm {

/// filepath.Match(pattern, name). Throws ejob::Error(Input) `syntax error in pattern` for a
/// malformed pattern (Go's ErrBadPattern), also when the mismatch is found before the error.
bool filepath_match(std::string_view pattern, std::string_view name);

/// A filepath.Match pattern read once, for the many names it is matched against: each
/// .helmignore rule meets every path of the chart (~25 rules x 57 paths in argo-workflows),
/// and telling each time whether a rule has metacharacters cost more than the matching.
class FilepathPattern {
 public:
  explicit FilepathPattern(std::string pattern);
  /// filepath_match(pattern, name), with its error.
  [[nodiscard]] bool matches(std::string_view name) const;

 private:
  /// Literal: no metacharacter, matches itself only. StarLiteral: `*` then a literal without
  /// `/`, matches the names without `/` that end in the literal. Glob: the rest.
  enum class Form : uint8_t { Literal, StarLiteral, Glob };
  std::string m_pattern;
  Form m_form;
};

/// The last element of a chart path: what follows its last `/` (the whole path without one).
inline std::string base_name(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

/// A compiled gobwas/glob pattern with separator `/`.
class Glob {
 public:
  /// Compiles `pattern`; throws ejob::Error(Input) on an unclosed `[` or `{` (Helm then
  /// falls back to `**`, see compile_or_all).
  static Glob compile(std::string_view pattern);
  /// Helm's Files.Glob rule: the pattern, or `**` (match everything) when it does not compile.
  static Glob compile_or_all(std::string_view pattern);
  /// True if the whole of `name` matches.
  [[nodiscard]] bool match(std::string_view name) const;

  struct Node;  ///< parsed pattern element (glob.cpp)
 private:
  std::shared_ptr<const std::vector<Node>> m_nodes;
};

}  // namespace ejob::render::helm
