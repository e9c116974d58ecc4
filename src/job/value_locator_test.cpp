#include "src/job/value_locator.hpp"

#include <catch2/catch.hpp>
#include <map>

using namespace ejob;
using namespace ejob::job;

namespace {

render::helm::ReadFile files(std::map<std::string, std::string> texts) {
  return [texts](const std::string& path) {
    auto it = texts.find(path);
    if (it == texts.end()) throw Error(ErrorCode::Io, "no " + path);
    return it->second;
  };
}

ValuePath path_of(std::initializer_list<PathStep> steps) { return steps; }

const char* k_job =
    "image: x\n"
    "workers:\n"
    "  min: 2\n"
    "  max: 4\n"
    "scriptArgs:\n"
    "  - --epochs=3\n"
    "  - --lr=0.1\n"
    "workers: {min: 3}\n";

}  // namespace

TEST_CASE("value locator: keys and values of a YAML file, the last duplicate winning") {
  render::helm::ValueSources sources;
  sources.files = {"job.yaml"};
  ValueLocator at(sources, files({{"job.yaml", k_job}}));
  Location min = at.in_file("job.yaml", path_of({{"workers", {}}, {"min", {}}}), Part::Value);
  CHECK(min.line == 8);  // the second `workers:` replaces the first, as in Helm
  CHECK(min.column == 16);
  CHECK(min.source_line == "workers: {min: 3}");
  Location arg = at.in_file("job.yaml", path_of({{"scriptArgs", {}}, {{}, 1}}), Part::Value);
  CHECK(arg.line == 7);
  CHECK(arg.column == 5);
  Location key = at.in_file("job.yaml", path_of({{"scriptArgs", {}}}), Part::Key);
  CHECK((key.line == 5 && key.column == 1));
  Location absent = at.in_file("job.yaml", path_of({{"gpus", {}}}), Part::Value);
  CHECK((absent.file == "job.yaml" && absent.line == 0));
}

TEST_CASE("value locator: --set expressions, escapes and JSON values") {
  render::helm::ValueSources sources;
  sources.set = {"gpus=2,workers.max=8", "a\\.b=1"};
  sources.set_json = {R"(spot={"provider":"aws","mode":"x"},cpu=1)"};
  sources.set_literal = {"env.X=a,b=c"};
  ValueLocator at(sources, files({}));
  Location max = at.in_flags(path_of({{"workers", {}}, {"max", {}}}), Part::Value);
  CHECK(max.file == "--set");
  CHECK(max.source_line == "--set gpus=2,workers.max=8");
  CHECK(max.source_line.substr(static_cast<std::size_t>(max.column - 1)) == "8");
  Location dotted = at.in_flags(path_of({{"a.b", {}}}), Part::Key);
  CHECK(dotted.source_line == "--set a\\.b=1");
  Location provider = at.in_flags(path_of({{"spot", {}}, {"provider", {}}}), Part::Value);
  CHECK(provider.file == "--set-json");
  CHECK(provider.source_line.substr(static_cast<std::size_t>(provider.column - 1), 1) == "{");
  Location cpu = at.in_flags(path_of({{"cpu", {}}}), Part::Key);
  CHECK(cpu.source_line.substr(static_cast<std::size_t>(cpu.column - 1)) == "cpu=1");
  Location literal = at.in_flags(path_of({{"env", {}}, {"X", {}}}), Part::Value);
  CHECK(literal.source_line.substr(static_cast<std::size_t>(literal.column - 1)) == "a,b=c");
  CHECK(at.in_flags(path_of({{"b", {}}}), Part::Key).empty());  // inside a literal's value
}

TEST_CASE("value locator: the value in effect is the flags', else the last file's") {
  render::helm::ValueSources sources;
  sources.files = {"job.yaml", "more.yaml"};
  auto read = files({{"job.yaml", k_job}, {"more.yaml", "workers:\n  max: 1\n"}});
  ValueLocator files_only(sources, read);
  Location max = files_only.in_effect(path_of({{"workers", {}}, {"max", {}}}), Part::Value);
  CHECK((max.file == "more.yaml" && max.line == 2));
  CHECK(files_only.in_effect(path_of({{"image", {}}}), Part::Value).file == "job.yaml");
  CHECK(files_only.in_effect(path_of({{"gpus", {}}}), Part::Value).empty());
  sources.set = {"workers.max=3"};
  ValueLocator with_flags(sources, read);
  CHECK(with_flags.in_effect(path_of({{"workers", {}}, {"max", {}}}), Part::Value).file == "--set");
}
