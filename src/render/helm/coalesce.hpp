#pragma once
/// Values coalescing (Helm's pkg/chartutil coalesce.go and dependencies.go, helm-template.md
/// §6). The rules, in the order they apply:
///
/// 1. User values: `-f` files merged left to right (deep for map∩map, later wins otherwise),
///    then *by flag type*: every --set-json, then --set, --set-string, --set-file,
///    --set-literal (see strvals.hpp). This is merge_user_values().
/// 2. Dependencies (process_dependencies): `condition`/`tags` disable subcharts (evaluated on
///    the coalesced values), `alias` renames a copy, then `import-values` copy child tables
///    into the parent's defaults (parent wins).
/// 3. coalesce_values(): user values are authoritative. A chart default whose key the user
///    did not set is copied; a user `null` deletes the key; user map over chart map recurses;
///    otherwise the user value wins whatever the types (type clashes only warn). Each
///    subchart's table is coalesced with its own defaults after the parent's `global` has been
///    merged into the subchart's `global` (parent wins).
///
/// Warnings go to a Warn sink with Helm's texts (`warning: skipped value for chart.key: Not a
/// table.`).

#include <functional>
#include <string>
#include <vector>

#include "src/render/go/value.hpp"
#include "src/render/helm/chart.hpp"
#include "src/render/helm/strvals.hpp"

namespace ejob::render::helm {

/// Where Helm's log.Printf warnings go.
using Warn = std::function<void(const std::string&)>;

/// Every user-supplied source of values, as the flags give them (order within a kind kept).
struct ValueSources {
  std::vector<std::string> files;        ///< -f/--values paths (`-` = stdin)
  std::vector<std::string> set;          ///< --set
  std::vector<std::string> set_string;   ///< --set-string
  std::vector<std::string> set_json;     ///< --set-json
  std::vector<std::string> set_file;     ///< --set-file
  std::vector<std::string> set_literal;  ///< --set-literal
};

/// Reads a file named on the command line (`-` = stdin); throws ejob::Error(Io) on failure.
using ReadFile = std::function<std::string(const std::string& path)>;

/// The user values of `sources` (step 1). `read` reads -f and --set-file paths. Throws
/// ejob::Error with Helm's texts: `failed to parse FILE: …`, `failed parsing --set data: …`,
/// `failed parsing --set-json data ARG`.
go::Map merge_user_values(const ValueSources& sources, const ReadFile& read);

/// Helm's mergeMaps for -f files: a new map, deep-merged where both sides are maps.
go::Map merge_maps(const go::Map& a, const go::Map& b);

/// CoalesceValues(chart, user) (merge = false) or MergeValues (merge = true: user nulls are
/// kept). Returns a new map; neither input is modified. Throws ejob::Error(Input)
/// `type mismatch on SUB: …` when a subchart's key holds a non-map.
go::Map coalesce_values(const Chart& chart, const go::Map& user, const Warn& warn,
                        bool merge = false);

/// coalesce_values(chart, user) for the release's values, the last use of the charts' values:
/// each chart's values are used up (left nil) where Helm copies them, unless the chart is
/// reached twice in the tree (alias copies share subcharts), whose values are copied as
/// before. The result is the same map.
go::Map coalesce_release_values(Chart& chart, const go::Map& user, const Warn& warn);

/// ProcessDependenciesWithMerge: enables/disables and renames subcharts of `chart` (in place,
/// recursively) according to conditions, tags and aliases evaluated on `user` values, then
/// imports child values into parents. `chart` should be a clone_tree() copy.
void process_dependencies(Chart& chart, const go::Map& user, const Warn& warn);

/// Helm's IsCompatibleRange(constraint, version) (Masterminds semver constraints: `1.2.3`,
/// `>= 1.2, < 2`, `^1.2`, `~1.2.3`, `1.2.x`, `*`, `||` alternatives). False when either
/// does not parse.
bool is_compatible_range(std::string_view constraint, std::string_view version);

}  // namespace ejob::render::helm
