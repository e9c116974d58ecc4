#pragma once
/// Masterminds/semver v3.4.0, as Helm v3.21 links it: version parsing (NewVersion,
/// "semver-ish" input such as `v1.2` accepted), ordering (Compare: build metadata ignored,
/// prereleases below releases, numeric prerelease parts compared numerically) and constraint
/// checking (NewConstraint/Check: `||` alternatives, `,`/space conjunctions, `=`, `!=`, `>`,
/// `<`, `>=`, `<=`, `~`, `~>`, `^`, `x`/`*` wildcards, `a - b` ranges; a prerelease version
/// satisfies an AND group only when some constraint of the group names a prerelease). Error texts
/// are the library's (`invalid semantic version`, `improper constraint: abc`); 3.2.0, which the
/// differential oracle links, capitalized them and decided prereleases per constraint.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::render::sprig {

/// A parsed version.
struct SemVersion {
  uint64_t major = 0;
  uint64_t minor = 0;
  uint64_t patch = 0;
  std::string pre;
  std::string metadata;
  std::string original;

  /// semver.NewVersion; throws SemverError with the library's message.
  static SemVersion parse(std::string_view text);
  /// "1.2.3-pre+meta" (no leading v).
  [[nodiscard]] std::string str() const;
  /// -1, 0 or 1.
  [[nodiscard]] int compare(const SemVersion& o) const;
};

/// A semver parse error; `what` is the library's message.
struct SemverError {
  std::string what;
};

/// A parsed constraint set (`>= 1.2, < 2 || 3.x`).
class SemConstraints {
 public:
  /// semver.NewConstraint; throws SemverError.
  static SemConstraints parse(std::string_view text);
  /// Constraints.Check.
  [[nodiscard]] bool check(const SemVersion& v) const;

  struct Constraint {
    SemVersion con;
    std::string op;
    bool dirty = false;
    bool minor_dirty = false;
    bool patch_dirty = false;
  };

 private:
  std::vector<std::vector<Constraint>> m_alternatives;
};

}  // namespace ejob::render::sprig
