// `ejob init [DIR]`: writes the starter files of a new training project — a job file, a
// worker Dockerfile with ejob-agent as its entrypoint and an elastic training script that
// checkpoints and resumes — from the scaffolding embedded from templates/init/.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/embedded.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view k_prefix = "templates/init/";

/// Refuses to overwrite: a user's edited train.py is worth more than our skeleton.
void check_free(const fs::path& dir, const std::vector<render::helm::ChartFile>& files) {
  for (const render::helm::ChartFile& f : files) {
    fs::path target = dir / f.name;
    if (fs::exists(target)) {
      throw Error(ErrorCode::Conflict, target.string() +
                                           " already exists; ejob init writes only new files (pick "
                                           "another directory or move it away)");
    }
  }
}

void write_file(const fs::path& target, const std::string& data) {
  std::ofstream out(target, std::ios::binary);
  out << data;
  out.close();
  if (!out) throw Error(ErrorCode::Io, "cannot write " + target.string());
}

void run_init(const std::string& dir_text) {
  fs::path dir(dir_text);
  std::vector<render::helm::ChartFile> files = embedded_tree(k_prefix);
  check_free(dir, files);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::Io, "cannot create " + dir.string() + ": " + ec.message());
  for (const render::helm::ChartFile& f : files) {
    write_file(dir / f.name, f.data);
    std::cout << "wrote " << (dir / f.name).string() << "\n";
  }
  std::cout << "next: build and push the image (see " << (dir / "Dockerfile").string()
            << "), set image: in " << (dir / "job.yaml").string() << ", then `ejob submit "
            << (dir / "job.yaml").string() << "`\n";
}

}  // namespace

void register_init(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "init", "Write a starter job file, worker Dockerfile and elastic training script");
  auto dir = std::make_shared<std::string>(".");
  cmd->add_option("dir", *dir, "Directory to write into (created if missing)");
  cmd->callback([dir] { run_init(*dir); });
}

}  // namespace ejob::cli
