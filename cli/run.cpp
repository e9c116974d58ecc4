#include "ejob/cli/run.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <span>
#include <string_view>

#include "ejob/cli/commands.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {

namespace {

struct Trailing {
  std::vector<std::string> args;
  bool taken = false;
};

Trailing& trailing() {
  static Trailing t;
  return t;
}

/// The commands to build: only the one argv[1] names, when it names one (building every
/// subcommand's options costs more than rendering a small chart), else all of them (for the
/// top-level help, --version and errors about the command name).
std::span<const CommandRow> commands_for(int argc, char** argv) {
  if (argc > 1) {
    for (const CommandRow& row : k_commands)
      if (std::string_view(argv[1]) == row.name) return {&row, 1};
  }
  return k_commands;
}

}  // namespace

std::vector<std::string> take_trailing_args() {
  trailing().taken = true;
  return trailing().args;
}

int run(int argc, char** argv) {
  CLI::App app{"ejob: run elastic PyTorch training jobs on Kubernetes, or locally", "ejob"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ejob 0.1.0");
  for (const CommandRow& row : commands_for(argc, argv)) row.add(app);
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto dashes = std::find(args.begin(), args.end(), "--");
    if (dashes != args.end()) {
      trailing().args.assign(dashes + 1, args.end());
      args.erase(dashes, args.end());
    }
    std::reverse(args.begin(), args.end());  // CLI11 consumes a reversed vector
    app.parse(args);
    if (!trailing().args.empty() && !trailing().taken) {
      throw Error(ErrorCode::Usage, "this command takes no arguments after --");
    }
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
