/// `ejob docs --type man --dir DIR` (hidden, as Helm's `helm docs`): writes ejob.1 and
/// ejob-COMMAND.1 for every visible command from the definitions `--help` prints
/// (cli/man_page.hpp), so the two cannot drift. The build writes them into BUILD/man
/// (cli/CMakeLists.txt) and `cmake --install` puts them under share/man/man1.

#include <filesystem>
#include <fstream>
#include <memory>

#include "cli/commands.hpp"
#include "cli/man_page.hpp"
#include "cli/version.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {
namespace {

struct DocsFlags {
  std::string type = "man";
  std::string dir;
};

void write_page(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw Error(ErrorCode::Io, "write " + path.string() + ": cannot write file");
}

void write_man_pages(const DocsFlags& f) {
  const std::filesystem::path dir(f.dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(ErrorCode::Io, "mkdir " + f.dir + ": " + ec.message());
  const std::unique_ptr<CLI::App> app = make_app(k_commands);
  const std::string_view version = version_number();
  write_page(dir / "ejob.1", program_page(*app, version));
  for (const CLI::App* command : app->get_subcommands({}))
    if (is_listed(command))
      write_page(dir / ("ejob-" + command->get_name() + ".1"), command_page(*command, version));
}

}  // namespace

void register_docs(CLI::App& app) {
  auto flags = std::make_shared<DocsFlags>();
  CLI::App* cmd = app.add_subcommand("docs", "Write ejob's documentation files (internal)");
  cmd->group("");  // hidden from the help: the build runs it
  cmd->add_option("--type", flags->type, "The kind of documentation: man")
      ->check(CLI::IsMember({"man"}));
  cmd->add_option("--dir", flags->dir, "The folder to write into")->required();
  cmd->callback([flags] { write_man_pages(*flags); });
}

}  // namespace ejob::cli
