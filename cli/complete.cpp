#include "cli/complete.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "cli/commands.hpp"

namespace ejob::cli {
namespace {

const CLI::App* find_command(const CLI::App& app, const std::string& name) {
  for (const CLI::App* command : app.get_subcommands({}))
    if (command->get_name() == name) return command;
  return nullptr;
}

/// The option `word` names (`--output`, `-o`), or null.
const CLI::Option* find_flag(const CLI::App& command, const std::string& word) {
  for (const CLI::Option* o : command.get_options()) {
    if (o->get_positional()) continue;
    for (const std::string& l : o->get_lnames())
      if (word == "--" + l) return o;
    for (const std::string& s : o->get_snames())
      if (word == "-" + s) return o;
  }
  return nullptr;
}

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({}))
    if (is_listed(command)) names.push_back(command->get_name());
  names.insert(names.end(), {"help", "version"});
  return names;
}

std::vector<std::string> flag_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* o : command.get_options()) {
    if (o->get_positional() || o->get_group().empty()) continue;
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
  }
  return names;
}

/// The literal choices of a type name such as `name|json|yaml` (placeholders such as `N`, in
/// capitals, are left out).
std::vector<std::string> choices(const std::string& type_name) {
  std::vector<std::string> out;
  if (type_name.find('|') == std::string::npos) return out;
  std::stringstream parts(type_name);
  for (std::string part; std::getline(parts, part, '|');)
    if (!part.empty() && !std::isupper(static_cast<unsigned char>(part[0]))) out.push_back(part);
  return out;
}

/// What fits as the value of `option`.
Completion option_values(const CLI::Option& option, const DynamicValues& values) {
  const std::string name = option.get_lnames().empty() ? "" : option.get_lnames().front();
  if (name == "context") return {values.contexts(), false};
  if (name == "namespace") return {values.namespaces(), false};
  if (name == "kubeconfig" || name == "values" || name == "chart" || name == "set-file")
    return {{}, true};
  return {choices(option.get_type_name()), false};
}

/// What fits as a positional argument: job names where the command takes a job's name, file
/// names elsewhere (a job file, a folder).
Completion positional_values(const CLI::App& command, const DynamicValues& values) {
  for (const CLI::Option* o : command.get_options())
    if (o->get_positional() && (o->get_name(true) == "name" || o->get_name(true) == "names"))
      return {values.job_names(), false};
  return {{}, true};
}

Completion complete_in(const CLI::App& command, const std::vector<std::string>& before,
                       const std::string& current, const DynamicValues& values) {
  if (std::find(before.begin(), before.end(), "--") != before.end()) return {{}, true};
  // A command of commands (`config view`): its subcommand first, then within that one.
  if (!command.get_subcommands({}).empty()) {
    if (before.size() == 1) {
      std::vector<std::string> names;
      for (const CLI::App* sub : command.get_subcommands({})) names.push_back(sub->get_name());
      return {names, false};
    }
    if (const CLI::App* sub = find_command(command, before[1]))
      return complete_in(*sub, {before.begin() + 1, before.end()}, current, values);
    return {};
  }
  if (before.size() > 1) {
    const CLI::Option* flag = find_flag(command, before.back());
    if (flag != nullptr && flag->get_type_size() > 0 && current.rfind('-', 0) != 0)
      return option_values(*flag, values);
  }
  if (current.rfind('-', 0) == 0) return {flag_names(command), false};
  return positional_values(command, values);
}

}  // namespace

Completion complete_words(const CLI::App& app, const std::vector<std::string>& words,
                          const DynamicValues& values) {
  const std::string current = words.empty() ? "" : words.back();
  const std::vector<std::string> before(words.begin(), words.end() - (words.empty() ? 0 : 1));
  Completion out;
  if (before.empty() || (before.size() == 1 && before[0] == "help")) {
    out.candidates = command_names(app);
  } else if (const CLI::App* command = find_command(app, before[0])) {
    out = complete_in(*command, before, current, values);
  }
  std::erase_if(out.candidates, [&](const std::string& c) { return c.rfind(current, 0) != 0; });
  return out;
}

std::string completion_lines(const Completion& completion) {
  std::string out;
  for (const std::string& c : completion.candidates) out += c + '\n';
  if (completion.files) out += ":files\n";
  return out;
}

}  // namespace ejob::cli
