#include "cli/complete.hpp"

#include <catch2/catch.hpp>

namespace ejob::cli {
namespace {

using Words = std::vector<std::string>;

/// `ejob` with one command like ejob's own: a job name, -o with choices, --context.
struct Fixture {
  CLI::App app{"test", "ejob"};
  std::string name, output, context, hidden;
  DynamicValues values{[] {
                         return Words{"dev", "prod", "local"};
                       },
                       [] {
                         return Words{"elastic-job", "team"};
                       },
                       [] {
                         return Words{"hello", "help-me"};
                       }};
  Fixture() {
    CLI::App* logs = app.add_subcommand("logs", "Logs");
    logs->add_option("name", name, "Job name");
    logs->add_option("-o,--output", output, "json or yaml")->type_name("json|yaml");
    logs->add_option("--context", context, "Context");
    logs->add_option("--secret", hidden, "Hidden")->group("");
    app.add_subcommand("template", "Template")->add_option("jobfile", name, "Job file");
    app.add_subcommand("internal", "Internal")->group("");
  }
  Completion at(const Words& words) { return complete_words(app, words, values); }
};

TEST_CASE("complete: command names, the visible ones, by prefix") {
  Fixture f;
  CHECK(f.at({""}).candidates == Words{"logs", "template", "help", "version"});
  CHECK(f.at({"te"}).candidates == Words{"template"});
  CHECK(f.at({"help", "l"}).candidates == Words{"logs"});
}

TEST_CASE("complete: a command's flags, a choice flag's values, a context") {
  Fixture f;
  CHECK(f.at({"logs", "--"}).candidates == Words{"--help", "--output", "--context"});
  CHECK(f.at({"logs", "-o", ""}).candidates == Words{"json", "yaml"});
  CHECK(f.at({"logs", "--output", "y"}).candidates == Words{"yaml"});
  CHECK(f.at({"logs", "--context", "p"}).candidates == Words{"prod"});
}

TEST_CASE("complete: job names where a command takes one, file names elsewhere") {
  Fixture f;
  CHECK(f.at({"logs", "hel"}).candidates == Words{"hello", "help-me"});
  CHECK_FALSE(f.at({"logs", ""}).files);
  const Completion file = f.at({"template", "jo"});
  CHECK(file.candidates.empty());
  CHECK(file.files);
  CHECK(f.at({"template", "--", "tr"}).files);
  CHECK(completion_lines(file) == ":files\n");
  CHECK(completion_lines(f.at({"logs", "-o", "j"})) == "json\n");
}

TEST_CASE("complete: a command of commands completes its subcommands, then within one") {
  Fixture f;
  CLI::App* config = f.app.add_subcommand("config", "Config");
  config->add_subcommand("view", "View")
      ->add_option("-o,--output", f.output)
      ->type_name("json|yaml");
  CHECK(f.at({"config", ""}).candidates == Words{"view"});
  CHECK(f.at({"config", "v"}).candidates == Words{"view"});
  CHECK(f.at({"config", "view", "--o"}).candidates == Words{"--output"});
  CHECK(f.at({"config", "nope", ""}).candidates.empty());
}

}  // namespace
}  // namespace ejob::cli
