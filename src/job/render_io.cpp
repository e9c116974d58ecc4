#include "src/job/render_io.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "src/job/post_renderer.hpp"
#include "src/kubeapi/url_fetch.hpp"
#include "src/render/go/unicode.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

namespace fs = std::filesystem;

void write_output(const std::string& path, const std::string& content, bool append) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream out(path,
                    append ? std::ios::binary | std::ios::app : std::ios::binary | std::ios::trunc);
  if (!out) throw Error(ErrorCode::Io, "open " + path + ": cannot write file");
  out << content;
}

}  // namespace

std::string read_input_file(const std::string& path) {
  std::ostringstream text;
  if (render::go::unicode::trim_space(path) == "-") {
    text << std::cin.rdbuf();
    return text.str();
  }
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw Error(ErrorCode::Io, "read " + path + ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::Io, "open " + path + ": no such file or directory");
  text << in.rdbuf();
  return text.str();
}

render::helm::RenderIo command_render_io(std::function<void(const std::string&)> warn) {
  render::helm::RenderIo io;
  io.read = read_input_file;
  io.write = write_output;
  io.exists = [](const std::string& p) {
    std::error_code ec;
    return fs::exists(p, ec);
  };
  io.warn = std::move(warn);
  io.fetch_url = [](const std::string& url) { return kubeapi::fetch_url(url); };
  return io;
}

void add_post_renderer(render::helm::RenderIo& io, const std::string& name,
                       std::vector<std::string> args) {
  io.post_render = [binary = find_post_renderer(name), args = std::move(args)](
                       const std::string& text) { return run_post_renderer(binary, args, text); };
}

}  // namespace ejob::job
