#pragma once
/// The command-line entry point: parses argv, runs one subcommand, maps every ejob::Error to
/// its exit status in one place (util/error.hpp) and prints `ejob: error: …` on stderr.

#include <string>
#include <vector>

namespace ejob::cli {

/// Runs ejob with the given arguments and returns the process exit status.
int run(int argc, char** argv);

/// The arguments after the first `--` (a training command: `ejob submit -- train.py --lr 1`),
/// cut off before CLI11 parses the rest (CLI11 would give them to the first free positional,
/// e.g. JOBFILE). A command that accepts them calls this from its callback; for any other
/// command they are a usage error.
std::vector<std::string> take_trailing_args();

}  // namespace ejob::cli
