#include "cli/run.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <regex>
#include <span>
#include <string_view>

#include "cli/commands.hpp"
#include "cli/version.hpp"
#include "src/util/error.hpp"
#include "src/util/spelling.hpp"

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

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const CommandRow& row : k_commands) names.emplace_back(row.name);
  return names;
}

[[noreturn]] void unknown_command(const std::string& typed) {
  const std::string best = nearest_spelling(typed, command_names());
  throw Error(ErrorCode::Usage, "unknown command \"" + typed + "\"" +
                                    (best.empty() ? "" : " (did you mean " + best + "?)") +
                                    "; see 'ejob --help' for the commands");
}

/// The flags a command takes, as typed: --long and -s.
std::vector<std::string> flag_names(const CLI::App& cmd) {
  std::vector<std::string> names = {"--help"};
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

/// The words a command did not take, in the order typed (CLI11's own message lists them
/// reversed): an unknown flag with the nearest one it does take, else the extra words.
[[noreturn]] void unexpected_words(const CLI::App& cmd, const std::vector<std::string>& words) {
  const std::string help = "; see 'ejob " + cmd.get_name() + " --help'";
  for (const std::string& w : words) {
    if (w.size() < 2 || w[0] != '-') continue;
    const std::string flag = w.substr(0, w.find('='));
    const std::string best = nearest_spelling(flag, flag_names(cmd));
    throw Error(ErrorCode::Usage, "unknown flag " + flag + " for 'ejob " + cmd.get_name() + "'" +
                                      (best.empty() ? "" : " (did you mean " + best + "?)") + help);
  }
  std::string list;
  for (const std::string& w : words) list += (list.empty() ? "" : " ") + w;
  throw Error(ErrorCode::Usage, "'ejob " + cmd.get_name() + "' does not take " +
                                    (words.size() == 1 ? "the argument " : "the arguments ") +
                                    list + help);
}

/// Every command checks for words it does not take once parsed, before it runs.
void check_extras(CLI::App& app) {
  for (CLI::App* cmd : app.get_subcommands({})) {
    cmd->allow_extras();
    cmd->parse_complete_callback([cmd] {
      if (!cmd->remaining().empty()) unexpected_words(*cmd, cmd->remaining());
    });
  }
}

/// `ejob`, `ejob help [COMMAND]`, `ejob version` and a command name that is none: answered
/// here; returns false when CLI11 is to parse the arguments.
bool answer_without_parsing(CLI::App& app, const std::vector<std::string>& args) {
  if (args.empty() || (args[0] == "help" && args.size() == 1)) {
    std::cout << app.help();
    return true;
  }
  if (args[0] == "version") {
    std::cout << version_text();
    return true;
  }
  const auto names = command_names();
  auto known = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  if (args[0] == "help") {
    if (!known(args[1])) unknown_command(args[1]);
    std::cout << app.get_subcommand(args[1])->help();
    return true;
  }
  if (args[0][0] != '-' && !known(args[0])) unknown_command(args[0]);
  return false;
}

/// The command the arguments named (the innermost parsed subcommand), for messages.
std::string parsed_command(const CLI::App& app) {
  std::string name = "ejob";
  for (const CLI::App* cmd = &app;;) {
    const auto subs = cmd->get_subcommands();
    if (subs.empty()) return name;
    cmd = subs.front();
    name += " " + cmd->get_name();
  }
}

/// CLI11's messages in ejob's words: the flag, what was given and what it takes.
std::string usage_message(const CLI::ParseError& e, const CLI::App& app) {
  const std::string what = e.what();
  const std::string help = "; see '" + parsed_command(app) + " --help'";
  std::smatch m;
  if (std::regex_match(what, m, std::regex("Could not convert: (\\S+) = (.*)")))
    return m[1].str() + ": \"" + m[2].str() + "\" is not a whole number";
  if (std::regex_match(what, m, std::regex("(\\S+): \\d+ required \\S+ missing")))
    return m[1].str() + " needs a value" + help;
  if (std::regex_match(what, m, std::regex("(\\S+): (.*) not in \\{(.*)\\}"))) {
    std::string choices = std::regex_replace(m[3].str(), std::regex(","), ", ");
    return m[1].str() + ": \"" + m[2].str() + "\" is not one of " + choices;
  }
  if (std::regex_match(what, m, std::regex("(\\S+) is required")))
    return "'" + parsed_command(app) + "' needs " +
           (m[1].str().starts_with("-") ? m[1].str() : "its " + m[1].str() + " argument") + help;
  if (what == "A subcommand is required")
    return "'" + parsed_command(app) + "' needs a subcommand" + help;
  return what;
}

}  // namespace

std::vector<std::string> take_trailing_args() {
  trailing().taken = true;
  return trailing().args;
}

std::unique_ptr<CLI::App> make_app(std::span<const CommandRow> rows) {
  auto app = std::make_unique<CLI::App>(
      "ejob: run elastic PyTorch training jobs on Kubernetes, or locally", "ejob");
  app->require_subcommand(1);
  app->set_version_flag("--version", short_version());
  app->footer(
      "'ejob help COMMAND' (or 'ejob COMMAND --help') shows a command's flags; "
      "'ejob version' the version.");
  for (const CommandRow& row : rows) row.add(*app);
  check_extras(*app);
  return app;
}

int run(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "__complete") {  // every word, `--` included
    std::cout << answer_completion(std::vector<std::string>(argv + 2, argv + argc));
    return 0;
  }
  const std::unique_ptr<CLI::App> made = make_app(commands_for(argc, argv));
  CLI::App& app = *made;
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    auto dashes = std::find(args.begin(), args.end(), "--");
    if (dashes != args.end()) {
      trailing().args.assign(dashes + 1, args.end());
      args.erase(dashes, args.end());
    }
    if (answer_without_parsing(app, args)) return 0;
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
    std::cerr << format_error(Error(ErrorCode::Usage, usage_message(e, app)));
    return exit_code(ErrorCode::Usage);
  } catch (const Error& e) {
    std::cout.flush();
    std::cerr << format_error(e);
    return exit_code(e.code());
  } catch (const std::exception& e) {
    // A library's exception that no adapter turned into ejob::Error is a bug of ours; it ends
    // the command with its text and Internal's status, never with an abort and a core dump.
    std::cout.flush();
    std::cerr << format_error(
        Error(ErrorCode::Internal, std::string("internal error: ") + e.what() +
                                       " (a bug of ejob: please report the command)"));
    return exit_code(ErrorCode::Internal);
  }
}

}  // namespace ejob::cli
