#pragma once
/// Where the user wrote a value: the job file's or an -f file's line and column (with the
/// source line, for the caret display), or the --set expression and the column in it. The
/// values themselves are read by the render layer, which keeps no positions; this reads the
/// same text again, only when an error is to be reported.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/render/helm/coalesce.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

/// One step of a key path: a map key, or a list index.
struct PathStep {
  std::string key;
  std::optional<std::size_t> index;
};
using ValuePath = std::vector<PathStep>;

/// `workers.max`, `scriptArgs[2]`.
std::string path_text(const ValuePath& path);

/// Point at the key itself or at its value.
enum class Part { Key, Value };

/// The locations of the keys of one job's values sources.
class ValueLocator {
 public:
  ValueLocator(render::helm::ValueSources sources, render::helm::ReadFile read);

  /// Where `path` is written in the YAML file `file` (one of the sources' files).
  [[nodiscard]] Location in_file(const std::string& file, const ValuePath& path, Part part) const;
  /// Where `path` (or the map or list holding it) is given by a --set* flag; the last one wins.
  [[nodiscard]] Location in_flags(const ValuePath& path, Part part) const;
  /// Where the value in effect for `path` was written: the flags, else the last file with it.
  /// Empty when no source gives it (a chart default).
  [[nodiscard]] Location in_effect(const ValuePath& path, Part part) const;

 private:
  /// Where `path` is in `file`, when the file can be read and has it.
  [[nodiscard]] std::optional<Location> find(const std::string& file, const ValuePath& path,
                                             Part part) const;

  render::helm::ValueSources m_sources;
  render::helm::ReadFile m_read;
};

/// A values.schema.json failure (render::helm::validate_values' report) pointed at where the
/// user wrote the first failing value: `FILE:LINE:COL: storage.data: missing property
/// 'mountPath' (the chart's values.schema.json)`, with how many more problems the report has.
/// nullopt when `e` is no such report or the value cannot be found in the user's sources (a
/// chart default, a problem at the top of the values).
std::optional<Error> locate_schema_error(const Error& e, const ValueLocator& locator);

}  // namespace ejob::job
