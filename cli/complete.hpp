#pragma once
/// Shell completion's answer for a command line, from the same CLI11 definitions `--help`
/// prints: command names, a command's flags, a choice flag's values (its type name,
/// `name|json|yaml`), and what only the cluster or this machine knows (contexts, namespaces,
/// job names) through `DynamicValues`. The shells' scripts (cli/completion.cpp) ask
/// `ejob __complete WORD... CURRENT` and show the answer.

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace ejob::cli {

/// The values that depend on the kubeconfig, the cluster or this machine.
struct DynamicValues {
  std::function<std::vector<std::string>()> contexts;
  std::function<std::vector<std::string>()> namespaces;
  std::function<std::vector<std::string>()> job_names;
};

/// The candidates for the word being completed, and whether file names fit there instead
/// (a job file, a values file, a script after `--`): the shell then offers its own.
struct Completion {
  std::vector<std::string> candidates;
  bool files = false;
};

/// `words`: what follows `ejob` on the command line, the last one the word being completed
/// (empty for a new word). Candidates start with that word.
Completion complete_words(const CLI::App& app, const std::vector<std::string>& words,
                          const DynamicValues& values);

/// The protocol's text: one candidate a line, then `:files` when file names fit.
std::string completion_lines(const Completion& completion);

}  // namespace ejob::cli
