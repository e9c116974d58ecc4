#pragma once
/// The renderer's I/O as the commands give it (render::helm::RenderIo): files from disk or
/// stdin, files written under --output-dir, schema documents over http(s) fetched as Helm's
/// HTTPURLLoader does (src/kubeapi/url_fetch), and Helm's --post-renderer.

#include <functional>
#include <string>
#include <vector>

#include "src/render/helm/render_chart.hpp"

namespace ejob::job {

/// The bytes of `path`, or of stdin for `-`; ejob::Error(Io) with Go's wording otherwise.
std::string read_input_file(const std::string& path);

/// Reads with read_input_file, writes and checks files on disk, fetches schema documents;
/// `warn` gets the renderer's warnings, one line each.
render::helm::RenderIo command_render_io(std::function<void(const std::string&)> warn);

/// Runs the manifests through Helm's --post-renderer `name` (looked up as find_post_renderer
/// does, so a bad name fails now) with `args`.
void add_post_renderer(render::helm::RenderIo& io, const std::string& name,
                       std::vector<std::string> args);

}  // namespace ejob::job
