/// `ejob local-supervisor DIR` (hidden): the detached process that runs one local job; started
/// by `ejob submit --local`, never by hand (src/local/supervisor.hpp).

#include "cli/commands.hpp"
#include "src/job/local_backend.hpp"

namespace ejob::cli {

void register_local_supervisor(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("local-supervisor", "Run one local job (internal)");
  cmd->group("");  // hidden from the help: submit --local starts it
  cmd->add_option("dir", *dir, "The job's state folder")->required();
  cmd->callback([dir] {
    const int status = job::run_local_supervisor(*dir);
    if (status != 0) std::exit(status);
  });
}

}  // namespace ejob::cli
