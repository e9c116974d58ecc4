#include "cli/embedded.hpp"

#include <string>

#include "src/util/error.hpp"

namespace ejob::cli {

std::span<const EmbeddedFile> embedded_files() { return {k_embedded, k_embedded_count}; }

std::vector<render::helm::ChartFile> embedded_tree(std::string_view prefix) {
  std::vector<render::helm::ChartFile> out;
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path.substr(0, prefix.size()) == prefix) {
      out.push_back({std::string(f.path.substr(prefix.size())), std::string(f.data)});
    }
  }
  return out;
}

render::helm::ChartPtr embedded_chart(std::string_view name) {
  std::string prefix = "charts/" + std::string(name) + "/";
  std::vector<render::helm::ChartFile> files = embedded_tree(prefix);
  if (files.empty()) {
    throw Error(ErrorCode::Internal, "the embedded chart " + std::string(name) + " is missing");
  }
  return render::helm::load_chart_files(std::move(files), std::string(name));
}

}  // namespace ejob::cli
