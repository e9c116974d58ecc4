#pragma once
/// The command-line entry point: parses argv, runs one subcommand, maps every ejob::Error to
/// its exit status in one place (util/error.hpp) and prints `ejob: error: …` on stderr.

namespace ejob::cli {

/// Runs ejob with the given arguments and returns the process exit status.
int run(int argc, char** argv);

}  // namespace ejob::cli
