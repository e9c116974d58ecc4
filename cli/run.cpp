#include "ejob/cli/run.hpp"

#include <cstdio>
#include <iostream>

#include "ejob/cli/commands.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

int run(int argc, char** argv) {
  CLI::App app{"ejob: run elastic PyTorch training jobs on Kubernetes, or locally"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ejob 0.1.0");
  for (const CommandRow& row : k_commands) row.add(app);
  try {
    app.parse(argc, argv);
    return 0;
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cout.flush();
    std::cerr << format_error(Error(ErrorCode::Usage, e.what()));
    return exit_code(ErrorCode::Usage);
  } catch (const Error& e) {
    std::cout.flush();
    std::cerr << format_error(e);
    return exit_code(e.code());
  }
}

}  // namespace ejob::cli
