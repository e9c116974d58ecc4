#include "cli/man_page.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "cli/commands.hpp"

namespace ejob::cli {
namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

/// `.TH` and NAME: the title, section 1, the version as the source.
std::string header(std::string_view page, std::string_view summary, std::string_view version) {
  // .nh/.ad l: no hyphenation and a ragged right edge, so flags and words stay whole.
  return fmt::format(".TH {} 1 \"\" \"ejob {}\" \"ejob manual\"\n.nh\n.ad l\n.SH NAME\n{} \\- {}\n",
                     upper(page), version, roff_escape(page), roff_escape(summary));
}

/// One `.TP` paragraph per option (or positional argument), written as `--help` writes its
/// line (CLI11's formatter: names, value type, REQUIRED, defaults), the names in bold.
std::string option_entries(const CLI::App& command, bool positional) {
  const auto help = std::dynamic_pointer_cast<CLI::Formatter>(command.get_formatter());
  std::string out;
  for (const CLI::Option* o : command.get_options()) {
    if (o->get_positional() != positional || o->get_group().empty()) continue;
    out += ".TP\n\\fB" + roff_escape(help->make_option_name(o, positional)) + "\\fR" +
           roff_escape(help->make_option_opts(o)) + "\n" + roff_escape(help->make_option_desc(o)) +
           "\n";
  }
  return out;
}

}  // namespace

std::string roff_escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string program_page(const CLI::App& app, std::string_view version) {
  std::string out = header(app.get_name(), app.get_description(), version);
  out += ".SH SYNOPSIS\n\\fBejob\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n";
  out += ".SH COMMANDS\n";
  for (const CLI::App* command : app.get_subcommands({})) {
    if (!is_listed(command)) continue;
    out += ".TP\n\\fB" + roff_escape(command->get_name()) + "\\fR\n" +
           roff_escape(command->get_description()) + "\n";
  }
  out += ".SH OPTIONS\n" + option_entries(app, false);
  if (!app.get_footer().empty()) out += ".SH NOTES\n" + roff_escape(app.get_footer()) + "\n";
  out += ".SH SEE ALSO\n";
  for (const CLI::App* command : app.get_subcommands({}))
    if (is_listed(command)) out += ".BR ejob\\-" + roff_escape(command->get_name()) + " (1)\n";
  return out;
}

std::string command_page(const CLI::App& command, std::string_view version) {
  const std::string name = "ejob-" + command.get_name();
  std::string out = header(name, command.get_description(), version);
  out += ".SH SYNOPSIS\n\\fBejob " + roff_escape(command.get_name()) + "\\fR [\\fIOPTIONS\\fR]";
  for (const CLI::Option* o : command.get_options())
    if (o->get_positional()) out += " [\\fI" + roff_escape(o->get_name(true)) + "\\fR]";
  out += "\n.SH DESCRIPTION\n" + roff_escape(command.get_description()) + ".\n";
  if (const std::string args = option_entries(command, true); !args.empty())
    out += ".SH ARGUMENTS\n" + args;
  out += ".SH OPTIONS\n" + option_entries(command, false);
  if (!command.get_footer().empty())
    out += ".SH NOTES\n" + roff_escape(command.get_footer()) + "\n";
  out += ".SH SEE ALSO\n.BR ejob (1)\n";
  return out;
}

}  // namespace ejob::cli
