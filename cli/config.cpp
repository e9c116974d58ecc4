/// `ejob config view`: the team config in effect (src/job/team_config.hpp) — each key's value
/// and where it came from (the file and line, or ejob's default), after the files looked for.

#include <iostream>

#include "cli/commands.hpp"
#include "src/job/job_table.hpp"
#include "src/job/team_config.hpp"

namespace ejob::cli {
namespace {

void run_config_view() {
  const std::vector<std::string> files = job::team_config_files();
  const job::TeamConfig config = job::load_team_config(files);
  for (const std::string& file : files) std::cout << "# " << file << '\n';
  if (files.empty())
    std::cout << "# no file: neither EJOB_CONFIG, XDG_CONFIG_HOME nor HOME is set\n";
  std::vector<job::Row> rows = {{"KEY", "VALUE", "SOURCE"}};
  for (const job::TeamConfigLine& l : job::team_config_view(config))
    rows.push_back({l.key, l.value, l.source});
  std::cout << job::format_table(rows);
}

}  // namespace

void register_config(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "config", "A team's defaults ($EJOB_CONFIG, else $XDG_CONFIG_HOME/ejob/config.yaml)");
  cmd->require_subcommand(1);
  CLI::App* view = cmd->add_subcommand(
      "view",
      "Show the team config in effect: each key's value and the file and line it came from");
  view->callback([] { run_config_view(); });
}

}  // namespace ejob::cli
