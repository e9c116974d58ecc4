#pragma once
/// Man pages from the same CLI11 definitions `--help` prints (roff, man(7) macros): ejob(1)
/// with the list of commands, and ejob-COMMAND(1) for each visible command with its synopsis,
/// description, arguments, options (names, value type, default) and footer.

#include <CLI/CLI.hpp>
#include <string>
#include <string_view>

namespace ejob::cli {

/// `text` as roff prints it literally: backslashes as `\e`, each `-` as `\-` (so that man
/// pages can be searched for flags and copied from), and a leading `.` or `'` of a line
/// guarded with `\&`.
std::string roff_escape(std::string_view text);

/// The page of the program itself: what `ejob --help` says, and each visible command.
std::string program_page(const CLI::App& app, std::string_view version);

/// The page of one command (`ejob-NAME`).
std::string command_page(const CLI::App& command, std::string_view version);

}  // namespace ejob::cli
