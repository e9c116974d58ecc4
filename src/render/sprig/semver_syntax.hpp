#pragma once
/// The constraint syntax of Masterminds/semver v3.4.0, matched by hand. The library reads a
/// constraint with four regular expressions built from one version pattern (cvRegex, below);
/// compiling them with RE2 cost a million instructions, more than the rest of a small chart's
/// semver work and a sixth of its whole render. Each function here gives what its expression
/// gives under Go's leftmost-first rules, and semver_syntax_test.cpp holds the four expressions
/// verbatim and checks that they agree.
///
/// Why one left-to-right pass is enough: a version is `v?` then a run of [0-9|xX*], then
/// optional parts that each begin with their own character (`.`, `-`, `+`) not in the run
/// before it, so the greedy parse is the longest one and every other parse is a prefix of it.
/// Whatever follows a version in the expressions is a space, a comma, `-` after a space, or the
/// end, none of which a version holds; so where the greedy parse is not followed by what must
/// follow, no parse is, and the leftmost-first match is the greedy one. An operator is the run
/// of operator characters (=!<>~^) before the version: a shorter operator would leave one of
/// them where the version or a space must begin.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::render::sprig::semver_syntax {

/// The groups of cvRegex
/// `v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`
/// `(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` that parseConstraint reads: the whole match, the
/// major run, ".minor", ".patch" and "-prerelease" (each empty when absent).
struct VersionText {
  std::string_view whole, major, minor, patch, pre;
};

/// constraintRegex `^\s*(ops)\s*(cv)\s*$`'s groups: the operator (maybe empty) and the version.
struct ConstraintText {
  std::string_view op;
  VersionText version;
};

/// rewriteRange: each match of constraintRangeRegex `\s*(cv)\s+-\s+(cv)\s*` (ranges such as
/// `1.2 - 1.4`), found in the text as given, replaced in turn at its first occurrence by
/// `>= a, <= b ` (a trailing space, as 3.4.0 writes it).
std::string rewrite_ranges(std::string_view text);

/// validConstraintRegex: the whole text is constraints separated by spaces or commas
/// `^(\s*(ops)\s*(cv)\s*)((?:\s+|,\s*)(ops)\s*(cv)\s*)*$`.
bool is_valid_and_group(std::string_view text);

/// findConstraintRegex `(ops)\s*(cv)`'s FindAllString: the constraints of an AND group, each
/// with its operator and, where it has none, the spaces before it.
std::vector<std::string_view> find_constraints(std::string_view text);

/// constraintRegex's FindStringSubmatch: one constraint, or nothing when it is not one.
std::optional<ConstraintText> match_constraint(std::string_view text);

}  // namespace ejob::render::sprig::semver_syntax
