#include "cli/man_page.hpp"

#include <catch2/catch.hpp>

namespace ejob::cli {
namespace {

TEST_CASE("roff_escape: backslashes, hyphens and a leading dot or quote print as written") {
  CHECK(roff_escape("--image IMG") == "\\-\\-image IMG");
  CHECK(roff_escape("a\\b") == "a\\eb");
  CHECK(roff_escape(".hidden\n'quoted\nplain .dot") == "\\&.hidden\n\\&'quoted\nplain .dot");
}

TEST_CASE("command_page: a title, the synopsis with positionals, an entry per visible option") {
  CLI::App app("top", "ejob");
  CLI::App* cmd = app.add_subcommand("run-it", "Run it");
  std::string file;
  std::string name;
  bool hidden = false;
  cmd->add_option("file", file, "The file");
  cmd->add_option("-n,--name", name, "A name")->required();
  cmd->add_flag("--secret", hidden, "Not shown")->group("");
  const std::string page = command_page(*cmd, "1.2.3");
  CHECK(page.starts_with(".TH EJOB-RUN-IT 1 \"\" \"ejob 1.2.3\" \"ejob manual\"\n"));
  CHECK(page.find("ejob\\-run\\-it \\- Run it\n") != std::string::npos);
  CHECK(page.find("\\fBejob run\\-it\\fR [\\fIOPTIONS\\fR] [\\fIfile\\fR]") != std::string::npos);
  CHECK(page.find(".TP\n\\fB\\-n,\\-\\-name\\fR TEXT REQUIRED\nA name\n") != std::string::npos);
  CHECK(page.find("secret") == std::string::npos);
}

}  // namespace
}  // namespace ejob::cli
