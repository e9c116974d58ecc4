#pragma once
/// Files compiled into the ejob binary (cmake/EjobEmbed.cmake): the default charts under
/// `charts/` and the `ejob init` scaffolding under `templates/`, so ejob works from any
/// directory without its source tree.

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "src/render/helm/chart.hpp"

namespace ejob::cli {

/// One embedded file: its path relative to the source root and its bytes.
struct EmbeddedFile {
  std::string_view path;
  std::string_view data;
};

/// The table the build generates (sorted by path).
extern const EmbeddedFile k_embedded[];
extern const std::size_t k_embedded_count;

/// Every embedded file.
std::span<const EmbeddedFile> embedded_files();

/// The files under `prefix` (e.g. `charts/elasticjob/`), with paths relative to it. Empty when
/// nothing is embedded there.
std::vector<render::helm::ChartFile> embedded_tree(std::string_view prefix);

/// The embedded chart `charts/<name>`, loaded. Throws ejob::Error(Internal) when missing.
render::helm::ChartPtr embedded_chart(std::string_view name);

}  // namespace ejob::cli
