#pragma once
/// The subcommands of ejob, as rows of one table (ninja's style). Each command lives in its own
/// file `cli/<name>.cpp` and defines a `register_<name>` function that adds a CLI11 subcommand
/// whose callback runs the command (Flags → Options validated without I/O → run).

#include <CLI/CLI.hpp>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ejob::cli {

/// Whether a subcommand is listed in help, man pages and completions (a hidden one, as
/// local-supervisor, has no group).
inline bool is_listed(const CLI::App* command) { return !command->get_group().empty(); }

/// Adds one subcommand to `app`.
using Register = void (*)(CLI::App& app);

struct CommandRow {
  const char* name;
  Register add;
};

void register_template(CLI::App& app);
void register_crds(CLI::App& app);
void register_init(CLI::App& app);
void register_values(CLI::App& app);
void register_submit(CLI::App& app);
void register_list(CLI::App& app);
void register_delete(CLI::App& app);
void register_install_crds(CLI::App& app);
void register_port_forward(CLI::App& app);
void register_logs(CLI::App& app);
void register_describe(CLI::App& app);
void register_scale(CLI::App& app);
void register_evict(CLI::App& app);
void register_local_supervisor(CLI::App& app);
void register_docs(CLI::App& app);
void register_completion(CLI::App& app);
void register_doctor(CLI::App& app);
void register_config(CLI::App& app);

/// Every subcommand, in the order `ejob --help` lists them.
// One row per command, so the table reads as one.
// clang-format off
inline constexpr CommandRow k_commands[] = {
    {"template", register_template},
    {"crds", register_crds},
    {"init", register_init},
    {"values", register_values},
    {"submit", register_submit},
    {"list", register_list},
    {"logs", register_logs},
    {"describe", register_describe},
    {"delete", register_delete},
    {"scale", register_scale},
    {"evict", register_evict},
    {"install-crds", register_install_crds},
    {"doctor", register_doctor},
    {"config", register_config},
    {"port-forward", register_port_forward},
    {"completion", register_completion},
    {"local-supervisor", register_local_supervisor},
    {"docs", register_docs},
};
// clang-format on

/// `ejob __complete WORD... CURRENT`'s answer (cli/completion.cpp).
std::string answer_completion(const std::vector<std::string>& words);

/// The whole command line: `ejob` with the commands of `rows` (cli/run.cpp).
std::unique_ptr<CLI::App> make_app(std::span<const CommandRow> rows);

}  // namespace ejob::cli
